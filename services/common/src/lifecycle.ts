// A process's life, the same for every service and the gateway (docs/adr/0025-process-lifecycle.md):
// it listens at once and answers the probes while it starts, serves once started, and on SIGTERM or
// SIGINT drains: readiness fails at once, it keeps serving for the drain delay, then takes no new
// connection and no new queue job, finishes what is in flight (streamed answers included) within the
// shutdown deadline, and only then closes its pools and exits 0. A second signal or the deadline
// forces exit 1.
//
// The probes:
//   /healthz   liveness: the process runs (answered by the service's own app, or here while starting);
//   /readyz    readiness: 503 while starting and from the first signal on; otherwise the app's own
//              check of its dependencies;
//   /startupz  start-up: 200 once migrations ran, the server listens and the workers started.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from './logger.ts';

export type Closer = () => Promise<unknown>;

export interface ShutdownSettings {
  /** How long the process keeps serving after the signal, its readiness already failing (SHUTDOWN_DRAIN_MS). */
  drainMs: number;
  /** How long, after the drain delay, work in flight may take before the process gives up (SHUTDOWN_TIMEOUT_MS). */
  timeoutMs: number;
}

/**
 * Nothing waits by default (a development stack stops at once); the deadline is longer than the
 * gateway's deadline of one public chat answer (CHAT_TIMEOUT_MS, 60 s, itself longer than the model's
 * OPENAI_TIMEOUT_MS), so an answer that started before the signal always ends on its own, with 5 s
 * left to close the pools.
 */
export const DEFAULT_SHUTDOWN: ShutdownSettings = { drainMs: 0, timeoutMs: 65_000 };

/** The settings from a validated config (shutdownVars in config.ts). */
export const shutdownSettings = (config: { SHUTDOWN_DRAIN_MS: number; SHUTDOWN_TIMEOUT_MS: number }): ShutdownSettings => ({
  drainMs: config.SHUTDOWN_DRAIN_MS,
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});

export type Phase = 'starting' | 'serving' | 'draining';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Closes an HTTP server: no new connections, idle keep-alive sockets dropped, in-flight requests finished. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    // Connections that finish their request after close() would otherwise linger until the
    // keep-alive timeout, so idle ones are dropped as they appear.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** What the server answers by itself around the app: the start-up probe, and readiness while not serving. */
function probeFront(phase: () => Phase, app: () => Handler | undefined): Handler {
  const send = (res: ServerResponse, status: number, body: object) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) });
    res.end(text);
  };
  return (req, res) => {
    const now = phase();
    // Every answer from the signal on tells the caller to open its next connection elsewhere.
    if (now === 'draining') res.setHeader('connection', 'close');
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/startupz') return send(res, now === 'starting' ? 503 : 200, { status: now === 'starting' ? 'starting' : 'started' });
    if (path === '/readyz' && now !== 'serving') return send(res, 503, { status: now });
    const handler = app();
    if (handler) return handler(req, res);
    if (path === '/healthz') return send(res, 200, { status: 'ok' });
    send(res, 503, { message: 'Service temporarily unavailable. Please try again.' });
  };
}

/**
 * Starts a process's server before its app exists (so the probes answer while it migrates and
 * builds), and handles the signals. `start` gets the server's port once it listens and returns the
 * app and what stops the process's work; the process is started once it resolves.
 */
export async function runLifecycle(opts: {
  logger: Logger;
  port: number;
  host: string;
  shutdown?: Partial<ShutdownSettings>;
  start: (port: number) => Promise<{
    app: Handler;
    /** Stopped when the process stops taking work, beside the server: queue workers (each finishes the job in hand) and sweeps. */
    background: Closer[];
    /** Closed after the server and the background work have stopped, in order: pools. */
    closers: Closer[];
  }>;
}): Promise<Server> {
  const { logger } = opts;
  const shutdown = { ...DEFAULT_SHUTDOWN, ...opts.shutdown };
  let phase: Phase = 'starting';
  // Set once started: the app, and what stops the process's work.
  const started: { parts?: { app: Handler; background: Closer[]; closers: Closer[] } } = {};
  const server = createServer(
    probeFront(
      () => phase,
      () => started.parts?.app,
    ),
  );
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    const parts = started.parts;
    if (!parts) {
      logger.warn({ signal }, 'signal before the start finished: exiting');
      process.exit(1);
    }
    phase = 'draining';
    logger.info({ signal, drainMs: shutdown.drainMs, timeoutMs: shutdown.timeoutMs }, 'shutting down: not ready, still serving');
    if (shutdown.drainMs > 0) await new Promise((r) => setTimeout(r, shutdown.drainMs));
    const deadline = setTimeout(() => {
      logger.error({ timeoutMs: shutdown.timeoutMs }, 'shutdown deadline passed: exiting with work in flight');
      process.exit(1);
    }, shutdown.timeoutMs);
    deadline.unref();
    logger.info('no new connections or queue jobs: finishing the work in flight');
    const settle = async (step: Closer) => {
      try {
        await step();
      } catch (err) {
        logger.error({ err }, 'error during shutdown');
      }
    };
    await Promise.all([closeServer(server), ...parts.background.map(settle)]);
    for (const step of parts.closers) await settle(step);
    logger.info('stopped');
    process.exit(0);
  };
  // Kept for the whole life of the process: a second signal reaches stop() too, and forces the exit.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  started.parts = await opts.start(port);
  if (!stopping) phase = 'serving';
  return server;
}

/** Listens on `port` (0 for a random one) and resolves with the server once it is accepting. */
export function listen(
  app: { listen: (port: number, host: string, cb: () => void) => Server },
  port: number,
  host = '0.0.0.0',
): Promise<Server> {
  return new Promise((resolve) => {
    const server = app.listen(port, host, () => resolve(server));
  });
}
