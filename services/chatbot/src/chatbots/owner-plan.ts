// The owner's plan comes from billing (plan and credit are billing's truth). The chatbot service
// only needs to know whether the free plan's one-chatbot limit applies.
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { BillingService, Plan } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { unavailable } from '@parley/common/rpc-errors.ts';

export type OwnerPlan = 'free' | 'pro';
export type OwnerPlanLookup = (ownerId: string) => Promise<OwnerPlan>;

export const PLAN_UNAVAILABLE = 'Could not check your plan. Please try again.';

export function billingPlanLookup(billing: Client<typeof BillingService>, logger: Logger): OwnerPlanLookup {
  return async (ownerId) => {
    try {
      const { account } = await billing.getAccount({ ownerId });
      return account?.plan === Plan.PRO ? 'pro' : 'free';
    } catch (err) {
      // Billing's own messages are about its request, not the owner's: the owner is told to retry.
      const code = err instanceof ConnectError ? Code[err.code] : undefined;
      logger.warn({ err: (err as Error).message, code }, 'billing GetAccount failed');
      throw unavailable(PLAN_UNAVAILABLE);
    }
  };
}
