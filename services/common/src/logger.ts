import { pino, type DestinationStream, type Logger } from 'pino';
import { currentRequestId, currentTrace } from './context.ts';
import { instanceId } from './tracing.ts';

export type { Logger };

/**
 * JSON logs (pino), each line stamped with the service name and the process's instance id
 * (INSTANCE_ID: which replica wrote it) and, inside a request or a queue job, its request id and
 * trace id (the same in every process the request reaches).
 */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service, instance: instanceId() },
    mixin() {
      const requestId = currentRequestId();
      if (!requestId) return {};
      const trace = currentTrace();
      return trace ? { requestId, traceId: trace.traceId } : { requestId };
    },
    redact: { paths: ['req.headers.authorization', 'password', 'token', '*.password', '*.token'], censor: '[redacted]' },
  };
  // A test reads the lines from a stream of its own; a process writes them to stdout.
  return destination ? pino(options, destination) : pino(options);
}
