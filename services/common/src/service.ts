// What every process's main.ts does (each service and the gateway): listen, start, serve, and stop
// gracefully (lifecycle.ts).
import type { Express } from 'express';
import { runLifecycle, type Closer, type ShutdownSettings } from './lifecycle.ts';
import type { Logger } from './logger.ts';
import { collectAtRest, exposedGc } from './rest-memory.ts';
import { startTracing } from './tracing.ts';

/** A built service: its Express app and what must be stopped when it stops. */
export interface ServiceParts {
  app: Express;
  /**
   * Stopped as soon as the process stops taking work, while the server finishes its requests: the
   * queue workers (close() lets each finish the job in hand) and the periodic sweeps. Closers may stop
   * them again (harmless), so that a test closing the parts by hand needs only `closers`.
   */
  background?: Closer[];
  /** Closed after the HTTP server has drained and the background work stopped, in order: workers, then pools. */
  closers: Closer[];
}

/**
 * `host` is the interface to listen on: all of them unless given (the gateway is the public door).
 * `prepare` runs once the server listens, before `build` (a service's migrations): the probes answer
 * meanwhile (/healthz 200, /startupz and /readyz 503).
 */
export async function runService(opts: {
  name: string;
  logger: Logger;
  port: number;
  host?: string;
  shutdown?: Partial<ShutdownSettings>;
  prepare?: () => Promise<unknown>;
  build: () => Promise<ServiceParts>;
}): Promise<void> {
  // Spans go over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set; the last closer sends what is left.
  const stopTracing = await startTracing(opts.name);
  const host = opts.host ?? '0.0.0.0';
  await runLifecycle({
    logger: opts.logger,
    port: opts.port,
    host,
    shutdown: opts.shutdown,
    start: async (port) => {
      opts.logger.info({ port, host }, `${opts.name} starting`);
      await opts.prepare?.();
      const parts = await opts.build();
      // Started with PROCESS_MEMORY (scripts/stack.ts), the process gives back at rest what a burst of
      // work left behind (docs/adr/0020-process-memory.md).
      const stopCollecting = collectAtRest({ gc: exposedGc(), logger: opts.logger });
      opts.logger.info({ port, host }, `${opts.name} service listening`);
      return { app: parts.app, background: parts.background ?? [], closers: [async () => stopCollecting(), ...parts.closers, stopTracing] };
    },
  });
}
