import { CombinedGraphQLErrors, ServerError } from '@apollo/client/errors';

interface ErrorEntry {
  message?: unknown;
  extensions?: { code?: unknown; [key: string]: unknown };
}

// The first GraphQL error of a failed operation. Most failures arrive as CombinedGraphQLErrors; a
// gateway that answers with a non-2xx status (401, 429) surfaces as a ServerError whose body may
// still hold the GraphQL errors, so both are read.
function firstError(error: unknown): ErrorEntry | undefined {
  if (CombinedGraphQLErrors.is(error)) return error.errors[0] as ErrorEntry | undefined;
  if (ServerError.is(error)) {
    try {
      const body = JSON.parse(error.bodyText) as { errors?: ErrorEntry[] };
      return body.errors?.[0];
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The `extensions.code` of a failed operation, e.g. "UNAUTHENTICATED"; undefined for network failures. */
export function graphqlErrorCode(error: unknown): string | undefined {
  const code = firstError(error)?.extensions?.code;
  if (typeof code === 'string') return code;
  if (ServerError.is(error) && error.statusCode === 401) return 'UNAUTHENTICATED';
  return undefined;
}

/**
 * The server's user-facing message for a failed operation, when it sent one. Network and parse
 * failures carry no user-facing text, so callers fall back to their own default.
 */
export function graphqlErrorMessage(error: unknown): string | undefined {
  const message = firstError(error)?.message;
  return typeof message === 'string' && message.trim() ? message.trim() : undefined;
}

/** One `extensions` entry of a failed operation, e.g. `limitReached`; undefined when absent. */
export function graphqlErrorExtension(error: unknown, key: string): unknown {
  return firstError(error)?.extensions?.[key];
}

/**
 * What to tell the user about a failed operation: the server's message, which the gateway writes for
 * users, or `fallback` when there is none (a network failure) or it hides an internal error.
 */
export function userFacingErrorMessage(error: unknown, fallback: string): string {
  if (graphqlErrorCode(error) === 'INTERNAL_SERVER_ERROR') return fallback;
  return graphqlErrorMessage(error) ?? fallback;
}
