// Removing what billing holds about an owner who deleted their account (AccountDeleted).
// 1. At Stripe first (when billing talks to it): their subscriptions are canceled and their customer
//    deleted, which removes their personal data there. A Stripe failure throws before the database is
//    touched, so the job is retried later and finds everything still in place.
// 2. Then one transaction: the tombstone (DeletedAccount) with a fresh anonymous id; the usage ledger
//    kept only as anonymised accounting records under that id (ledger entries, usage records without
//    their chatbot names, daily totals), the remaining credit written off by a closing ledger entry so
//    the anonymous balance is 0 and still explained by its ledger; every other row of the owner gone.
// Idempotent: a redelivery finds the tombstone and no account, and does nothing. Concurrent deliveries
// queue on the owner's lock (the one openAccountInTransaction takes), so only the first anonymises.
import { randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import type { Logger } from '@parley/common/logger.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { callStripe, stripeSdk } from '../payments/stripe-client.ts';
import { lockOwner } from '../core/deleted-account.ts';
import { signupCreditReference } from '../core/open-account.ts';
import { parseOwnerId } from '../core/owner-id.ts';

export interface DeleteAccountDataDeps {
  prisma: PrismaClient;
  /** Null in TEST MODE: nothing at Stripe to remove. */
  stripe: Stripe | null;
  logger: Logger;
}

/** deleted: this call removed the owner's data. already_deleted: an earlier delivery had; nothing changed. */
export type DeleteAccountDataOutcome = 'deleted' | 'already_deleted';

/** The ledger entry that writes off the credit left when the account closed. */
export const ACCOUNT_CLOSED_REASON = 'account_closed';
export const accountClosedReference = (anonymousId: string) => `account_closed:${anonymousId}`;

export async function deleteAccountData(deps: DeleteAccountDataDeps, rawOwnerId: string): Promise<DeleteAccountDataOutcome> {
  const ownerId = parseOwnerId(rawOwnerId);
  const [tombstone, account] = await Promise.all([
    deps.prisma.deletedAccount.findUnique({ where: { ownerId } }),
    deps.prisma.account.findUnique({ where: { ownerId }, select: { stripeCustomerId: true } }),
  ]);
  if (tombstone && !account) return 'already_deleted';

  if (deps.stripe) await removeAtStripe(deps, deps.stripe, ownerId, account?.stripeCustomerId ?? null);

  const outcome = await deps.prisma.$transaction(
    async (tx): Promise<DeleteAccountDataOutcome> => {
      await lockOwner(tx, ownerId);
      // The tombstone first: from here on nothing can open the account again.
      const { count: tombstoned } = await tx.deletedAccount.createMany({
        data: [{ ownerId, anonymousId: randomUUID() }],
        skipDuplicates: true,
      });
      const { anonymousId } = await tx.deletedAccount.findUniqueOrThrow({ where: { ownerId } });
      const [current] = await tx.$queryRaw<{ creditBalance: string }[]>`
        SELECT "creditBalance"::text AS "creditBalance" FROM "Account" WHERE "userId" = ${ownerId} FOR UPDATE`;
      if (!current) {
        // No account (never opened, or a concurrent delivery removed it): only stray rows may be left.
        await deleteOwnerRows(tx, ownerId);
        return tombstoned ? 'deleted' : 'already_deleted';
      }

      // The anonymous account the accounting records move to: free, nothing reserved, no customer.
      await tx.account.createMany({ data: [{ ownerId: anonymousId, plan: 'free', creditBalance: 0 }], skipDuplicates: true });
      // The signup credit's reference is the only one naming the owner.
      await tx.$executeRaw`
        UPDATE "CreditLedgerEntry" SET "userId" = ${anonymousId},
               "reference" = CASE WHEN "reference" = ${signupCreditReference(ownerId)} THEN ${signupCreditReference(anonymousId)} ELSE "reference" END
         WHERE "userId" = ${ownerId}`;
      await tx.$executeRaw`
        INSERT INTO "CreditLedgerEntry" ("id", "userId", "amount", "reason", "reference")
        VALUES (gen_random_uuid(), ${anonymousId}, -${current.creditBalance}::numeric, ${ACCOUNT_CLOSED_REASON}, ${accountClosedReference(anonymousId)})
        ON CONFLICT ("reference") DO UPDATE SET "amount" = "CreditLedgerEntry"."amount" + EXCLUDED."amount"`;
      await tx.$executeRaw`UPDATE "UsageRecord" SET "userId" = ${anonymousId}, "chatbotName" = '' WHERE "userId" = ${ownerId}`;
      // Keyed by (owner, day, chatbot): merged into the anonymous id's rows should any already exist.
      await tx.$executeRaw`
        INSERT INTO "UsageDaily" AS d ("userId", "chatbotId", "day", "requestCount", "promptTokens", "completionTokens", "promptCost", "completionCost")
        SELECT ${anonymousId}, "chatbotId", "day", "requestCount", "promptTokens", "completionTokens", "promptCost", "completionCost"
          FROM "UsageDaily" WHERE "userId" = ${ownerId}
        ON CONFLICT ("userId", "day", "chatbotId") DO UPDATE SET
          "requestCount" = d."requestCount" + excluded."requestCount",
          "promptTokens" = d."promptTokens" + excluded."promptTokens",
          "completionTokens" = d."completionTokens" + excluded."completionTokens",
          "promptCost" = d."promptCost" + excluded."promptCost",
          "completionCost" = d."completionCost" + excluded."completionCost"`;
      await deleteOwnerRows(tx, ownerId);
      await tx.account.delete({ where: { ownerId } });
      return 'deleted';
    },
    { timeout: 60_000 },
  );
  deps.logger.info(
    { ownerId, outcome },
    outcome === 'deleted' ? 'account data deleted, usage ledger anonymised' : 'account data already deleted',
  );
  return outcome;
}

/** Every row of the owner but the account itself (whose ledger and usage have been moved off it). */
async function deleteOwnerRows(tx: Prisma.TransactionClient, ownerId: string): Promise<void> {
  await tx.usageDaily.deleteMany({ where: { ownerId } });
  await tx.creditReservation.deleteMany({ where: { ownerId } });
  await tx.subscription.deleteMany({ where: { ownerId } });
  await tx.checkoutSession.deleteMany({ where: { ownerId } });
  await tx.portalSession.deleteMany({ where: { ownerId } });
}

/** Cancels the owner's live subscriptions, then deletes their customer. What is already gone counts as done. */
async function removeAtStripe(deps: DeleteAccountDataDeps, stripe: Stripe, ownerId: string, customerId: string | null): Promise<void> {
  const { errors } = await stripeSdk();
  const isResourceMissing = (err: unknown) => err instanceof errors.StripeError && err.code === 'resource_missing';
  const subscriptions = await deps.prisma.subscription.findMany({ where: { ownerId, status: { not: 'canceled' } }, select: { id: true } });
  for (const { id } of subscriptions) {
    await callStripe(deps.logger, 'cancel subscription', async () => {
      try {
        await stripe.subscriptions.cancel(id);
      } catch (err) {
        if (isResourceMissing(err)) return;
        // Stripe refuses to cancel a subscription that has already ended; that one is done.
        if (err instanceof errors.StripeInvalidRequestError && (await stripe.subscriptions.retrieve(id)).status === 'canceled') return;
        throw err;
      }
    });
  }
  if (customerId) {
    await callStripe(deps.logger, 'delete customer', async () => {
      try {
        await stripe.customers.del(customerId);
      } catch (err) {
        if (!isResourceMissing(err)) throw err;
      }
    });
  }
}
