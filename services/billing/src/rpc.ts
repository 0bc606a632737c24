// The BillingService over ConnectRPC: maps proto messages to the use cases and back, nothing more.
import type { ConnectRouter } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  AccountSchema,
  BillingService,
  Plan,
  type Account as AccountMessage,
  type UsageRecord as UsageRecordMessage,
} from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { Account, Plan as DbPlan } from './generated/prisma/client.ts';
import { exportOwnerData } from './accounts/export-owner-data.ts';
import { getAccount } from './core/get-account.ts';
import type { OpenAccountDeps } from './core/open-account.ts';
import { CheckoutProduct as CheckoutProductMessage } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { CheckoutProduct } from './generated/prisma/client.ts';
import { billingOptions } from './payments/billing-options.ts';
import { createCheckoutSession } from './payments/create-checkout-session.ts';
import { createCustomer } from './payments/create-customer.ts';
import { createPortalSession } from './payments/create-portal-session.ts';
import { getTestCheckoutSession } from './payments/get-test-checkout-session.ts';
import { getTestPortalSession } from './payments/get-test-portal-session.ts';
import type { PaymentsDeps } from './payments/payments-deps.ts';
import { formatMoney } from './core/money.ts';
import { listUsageRecords } from './usage/list-usage-records.ts';
import { getUsageReport, type ReportedUsageRecord } from './usage/usage-report.ts';
import type { CreditHolds } from './credit/reserve-credit.ts';
import { releaseCredit } from './credit/release-credit.ts';
import { listExpiredHolds } from './credit/sweep-credit-holds.ts';
import { usageRetentionMethods } from './usage/usage-retention.ts';

const planToProto: Record<DbPlan, Plan> = { free: Plan.FREE, pro: Plan.PRO };

export function toAccountMessage(account: Account): AccountMessage {
  return create(AccountSchema, {
    ownerId: account.ownerId,
    plan: planToProto[account.plan],
    creditBalance: formatMoney(account.creditBalance),
    lastCreditRefill: timestampFromDate(account.lastCreditRefill),
    reservedCredit: formatMoney(account.reservedCredit),
  });
}

function toUsageRecordMessage(r: ReportedUsageRecord): Omit<UsageRecordMessage, '$typeName'> {
  return {
    requestId: r.requestId,
    occurredAt: timestampFromDate(r.occurredAt),
    chatbotId: r.chatbotId,
    chatbotName: r.chatbotName,
    model: r.model,
    modelDisplayName: r.modelDisplayName,
    promptTokens: BigInt(r.promptTokens),
    completionTokens: BigInt(r.completionTokens),
    totalTokens: BigInt(r.totalTokens),
    promptCost: r.promptCost,
    completionCost: r.completionCost,
    totalCost: r.totalCost,
    apiKeyId: r.apiKeyId ?? '',
    ownKey: r.ownKey,
  };
}

const productFromProto: Partial<Record<CheckoutProductMessage, CheckoutProduct>> = {
  [CheckoutProductMessage.PRO_SUBSCRIPTION]: 'pro_subscription',
  [CheckoutProductMessage.CREDIT_TOPUP]: 'credit_topup',
};
const productToProto: Record<CheckoutProduct, CheckoutProductMessage> = {
  pro_subscription: CheckoutProductMessage.PRO_SUBSCRIPTION,
  credit_topup: CheckoutProductMessage.CREDIT_TOPUP,
};

export function billingRoutes(deps: OpenAccountDeps, payments: PaymentsDeps, holds: CreditHolds) {
  return (router: ConnectRouter) => {
    router.service(BillingService, {
      ...usageRetentionMethods(deps),
      async getAccount(req) {
        return { account: toAccountMessage(await getAccount(deps, req.ownerId)) };
      },
      async createCustomer(req) {
        return { customerId: await createCustomer(payments, { ownerId: req.ownerId, email: req.email }) };
      },
      async createCheckoutSession(req) {
        return createCheckoutSession(payments, {
          ownerId: req.ownerId,
          email: req.email,
          product: productFromProto[req.product],
          successUrl: req.successUrl,
          cancelUrl: req.cancelUrl,
        });
      },
      async getTestCheckoutSession(req) {
        const session = await getTestCheckoutSession(payments, req.sessionId);
        return {
          sessionId: session.id,
          ownerId: session.ownerId,
          customerId: session.customerId,
          product: productToProto[session.product],
          amountCents: BigInt(session.amountCents ?? 0),
          successUrl: session.successUrl,
          cancelUrl: session.cancelUrl,
          completed: session.completedAt !== null,
        };
      },
      async getBillingOptions() {
        return billingOptions(payments);
      },
      async getUsageReport(req) {
        const report = await getUsageReport(deps, {
          ownerId: req.ownerId,
          startTime: req.startTime && timestampDate(req.startTime),
          endTime: req.endTime && timestampDate(req.endTime),
          chatbotId: req.chatbotId,
          limit: req.limit,
        });
        const { totals } = report;
        return {
          account: toAccountMessage(report.account),
          totals: {
            totalCost: formatMoney(totals.totalCost),
            totalPromptCost: formatMoney(totals.promptCost),
            totalCompletionCost: formatMoney(totals.completionCost),
            totalTokens: BigInt(totals.totalTokens),
            totalPromptTokens: BigInt(totals.promptTokens),
            totalCompletionTokens: BigInt(totals.completionTokens),
            requestCount: BigInt(totals.requestCount),
          },
          records: report.records.map(toUsageRecordMessage),
          days: report.days.map((d) => ({
            date: d.date,
            totalCost: formatMoney(d.totalCost),
            totalTokens: BigInt(d.totalTokens),
            requestCount: BigInt(d.requestCount),
          })),
          chatbots: report.chatbots.map((c) => ({
            chatbotId: c.chatbotId,
            chatbotName: c.chatbotName,
            totalCost: formatMoney(c.totalCost),
            requestCount: BigInt(c.requestCount),
          })),
          limit: report.limit,
        };
      },
      async reserveCredit(req) {
        const held = await holds.reserve(req);
        return {
          amount: formatMoney(held.amount),
          inputPricePerMillion: formatMoney(held.inputPricePerMillion),
          outputPricePerMillion: formatMoney(held.outputPricePerMillion),
        };
      },
      async listExpiredHolds(req) {
        return { requestIds: await listExpiredHolds(deps, req.limit) };
      },
      async releaseCredit(req) {
        return releaseCredit(deps, req.requestId);
      },
      async createPortalSession(req) {
        return createPortalSession(payments, { ownerId: req.ownerId, returnUrl: req.returnUrl });
      },
      async getTestPortalSession(req) {
        return getTestPortalSession(payments, req.sessionId);
      },
      async exportOwnerData(req) {
        const data = await exportOwnerData(deps, req.ownerId);
        return {
          account: toAccountMessage(data.account),
          stripeCustomerId: data.account.stripeCustomerId ?? '',
          subscriptions: data.subscriptions.map((s) => ({
            id: s.id,
            status: s.status,
            statusAt: timestampFromDate(s.statusAt),
            createdAt: timestampFromDate(s.createdAt),
          })),
          creditLedger: data.creditLedger.map((e) => ({
            amount: formatMoney(e.amount),
            reason: e.reason,
            createdAt: timestampFromDate(e.createdAt),
          })),
        };
      },
      async listUsageRecords(req) {
        const page = await listUsageRecords(deps, { ownerId: req.ownerId, cursor: req.cursor, pageSize: req.pageSize });
        return { records: page.records.map(toUsageRecordMessage), nextCursor: page.nextCursor };
      },
    });
  };
}
