// Before the model is called, the owner must have credit left (billing's truth): a chatbot whose
// owner is at or below zero answers that it is unavailable, and costs nothing.
//
// The check is made for every message. A "has credit" answer may be reused for CREDIT_CACHE_MS, and
// only when billing reported at least CREDIT_CACHE_MIN_BALANCE (far above one message's cost): a low
// or empty balance is always asked again. The bound this allows: within 2 s of billing reporting a
// balance of 0.10 or more, a chat instance may answer that owner's messages without asking again,
// so a balance spent to zero in that window (by those very messages, or set to zero by hand) shows
// after at most 2 s. Usage is billed asynchronously anyway (the usage queue), so the balance a check
// sees never includes the messages still in flight; the cache adds at most 2 s of messages per chat
// instance to that.
import type { Client } from '@connectrpc/connect';
import type { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { unavailableToUser } from '@parley/common/rpc-errors.ts';
import { CHATBOT_UNAVAILABLE } from './get-public-chatbot.ts';

/** Whether an exact decimal string (billing's credit_balance, e.g. "0.0100000000") is above zero. */
export function isPositiveAmount(amount: string): boolean {
  const value = amount.trim();
  if (!/^\+?\d+(\.\d+)?$/.test(value)) return false;
  return /[1-9]/.test(value);
}

/** How long a "has credit" answer is reused. */
export const CREDIT_CACHE_MS = 2_000;
/** Only a balance of at least this much is reused; anything lower is checked on every message. */
export const CREDIT_CACHE_MIN_BALANCE = 0.1;
const CREDIT_CACHE_MAX_OWNERS = 10_000;

export interface CreditCache {
  /** Whether billing reported a balance of at least CREDIT_CACHE_MIN_BALANCE for this owner within CREDIT_CACHE_MS. */
  hasCredit(ownerId: string): boolean;
  /** Keeps the answer when the balance is high enough to be reused; otherwise forgets the owner. */
  remember(ownerId: string, balance: string): void;
}

export function creditCache(opts: { ttlMs?: number; minBalance?: number; maxOwners?: number; now?: () => number } = {}): CreditCache {
  const ttlMs = Math.min(opts.ttlMs ?? CREDIT_CACHE_MS, CREDIT_CACHE_MS);
  const minBalance = Math.max(opts.minBalance ?? CREDIT_CACHE_MIN_BALANCE, CREDIT_CACHE_MIN_BALANCE);
  const maxOwners = opts.maxOwners ?? CREDIT_CACHE_MAX_OWNERS;
  const now = opts.now ?? Date.now;
  /** Owner → when the answer expires; in insertion order, so the oldest goes first when full. */
  const until = new Map<string, number>();
  return {
    hasCredit(ownerId) {
      const expires = until.get(ownerId);
      if (expires === undefined) return false;
      if (now() < expires) return true;
      until.delete(ownerId);
      return false;
    },
    remember(ownerId, balance) {
      until.delete(ownerId);
      if (!isPositiveAmount(balance) || Number(balance.trim()) < minBalance) return;
      if (until.size >= maxOwners) until.delete(until.keys().next().value!);
      until.set(ownerId, now() + ttlMs);
    },
  };
}

export async function assertOwnerHasCredit(
  deps: { billing: Client<typeof BillingService>; logger: Logger; creditCache?: CreditCache },
  ownerId: string,
): Promise<void> {
  if (deps.creditCache?.hasCredit(ownerId)) return;
  let balance: string;
  try {
    const { account } = await deps.billing.getAccount({ userId: ownerId });
    balance = account?.creditBalance ?? '0';
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'billing GetAccount failed');
    throw unavailableToUser(CHATBOT_UNAVAILABLE);
  }
  deps.creditCache?.remember(ownerId, balance);
  if (!isPositiveAmount(balance)) throw unavailableToUser(CHATBOT_UNAVAILABLE);
}
