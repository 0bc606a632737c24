// What the gateway knows about a request's caller: its bearer token and IP address. The GraphQL
// context also memoises per request what several fields share: the billing account per user (so
// `subscription` and `usage` share one call) and the open unanswered questions of all the owner's
// chatbots (so a list of chatbots costs one CountUnansweredQuestions call, not one per chatbot).
import type { Request } from 'express';
import { clientIp } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { Clients } from './clients.ts';
import { ownerId } from './owners.ts';
import { loadOpenUnansweredCounts } from './unanswered-questions.ts';
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
  /** Open unanswered-question groups per chatbot of the signed-in owner, fetched at most once per request. */
  openUnansweredQuestions(): Promise<ReadonlyMap<string, number>>;
}

export function graphQLContext(req: Request, clients: Clients, logger: Logger, publicUrl: string): GraphQLContext {
  const accounts = new Map<string, Promise<Account>>();
  let openUnanswered: Promise<ReadonlyMap<string, number>> | undefined;
  const token = bearerToken(req);
  return {
    clients,
    logger,
    token,
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
    openUnansweredQuestions() {
      // A counter on a card must not take the chatbot list down with it: without the counts every card shows none.
      openUnanswered ??= ownerId(clients, token)
        .then((owner) => loadOpenUnansweredCounts(clients, owner))
        .catch((err: unknown) => {
          logger.warn({ err }, 'open unanswered questions could not be counted');
          return new Map<string, number>();
        });
      return openUnanswered;
    },
  };
}
