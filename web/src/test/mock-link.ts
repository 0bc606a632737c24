import { ApolloLink } from '@apollo/client';
import { Observable } from 'rxjs';

export interface RecordedOperation {
  operationName: string | undefined;
  variables: Record<string, unknown>;
  headers: Record<string, string>;
}

/** A handler answers one operation with a GraphQL result, or throws to simulate a network failure. */
export type Handler = (operation: RecordedOperation) => ApolloLink.Result | Promise<ApolloLink.Result>;

/**
 * A terminating link that answers operations by name, so components and the session provider can
 * be tested against exact server answers without a server. Every operation is recorded.
 */
export function mockLink(handlers: Record<string, Handler>) {
  const calls: RecordedOperation[] = [];
  const link = new ApolloLink(
    (operation) =>
      new Observable<ApolloLink.Result>((observer) => {
        const recorded: RecordedOperation = {
          operationName: operation.operationName,
          variables: operation.variables,
          headers: (operation.getContext().headers ?? {}) as Record<string, string>,
        };
        calls.push(recorded);
        const handler = operation.operationName ? handlers[operation.operationName] : undefined;
        Promise.resolve()
          .then(() => {
            if (!handler) throw new Error(`No mock for operation ${operation.operationName}`);
            return handler(recorded);
          })
          .then(
            (result) => {
              observer.next(result);
              observer.complete();
            },
            (error: unknown) => observer.error(error),
          );
      }),
  );
  return { link, calls };
}

/** A GraphQL error answer as the gateway sends it: a user-facing message and an extensions.code. */
export function graphqlError(message: string, code: string): ApolloLink.Result {
  return { data: null, errors: [{ message, extensions: { code } }] };
}

export const sampleUser = {
  __typename: 'User' as const,
  id: 'u1',
  email: 'ada@example.com',
  name: 'Ada',
  twoFactorEnabled: false,
  subscription: 'free' as const,
  usage: { __typename: 'Usage' as const, creditBalance: '0.01', lastCreditRefill: '2025-01-01T00:00:00.000Z' },
};
