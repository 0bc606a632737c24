// What every service's main.ts does: build the service, listen, and stop gracefully.
import type { Express } from 'express';
import { closeServer, listen, onShutdown, type Closer } from './lifecycle.ts';
import type { Logger } from './logger.ts';
import { collectAtRest, exposedGc } from './rest-memory.ts';
import { startTracing } from './tracing.ts';

/** A built service: its Express app and what must be closed, in order, after the server stops. */
export interface ServiceParts {
  app: Express;
  /** Closed after the HTTP server has drained: workers first (they finish their current jobs), then pools. */
  closers: Closer[];
}

/** `host` is the interface to listen on: all of them unless given (the gateway is the public door). */
export async function runService(opts: {
  name: string;
  logger: Logger;
  port: number;
  host?: string;
  build: () => Promise<ServiceParts>;
}): Promise<void> {
  // Spans go over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set; the last closer sends what is left.
  const stopTracing = await startTracing(opts.name);
  const parts = await opts.build();
  const server = await listen(parts.app, opts.port, opts.host);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  opts.logger.info({ port, host: opts.host ?? '0.0.0.0' }, `${opts.name} service listening`);
  // Started with PROCESS_MEMORY (scripts/stack.ts), the process gives back at rest what a burst of
  // work left behind (docs/adr/0020-process-memory.md).
  const stopCollecting = collectAtRest({ gc: exposedGc(), logger: opts.logger });
  onShutdown(opts.logger, [async () => stopCollecting(), () => closeServer(server), ...parts.closers, stopTracing]);
}
