// What the gateway knows about a request's caller: its bearer token, IP address and workspace
// (X-Workspace-Id), and, once an operation has checked its permission, the member. The GraphQL
// context also memoises per request what several fields share: the billing account per user (so
// `subscription` and `usage` share one call) and the open unanswered questions of all the owner's
// chatbots (so a list of chatbots costs one CountUnansweredQuestions call, not one per chatbot).
import type { Request } from 'express';
import { clientIp } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { can, type Permission } from '@parley/common/roles.ts';
import { bearerToken } from '../access/bearer.ts';
import type { Clients } from './clients.ts';
import { accountOwner, authenticateMember, authorizeMember, workspaceHeader, type Member } from '../access/members.ts';
import { loadOpenUnansweredCounts } from '../features/unanswered-questions/unanswered-questions.ts';
import { loadAccount, type Account, type AuthUser } from '../access/users.ts';
import { DEFAULT_SEATS, type Seats } from '../features/workspaces/workspaces.ts';
import { loadCatalogue, type ModelCatalogue } from '@parley/common/models/catalogue.ts';

export { bearerToken };

export interface GraphQLContext {
  clients: Clients;
  logger: Logger;
  token: string | undefined;
  /** The X-Workspace-Id header, '' without it (the personal workspace). */
  workspaceId: string;
  clientIp: string;
  /** The product's own origin (PUBLIC_URL): checkout return URLs must be on it. */
  publicUrl: string;
  /** How many members each plan allows a workspace. */
  seats: Seats;
  /** The model catalogue, which names the models chatbots answer with. */
  catalogue: ModelCatalogue;
  /** The billing account of an owner (a workspace), fetched at most once per request. */
  account(ownerId: string): Promise<Account>;
  /**
   * The account whose plan and credit the user's own fields show: the request's workspace (owners.ts
   * accountOwner); null for a person in no workspace, who is shown none.
   */
  accountOf(user: AuthUser): Promise<Account | null>;
  /** Remembers the session a sign-in of this request opened, so the user it answers shows their workspace's plan. */
  signedIn(user: AuthUser, token: string): void;
  /**
   * The signed-in member in the request's workspace, once their role holds the permission (403
   * otherwise); graphql.ts calls it for every operation with the permission permissions.ts names.
   * The member is authenticated once per request.
   */
  authorize(permission: Permission): Promise<Member>;
  /** The member an earlier authorize() of this request let through. */
  member(): Promise<Member>;
  /** Open unanswered-question groups per chatbot of the signed-in owner, fetched at most once per request. */
  openUnansweredQuestions(): Promise<ReadonlyMap<string, number>>;
}

export function graphQLContext(
  req: Request,
  clients: Clients,
  logger: Logger,
  publicUrl: string,
  seats: Seats = DEFAULT_SEATS,
  catalogue: ModelCatalogue = loadCatalogue({}),
): GraphQLContext {
  const accounts = new Map<string, Promise<Account>>();
  // The sessions sign-ins of this request opened, by user id.
  const sessions = new Map<string, string>();
  let openUnanswered: Promise<ReadonlyMap<string, number>> | undefined;
  const token = bearerToken(req);
  const workspaceId = workspaceHeader(req);
  const ip = clientIp(req);
  let authenticated: Promise<Member> | undefined;
  let authorized: Member | undefined;
  const member = async () => {
    if (!authorized) throw new ConnectError('an operation acted for a member without checking a permission', Code.Internal);
    return authorized;
  };
  return {
    clients,
    logger,
    token,
    workspaceId,
    clientIp: ip,
    publicUrl,
    seats,
    catalogue,
    async authorize(permission) {
      authenticated ??= authenticateMember(clients, { token, workspaceId, clientIp: ip });
      authorized = authorizeMember(await authenticated, permission);
      return authorized;
    },
    member,
    account(ownerId) {
      let account = accounts.get(ownerId);
      if (!account) {
        account = loadAccount(clients, ownerId);
        accounts.set(ownerId, account);
      }
      return account;
    },
    async accountOf(user) {
      const owner = await accountOwner(clients, { token: sessions.get(user.id) ?? token, workspaceId, clientIp: ip }, user);
      return owner === null ? null : this.account(owner);
    },
    signedIn(user, sessionToken) {
      sessions.set(user.id, sessionToken);
    },
    openUnansweredQuestions() {
      // A counter on a card must not take the chatbot list down with it: without the counts every card shows none.
      // A member who may not read unanswered questions sees no counts.
      openUnanswered ??= member()
        .then((m) => (can(m.role, 'conversations:read') ? loadOpenUnansweredCounts(clients, m.ownerId) : new Map<string, number>()))
        .catch((err: unknown) => {
          logger.warn({ err }, 'open unanswered questions could not be counted');
          return new Map<string, number>();
        });
      return openUnanswered;
    },
  };
}
