// The ONE place where errors become what a browser sees: an HTTP status and message for REST, a
// GraphQL error with extensions.code and extensions.http.status for GraphQL. Services throw
// ConnectErrors whose messages are written for users; the gateway's own input checks throw the same
// kind (via the kit's helpers), so every path is mapped here. Unexpected errors are logged and
// answered with a generic message, never a stack.
import type { GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { Code, ConnectError, PLAN_LIMIT_HEADER, USER_MESSAGE_HEADER } from '@parley/common/rpc-errors.ts';
import type { Logger } from '@parley/common/logger.ts';

export const UNAVAILABLE_MESSAGE = 'Service temporarily unavailable. Please try again.';
export const INTERNAL_MESSAGE = 'Something went wrong. Please try again.';
export const MALFORMED_URL = 'Malformed URL';
export const BAD_CONTENT_ENCODING = 'Request body does not match its Content-Encoding';
/** A GraphQL request nesting deeper than graphql-limits.ts allows, refused before it is parsed. */
export const valuesNestedTooDeep = (max: number) => `Lists and input objects may be nested at most ${max} deep`;
export const selectionSetsNestedTooDeep = (max: number) => `Selection sets may be nested at most ${max} deep`;

/** A workspace the signed-in user is not a member of (or that does not exist): it reveals nothing. */
export const WORKSPACE_NOT_FOUND = 'Workspace not found';

/** The 403 of a member whose role lacks a permission: one wording in every service (roles.ts). */
export { roleLacksPermission } from '@parley/common/roles.ts';

export type GraphQLErrorCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'LIMIT_REACHED'
  | 'TOO_MANY_REQUESTS'
  | 'TWO_FACTOR_REQUIRED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_SERVER_ERROR';

export interface MappedError {
  status: number;
  code: GraphQLErrorCode;
  message: string;
  /** The owner's plan does not allow this (docs/product.md, Chatbots: a refused create carries limitReached). */
  limitReached?: true;
}

/** Marks the refusal of a member who must turn on two-factor sign-in first (owners.ts). */
const TWO_FACTOR_REQUIRED_HEADER = 'two-factor-required';

export const TWO_FACTOR_REQUIRED_MESSAGE = 'This workspace requires two-factor sign-in. Turn it on in your account to continue.';

/**
 * A workspace that requires two-factor sign-in refusing a member without it: 403 with the code
 * TWO_FACTOR_REQUIRED, which the dashboard answers by sending them to set it up (docs/product.md).
 */
export const twoFactorRequired = () =>
  new ConnectError(TWO_FACTOR_REQUIRED_MESSAGE, Code.PermissionDenied, { [TWO_FACTOR_REQUIRED_HEADER]: 'true' });

/** Connect codes whose message is meant for the user, with the status they become. */
const userFacing: Partial<Record<Code, { status: number; code: GraphQLErrorCode }>> = {
  [Code.InvalidArgument]: { status: 400, code: 'BAD_USER_INPUT' },
  [Code.FailedPrecondition]: { status: 400, code: 'BAD_USER_INPUT' },
  [Code.OutOfRange]: { status: 400, code: 'BAD_USER_INPUT' },
  [Code.Unauthenticated]: { status: 401, code: 'UNAUTHENTICATED' },
  [Code.PermissionDenied]: { status: 403, code: 'FORBIDDEN' },
  [Code.NotFound]: { status: 404, code: 'NOT_FOUND' },
  [Code.AlreadyExists]: { status: 409, code: 'CONFLICT' },
  [Code.ResourceExhausted]: { status: 429, code: 'TOO_MANY_REQUESTS' },
};

/** A refusal decided by the gateway itself with an HTTP status no Connect code stands for (413, 415). */
export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** Node's errors for a connection that broke or never formed, as the kit's clients raise them on a call. */
const CONNECTION_LOST = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/**
 * A call whose connection to the service was reset or closed under it (the service killed or
 * restarting): both transports of the kit's clients raise it as Aborted with Node's socket error as
 * the cause. Only that cause counts, so a service's own Internal (or Aborted) error stays a 500.
 */
function isConnectionLost(err: ConnectError): boolean {
  const cause = err.cause as { code?: unknown } | undefined;
  return typeof cause?.code === 'string' && CONNECTION_LOST.has(cause.code);
}

/** Maps any error to its status, code and user-facing message; logs what the user must not see. */
export function mapError(err: unknown, logger: Logger): MappedError {
  if (err instanceof HttpError) return { status: err.status, code: 'BAD_USER_INPUT', message: err.message };
  // Express throws it while decoding a path parameter such as `%ZZ`; its message echoes the input.
  if (err instanceof URIError) return { status: 400, code: 'BAD_USER_INPUT', message: MALFORMED_URL };
  if (err instanceof ConnectError) {
    if (err.metadata.get(PLAN_LIMIT_HEADER) === 'true')
      return { status: 403, code: 'LIMIT_REACHED', message: err.rawMessage, limitReached: true };
    if (err.metadata.get(TWO_FACTOR_REQUIRED_HEADER) === 'true')
      return { status: 403, code: 'TWO_FACTOR_REQUIRED', message: err.rawMessage };
    const known = userFacing[err.code];
    if (known) return { ...known, message: err.rawMessage };
    // A service's own conflict (rpc-errors.ts conflict); the same code with a socket error is a lost connection, below.
    if (err.code === Code.Aborted && !isConnectionLost(err)) return { status: 409, code: 'CONFLICT', message: err.rawMessage };
    if (err.code === Code.Unavailable && err.metadata.get(USER_MESSAGE_HEADER) === 'true') {
      return { status: 503, code: 'SERVICE_UNAVAILABLE', message: err.rawMessage };
    }
    if (err.code === Code.Unavailable || err.code === Code.DeadlineExceeded || isConnectionLost(err)) {
      logger.warn({ code: Code[err.code], err: err.rawMessage }, 'service unavailable');
      return { status: 503, code: 'SERVICE_UNAVAILABLE', message: UNAVAILABLE_MESSAGE };
    }
  }
  logger.error({ err }, 'unexpected error');
  return { status: 500, code: 'INTERNAL_SERVER_ERROR', message: INTERNAL_MESSAGE };
}

/** The REST answer for an error: its status and the `{ message }` body (with `code` when the client must act on it). */
export function toHttpError(
  err: unknown,
  logger: Logger,
): { status: number; body: { message: string; limitReached?: true; code?: 'TWO_FACTOR_REQUIRED' } } {
  const { status, code, message, limitReached } = mapError(err, logger);
  if (code === 'TWO_FACTOR_REQUIRED') return { status, body: { message, code } };
  return { status, body: limitReached ? { message, limitReached } : { message } };
}

/** Apollo's own error codes (malformed or invalid operations) and the status they stand for. */
const apolloStatus: Record<string, number> = {
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  BAD_USER_INPUT: 400,
  BAD_REQUEST: 400,
  OPERATION_RESOLUTION_FAILURE: 400,
  PERSISTED_QUERY_NOT_FOUND: 400,
  PERSISTED_QUERY_NOT_SUPPORTED: 400,
};

/**
 * Apollo's formatError hook. Errors thrown by resolvers (ConnectErrors from services or from the
 * gateway's checks) get the product's message (docs/product.md, Messages) and a code; Apollo's own request errors keep theirs.
 * extensions.http.status is informative: the HTTP response itself stays 200 for resolver errors, as
 * GraphQL clients expect.
 */
export function formatGraphQLError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const ownCode = formatted.extensions?.code;
    if (!(original instanceof ConnectError) && typeof ownCode === 'string' && ownCode in apolloStatus) {
      return { ...formatted, extensions: { code: ownCode, http: { status: apolloStatus[ownCode] } } };
    }
    const { status, code, message, limitReached } = mapError(original, logger);
    const extensions = limitReached ? { code, limitReached, http: { status } } : { code, http: { status } };
    return { message, locations: formatted.locations, path: formatted.path, extensions };
  };
}

/** Errors of express.json() (malformed or oversized bodies), which never reach a service. */
export function bodyParserError(err: unknown): { status: number; body: { message: string } } | undefined {
  if (!err || typeof err !== 'object') return undefined;
  // A gzip, deflate or br body that does not inflate: body-parser passes zlib's error on without a
  // type (zlib's codes start Z_, brotli's decoder errors ERR__ERROR_, as in ERR__ERROR_FORMAT_PADDING_1).
  if ('code' in err && typeof err.code === 'string' && /^(Z_|ERR__ERROR_)/.test(err.code))
    return { status: 400, body: { message: BAD_CONTENT_ENCODING } };
  if (!('type' in err) || typeof err.type !== 'string') return undefined;
  switch (err.type) {
    case 'entity.parse.failed':
      return { status: 400, body: { message: 'Malformed JSON body' } };
    case 'entity.too.large':
      return { status: 413, body: { message: 'Request body too large' } };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 415, body: { message: 'Unsupported request body encoding' } };
    case 'request.aborted':
      return { status: 400, body: { message: 'Request aborted' } };
    default:
      return undefined;
  }
}
