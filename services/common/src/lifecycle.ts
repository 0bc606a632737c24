// Graceful shutdown: on SIGTERM or SIGINT stop accepting connections, let in-flight requests and jobs
// finish, then close pools. A second signal or the deadline forces the exit.
import type { Server } from 'node:http';
import type { Logger } from './logger.ts';

export type Closer = () => Promise<unknown>;

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

export function onShutdown(logger: Logger, steps: Closer[], { deadlineMs = 15_000 } = {}): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown deadline passed: exiting');
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    for (const step of steps) {
      try {
        await step();
      } catch (err) {
        logger.error({ err }, 'error during shutdown');
      }
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
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
