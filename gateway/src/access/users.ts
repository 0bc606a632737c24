// The user as the product shows it: identity from the auth service, plan and credit from billing
// (billing is the truth for both). REST and GraphQL compose it from these helpers.
import type { User as AuthUser } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { Plan, type Account } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { ConnectError, Code } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../http/clients.ts';

export type { AuthUser, Account };

export type Subscription = 'free' | 'pro';

export interface Usage {
  /** Exact decimal string, e.g. "0.01". */
  creditBalance: string;
  /** ISO 8601, or null when billing has never refilled the account. */
  lastCreditRefill: string | null;
}

export interface UserView {
  id: string;
  email: string;
  name: string;
  subscription: Subscription;
  usage: Usage;
}

export async function loadAccount(clients: Clients, ownerId: string): Promise<Account> {
  const { account } = await clients.billing.getAccount({ ownerId });
  // A contract violation, not a user error: it surfaces as a logged 500.
  if (!account) throw new ConnectError('billing returned no account', Code.Internal);
  return account;
}

/**
 * What a person in no workspace is shown (docs/product.md, Accounts and sessions): no workspace's plan
 * or credit, in the words a free workspace with nothing left would use, and no call to billing.
 */
export const NO_WORKSPACE_SUBSCRIPTION: Subscription = 'free';
export const NO_WORKSPACE_USAGE: Usage = { creditBalance: '0', lastCreditRefill: null };

/** The plan of a workspace's account; null (no workspace) reads as free. */
export function subscriptionOf(account: Account | null): Subscription {
  if (!account) return NO_WORKSPACE_SUBSCRIPTION;
  return account.plan === Plan.PRO ? 'pro' : 'free';
}

/** The credit of a workspace's account; null (no workspace) reads as none. */
export function usageOf(account: Account | null): Usage {
  if (!account) return { ...NO_WORKSPACE_USAGE };
  const refill = account.lastCreditRefill;
  return {
    creditBalance: account.creditBalance,
    lastCreditRefill: refill ? new Date(Number(refill.seconds) * 1000 + Math.floor(refill.nanos / 1e6)).toISOString() : null,
  };
}

export function userView(user: AuthUser, account: Account | null): UserView {
  return { id: user.id, email: user.email, name: user.name, subscription: subscriptionOf(account), usage: usageOf(account) };
}

/**
 * The user with the plan and credit of `ownerId`'s account: the workspace the request acts in
 * (owners.ts accountOwner); null for a person in no workspace, who is shown none.
 */
export async function composeUser(clients: Clients, user: AuthUser, ownerId: string | null = user.id): Promise<UserView> {
  return userView(user, ownerId === null ? null : await loadAccount(clients, ownerId));
}
