// What the gateway knows about a request's caller: its bearer token and IP address. The GraphQL
// context also memoises the billing account per user, so `subscription` and `usage` share one call.
import type { Request } from 'express';
import { clientIp } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { Clients } from './clients.ts';
import { loadAccount, type Account } from './users.ts';

/** The token of an `Authorization: Bearer <token>` header; anything else counts as no token. */
export function bearerToken(req: Request): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '');
  return match?.[1];
}

export interface GraphQLContext {
  clients: Clients;
  logger: Logger;
  token: string | undefined;
  clientIp: string;
  /** The product's own origin (PUBLIC_URL): checkout return URLs must be on it. */
  publicUrl: string;
  /** The billing account of a user, fetched at most once per request. */
  account(userId: string): Promise<Account>;
}

export function graphQLContext(req: Request, clients: Clients, logger: Logger, publicUrl: string): GraphQLContext {
  const accounts = new Map<string, Promise<Account>>();
  return {
    clients,
    logger,
    token: bearerToken(req),
    clientIp: clientIp(req),
    publicUrl,
    account(userId) {
      let account = accounts.get(userId);
      if (!account) {
        account = loadAccount(clients, userId);
        accounts.set(userId, account);
      }
      return account;
    },
  };
}
