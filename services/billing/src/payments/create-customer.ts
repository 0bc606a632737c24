// The owner's Stripe customer: created once, however often and however concurrently it is asked
// for (the web app asks before every checkout). A per-owner advisory lock, held by the transaction
// that reads and stores the id, makes concurrent callers wait for the first one's customer instead
// of creating their own; Stripe's idempotency key covers a crash between creating and storing it.
import { randomBytes } from 'node:crypto';
import { invalid } from '@parley/common/rpc-errors.ts';
import { openAccountInTransaction } from '../core/open-account.ts';
import { parseOwnerId } from '../core/owner-id.ts';
import type { PaymentsDeps } from './payments-deps.ts';
import { callStripe } from './stripe-client.ts';

export interface CreateCustomerInput {
  ownerId: string;
  /** For Stripe's receipts; optional. */
  email?: string;
}

/** Stripe's idempotency key for creating the owner's customer: one per owner. */
export const customerIdempotencyKey = (ownerId: string) => `customer:${ownerId}`;

export async function createCustomer(deps: PaymentsDeps, input: CreateCustomerInput): Promise<string> {
  const ownerId = parseOwnerId(input.ownerId);
  const email = parseEmail(input.email);

  // The usual case, a customer made before, without taking the lock.
  const known = await deps.prisma.account.findUnique({ where: { ownerId }, select: { stripeCustomerId: true } });
  if (known?.stripeCustomerId) return known.stripeCustomerId;

  return deps.prisma.$transaction(
    async (tx) => {
      // Released at commit or rollback; the key is namespaced because advisory locks are per database.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`billing.stripe_customer:${ownerId}`}, 0))`;
      await openAccountInTransaction(tx, ownerId, deps.initialCredit);
      const account = await tx.account.findUniqueOrThrow({ where: { ownerId }, select: { stripeCustomerId: true } });
      if (account.stripeCustomerId) return account.stripeCustomerId;

      const customerId = deps.stripe
        ? (
            await callStripe(deps.logger, 'create customer', () =>
              deps.stripe!.customers.create(
                // The metadata key stays `userId`: customers made before carry it, and the events read it.
                { ...(email && { email }), metadata: { userId: ownerId } },
                { idempotencyKey: customerIdempotencyKey(ownerId) },
              ),
            )
          ).id
        : `cus_test_${randomBytes(12).toString('hex')}`;
      await tx.account.update({ where: { ownerId }, data: { stripeCustomerId: customerId } });
      return customerId;
    },
    // Callers queue on the lock while the first one talks to Stripe (its timeout is 20 s).
    { maxWait: 15_000, timeout: 60_000 },
  );
}

function parseEmail(raw: string | undefined): string | undefined {
  const email = raw?.trim();
  if (!email) return undefined;
  if (email.length > 320 || !/^[^\s@]+@[^\s@]+$/.test(email)) throw invalid('email must be an email address.');
  return email;
}
