// The BillingService over ConnectRPC: maps proto messages to the use cases and back, nothing more.
import type { ConnectRouter } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AccountSchema, BillingService, Plan, type Account as AccountMessage } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { Account, Plan as DbPlan } from './generated/prisma/client.ts';
import { getAccount } from './accounts/get-account.ts';
import type { OpenAccountDeps } from './accounts/open-account.ts';
import { formatMoney } from './money.ts';

const planToProto: Record<DbPlan, Plan> = { free: Plan.FREE, pro: Plan.PRO };

export function toAccountMessage(account: Account): AccountMessage {
  return create(AccountSchema, {
    userId: account.userId,
    plan: planToProto[account.plan],
    creditBalance: formatMoney(account.creditBalance),
    lastCreditRefill: timestampFromDate(account.lastCreditRefill),
  });
}

export function billingRoutes(deps: OpenAccountDeps) {
  return (router: ConnectRouter) => {
    router.service(BillingService, {
      async getAccount(req) {
        return { account: toAccountMessage(await getAccount(deps, req.userId)) };
      },
    });
  };
}
