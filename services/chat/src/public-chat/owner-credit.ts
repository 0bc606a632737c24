// Before the model is called, the owner must have credit left (billing's truth): a chatbot whose
// owner is at or below zero answers that it is unavailable, and costs nothing.
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

export async function assertOwnerHasCredit(deps: { billing: Client<typeof BillingService>; logger: Logger }, ownerId: string): Promise<void> {
  let balance: string;
  try {
    const { account } = await deps.billing.getAccount({ userId: ownerId });
    balance = account?.creditBalance ?? '0';
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'billing GetAccount failed');
    throw unavailableToUser(CHATBOT_UNAVAILABLE);
  }
  if (!isPositiveAmount(balance)) throw unavailableToUser(CHATBOT_UNAVAILABLE);
}
