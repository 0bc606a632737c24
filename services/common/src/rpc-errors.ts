// Business errors inside a service are thrown as ConnectError with a Connect code and a message
// meant for the product's users. Anything else is an unexpected failure: it is logged with its stack
// and reaches the caller as a generic INTERNAL error, never with internals.
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import type { Logger } from './logger.ts';

export { Code, ConnectError };

export const invalid = (message: string) => new ConnectError(message, Code.InvalidArgument);
export const notFound = (message: string) => new ConnectError(message, Code.NotFound);
export const alreadyExists = (message: string) => new ConnectError(message, Code.AlreadyExists);
export const unauthenticated = (message: string) => new ConnectError(message, Code.Unauthenticated);
export const forbidden = (message: string) => new ConnectError(message, Code.PermissionDenied);
export const tooMany = (message: string) => new ConnectError(message, Code.ResourceExhausted);
export const failedPrecondition = (message: string) => new ConnectError(message, Code.FailedPrecondition);
export const unavailable = (message: string) => new ConnectError(message, Code.Unavailable);
/**
 * The call conflicts with the current state of what it acts on (a refresh of an entry still being
 * processed): ABORTED, as gRPC names a conflict; HTTP 409 at the gateway, which tells it from a lost
 * connection (also ABORTED, with a socket error as its cause).
 */
export const conflict = (message: string) => new ConnectError(message, Code.Aborted);

/**
 * Error metadata marking an UNAVAILABLE error whose message is written for the user (a chatbot whose
 * owner is out of credit, a language model that timed out), so the gateway shows it instead of its
 * generic "temporarily unavailable" text.
 */
export const USER_MESSAGE_HEADER = 'user-message';
/** Error metadata set to "true" when a create is refused by the owner's plan limit (the REST answer's limitReached). */
export const PLAN_LIMIT_HEADER = 'limit-reached';

/**
 * Error metadata set to "true" on billing's RESOURCE_EXHAUSTED when a credit hold is refused by the
 * chatbot's daily spend limit rather than by the owner's credit (the visitor hears the day's limit).
 */
export const SPEND_LIMIT_REACHED_HEADER = 'spend-limit-reached';

export const unavailableToUser = (message: string) => new ConnectError(message, Code.Unavailable, { [USER_MESSAGE_HEADER]: 'true' });

export function errorInterceptor(logger: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      if (err instanceof ConnectError) throw err;
      logger.error({ err, procedure: req.method.name }, 'unhandled error in RPC');
      throw new ConnectError('Internal error', Code.Internal);
    }
  };
}
