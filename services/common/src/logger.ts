import { pino, type Logger } from 'pino';
import { currentRequestId } from './context.ts';

export type { Logger };

/** JSON logs (pino), each line stamped with the service name and, inside a request, its id. */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service },
    mixin() {
      const requestId = currentRequestId();
      return requestId ? { requestId } : {};
    },
    redact: { paths: ['req.headers.authorization', 'password', 'token', '*.password', '*.token'], censor: '[redacted]' },
  });
}
