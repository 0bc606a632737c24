import type { SessionUserFragment } from '../../gql/graphql';

export type SessionUser = SessionUserFragment;
export type Plan = SessionUser['subscription'];

/** Starting credit the client assumes when the server reports none (docs/product.md, Plans, credit and checkout). */
export const DEFAULT_CREDIT_BALANCE = '0.01';

/**
 * Fills in the credit a newly registered user starts with when the server's answer lacks it, so
 * every screen can rely on `usage.creditBalance` being present.
 */
export function normalizeSessionUser(user: SessionUser, now: Date = new Date()): SessionUser {
  if (user.usage?.creditBalance) return user;
  return {
    ...user,
    usage: { ...user.usage, creditBalance: DEFAULT_CREDIT_BALANCE, lastCreditRefill: now.toISOString() },
  };
}
