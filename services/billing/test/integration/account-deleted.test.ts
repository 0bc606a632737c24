// Account deletion against the fake Stripe API and the real database and queue: the owner's
// subscription is canceled and their customer deleted at Stripe, every billing row of theirs is gone,
// their usage ledger lives on only as anonymised accounting records, the same event delivered again
// (or at the same time) ends in the same state, a Stripe failure leaves the database untouched until
// a retry, and nothing that arrives late brings the owner's data back.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate, timestampNow } from '@bufbuild/protobuf/wkt';
import { Code, type Client } from '@connectrpc/connect';
import { BillingService, CheckoutProduct } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { AccountDeletedSchema } from '@parley/proto/parley/events/v1/account_deleted_pb.js';
import { UsageRecordedSchema } from '@parley/proto/parley/events/v1/usage_recorded_pb.js';
import { UserRegisteredSchema } from '@parley/proto/parley/events/v1/user_registered_pb.js';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { rpcError } from '@parley/common/testing/rpc.ts';
import {
  FAKE_PRICE_PRO,
  FAKE_PRICE_TOPUP,
  FAKE_STRIPE_KEY,
  startFakeStripe,
  stripeEventPayload,
  subscriptionUpdatedEvent,
  type FakeStripe,
  type StripeEventJson,
} from '@parley/common/testing/fake-stripe.ts';
import { ACCOUNT_CLOSED_REASON, deleteAccountData } from '../../src/accounts/delete-account-data.ts';
import { ACCOUNT_DELETED_MESSAGE } from '../../src/core/deleted-account.ts';
import { openAccount } from '../../src/core/open-account.ts';
import { applyStripeEvent } from '../../src/payments/apply-stripe-event.ts';
import { recordUsage } from '../../src/usage/record-usage.ts';
import { creditHolds } from '../../src/credit/reserve-credit.ts';
import { expectHoldsInvariant, expectLedgerInvariant } from './ledger.ts';
import { jobSettled, startBilling, type Billing } from './harness.ts';

let fake: FakeStripe;
let billing: Billing;
let client: Client<typeof BillingService>;
let accountDeleted: Producer<typeof AccountDeletedSchema>;
let userRegistered: Producer<typeof UserRegisteredSchema>;
let usageRecorded: Producer<typeof UsageRecordedSchema>;

beforeAll(async () => {
  fake = await startFakeStripe();
  billing = await startBilling({
    env: {
      STRIPE_SECRET_KEY: FAKE_STRIPE_KEY,
      STRIPE_API_BASE: fake.url,
      STRIPE_PRICE_PRO: FAKE_PRICE_PRO,
      STRIPE_PRICE_TOPUP: FAKE_PRICE_TOPUP,
    },
  });
  client = createServiceClient(BillingService, billing.url, { timeoutMs: 20_000 });
  const prefix = { prefix: billing.config.QUEUE_PREFIX };
  accountDeleted = createProducer(billing.redis, QUEUES.accountDeletedBilling, AccountDeletedSchema, prefix);
  userRegistered = createProducer(billing.redis, QUEUES.userRegistered, UserRegisteredSchema, prefix);
  usageRecorded = createProducer(billing.redis, QUEUES.usageRecorded, UsageRecordedSchema, prefix);
});

afterAll(async () => {
  await Promise.all([accountDeleted?.close(), userRegistered?.close(), usageRecorded?.close()]);
  await billing?.stop();
  await fake?.close();
});

beforeEach(() => fake.setBehaviour({ failWith: null, delayMs: 0 }));

const prisma = () => billing.parts.prisma;
const newOwner = () => `owner-${randomUUID()}`;
const deleted = (ownerId: string) => create(AccountDeletedSchema, { userId: ownerId, occurredAt: timestampNow() });
const applyEvent = (event: StripeEventJson) =>
  applyStripeEvent(billing.parts.payments, { eventId: event.id, type: event.type, payload: stripeEventPayload(event) });

/** Publishes AccountDeleted under `jobId` and waits for the worker's attempt at it. */
async function deliver(ownerId: string, jobId = randomUUID()) {
  const settled = jobSettled(billing.parts.accountDeletedWorker!, jobId);
  await accountDeleted.publish(deleted(ownerId), jobId);
  return settled;
}

interface Seeded {
  ownerId: string;
  customerId: string;
  subscriptionId: string;
  requestIds: string[];
}

/**
 * A pro owner with everything billing can hold about someone: a Stripe customer and an active
 * subscription (through a real checkout at the fake), checkout sessions, usage on two days with its
 * daily totals, an open credit hold and a test portal session.
 */
async function seedOwner(): Promise<Seeded> {
  const ownerId = newOwner();
  const { sessionId } = await client.createCheckoutSession({
    ownerId,
    email: `${ownerId}@example.com`,
    product: CheckoutProduct.PRO_SUBSCRIPTION,
    successUrl: 'http://localhost:8080/dashboard',
    cancelUrl: 'http://localhost:8080/pricing',
  });
  expect(await applyEvent(fake.completeCheckoutSession(sessionId))).toBe('applied');
  await client.createCheckoutSession({
    ownerId,
    product: CheckoutProduct.CREDIT_TOPUP,
    successUrl: 'http://localhost:8080/dashboard',
    cancelUrl: 'http://localhost:8080/pricing',
  });
  const requestIds = [randomUUID(), randomUUID(), randomUUID()];
  const days = ['2026-03-01T10:00:00.000Z', '2026-03-01T11:00:00.000Z', '2026-03-02T09:30:00.000Z'];
  for (const [i, requestId] of requestIds.entries()) {
    await recordUsage(
      { prisma: prisma(), initialCredit: billing.config.INITIAL_CREDIT },
      {
        requestId,
        ownerId,
        chatbotId: `bot-${i % 2}`,
        chatbotName: `Bot of ${ownerId}`,
        model: 'gpt-4o-mini',
        promptTokens: 1000,
        completionTokens: 500,
        occurredAt: new Date(days[i]),
      },
    );
  }
  await client.reserveCredit({ requestId: randomUUID(), ownerId, model: 'gpt-4o-mini', maxPromptTokens: 100n, maxCompletionTokens: 100n });
  await prisma().portalSession.create({
    data: {
      id: `bps_test_${randomUUID()}`,
      ownerId,
      returnUrl: 'http://localhost:8080/account',
      expiresAt: new Date(Date.now() + 3600_000),
    },
  });

  const account = await prisma().account.findUniqueOrThrow({ where: { ownerId } });
  const [subscription] = await prisma().subscription.findMany({ where: { ownerId } });
  expect(account.plan).toBe('pro');
  expect(subscription.status).toBe('active');
  return { ownerId, customerId: account.stripeCustomerId!, subscriptionId: subscription.id, requestIds };
}

interface Column {
  table: string;
  column: string;
}

/** Every text column of billing's tables but the tombstone's (which keeps the user id on purpose). */
async function textColumns(): Promise<Column[]> {
  return prisma().$queryRaw<Column[]>`
    SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
     WHERE table_schema = current_schema() AND data_type IN ('text', 'character varying')
       AND table_name NOT IN ('DeletedAccount', '_prisma_migrations')`;
}

/** Rows of billing's schema that mention the owner's id in any text column, per table. */
async function mentionsOf(ownerId: string): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const { table, column } of await textColumns()) {
    const [{ count }] = await prisma().$queryRawUnsafe<{ count: bigint }[]>(
      `SELECT count(*) AS count FROM "${table}" WHERE strpos("${column}", $1) > 0`,
      ownerId,
    );
    if (count > 0n) found[`${table}.${column}`] = Number(count);
  }
  return found;
}

/** What anonymisation leaves: the tombstone and everything under its anonymous id. */
async function anonymised(ownerId: string) {
  const tombstone = await prisma().deletedAccount.findUniqueOrThrow({ where: { ownerId } });
  const anonymousId = tombstone.anonymousId;
  const [account, ledger, usage, daily] = await Promise.all([
    prisma().account.findUnique({ where: { ownerId: anonymousId } }),
    prisma().creditLedgerEntry.findMany({ where: { ownerId: anonymousId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    prisma().usageRecord.findMany({ where: { ownerId: anonymousId }, orderBy: { occurredAt: 'asc' } }),
    prisma().usageDaily.findMany({ where: { ownerId: anonymousId }, orderBy: [{ day: 'asc' }, { chatbotId: 'asc' }] }),
  ]);
  return { tombstone, account, ledger, usage, daily };
}

describe('AccountDeleted', () => {
  it('cancels the subscription and deletes the customer at Stripe, removes the owner from every table and keeps only anonymised accounting records', async () => {
    const owner = await seedOwner();
    const ledgerBefore = await prisma().creditLedgerEntry.findMany({
      where: { ownerId: owner.ownerId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    const usageBefore = await prisma().usageRecord.findMany({ where: { ownerId: owner.ownerId }, orderBy: { occurredAt: 'asc' } });
    const dailyBefore = await prisma().usageDaily.findMany({
      where: { ownerId: owner.ownerId },
      orderBy: [{ day: 'asc' }, { chatbotId: 'asc' }],
    });
    const balanceBefore = (await prisma().account.findUniqueOrThrow({ where: { ownerId: owner.ownerId } })).creditBalance;
    expect(dailyBefore).toHaveLength(3);
    expect(Object.keys(await mentionsOf(owner.ownerId)).length).toBeGreaterThan(3);

    const { state, error } = await deliver(owner.ownerId);
    expect(error?.message).toBeUndefined();
    expect(state).toBe('completed');

    // At Stripe: the subscription canceled, the customer deleted (with their email and metadata).
    expect(fake.subscriptions.get(owner.subscriptionId)).toMatchObject({ status: 'canceled' });
    expect(fake.customers.get(owner.customerId)).toEqual({ id: owner.customerId, object: 'customer', deleted: true });
    expect(fake.requestsTo('DELETE', `/v1/subscriptions/${owner.subscriptionId}`)).toHaveLength(1);
    expect(fake.requestsTo('DELETE', `/v1/customers/${owner.customerId}`)).toHaveLength(1);

    // In the database: the owner's id is in no table but the tombstone.
    expect(await mentionsOf(owner.ownerId)).toEqual({});
    for (const count of [
      prisma().account.count({ where: { ownerId: owner.ownerId } }),
      prisma().creditLedgerEntry.count({ where: { ownerId: owner.ownerId } }),
      prisma().usageRecord.count({ where: { ownerId: owner.ownerId } }),
      prisma().usageDaily.count({ where: { ownerId: owner.ownerId } }),
      prisma().creditReservation.count({ where: { ownerId: owner.ownerId } }),
      prisma().subscription.count({ where: { ownerId: owner.ownerId } }),
      prisma().checkoutSession.count({ where: { ownerId: owner.ownerId } }),
      prisma().portalSession.count({ where: { ownerId: owner.ownerId } }),
      prisma().account.count({ where: { stripeCustomerId: owner.customerId } }),
    ]) {
      expect(await count).toBe(0);
    }

    const kept = await anonymised(owner.ownerId);
    expect(kept.tombstone.anonymousId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(kept.account).toMatchObject({ plan: 'free', stripeCustomerId: null });
    expect(kept.account!.creditBalance.toFixed()).toBe('0');
    expect(kept.account!.reservedCredit.toFixed()).toBe('0');
    // The ledger as it was (amounts, reasons), plus the entry writing off the credit left.
    expect(kept.ledger.map((e) => [e.reason, e.amount.toFixed()])).toEqual([
      ...ledgerBefore.map((e) => [e.reason, e.amount.toFixed()]),
      [ACCOUNT_CLOSED_REASON, balanceBefore.negated().toFixed()],
    ]);
    expect(kept.ledger.find((e) => e.reason === 'signup_credit')!.reference).toBe(`signup:${kept.tombstone.anonymousId}`);
    // Usage records kept for the accounts, without the chatbot names.
    expect(kept.usage.map((r) => ({ ...r, ownerId: owner.ownerId }))).toEqual(usageBefore.map((r) => ({ ...r, chatbotName: '' })));
    expect(kept.usage.every((r) => r.chatbotName === '')).toBe(true);
    expect(kept.daily).toEqual(dailyBefore.map((d) => ({ ...d, ownerId: kept.tombstone.anonymousId })));
    await expectLedgerInvariant(prisma());
    await expectHoldsInvariant(prisma());
  });

  it('delivered again, changes nothing and calls Stripe no more', async () => {
    const owner = await seedOwner();
    expect((await deliver(owner.ownerId)).state).toBe('completed');
    const after = await anonymised(owner.ownerId);
    const accounts = await prisma().account.count();
    const stripeCalls = fake.requests.length;

    expect((await deliver(owner.ownerId)).state).toBe('completed');
    expect(await anonymised(owner.ownerId)).toEqual(after);
    expect(await prisma().account.count()).toBe(accounts);
    expect(fake.requests).toHaveLength(stripeCalls);
    expect(await deleteAccountData(billing.parts.payments, owner.ownerId)).toBe('already_deleted');
  });

  it('delivered concurrently, anonymises once: one tombstone, one anonymous account, the same records', async () => {
    const viaQueue = await seedOwner();
    const viaUseCase = await seedOwner();
    const accounts = await prisma().account.count();
    const usageRecords = await prisma().usageRecord.count();
    const ledgerEntries = await prisma().creditLedgerEntry.count();
    // Stripe slowed down so the deliveries overlap.
    fake.setBehaviour({ delayMs: 100 });

    const [first, second] = await Promise.all([deliver(viaQueue.ownerId), deliver(viaQueue.ownerId)]);
    expect([first.state, second.state]).toEqual(['completed', 'completed']);
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => deleteAccountData(billing.parts.payments, viaUseCase.ownerId)));
    expect(outcomes.filter((o) => o === 'deleted')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'already_deleted')).toHaveLength(4);

    for (const owner of [viaQueue, viaUseCase]) {
      const kept = await anonymised(owner.ownerId);
      expect(kept.account).not.toBeNull();
      expect(kept.usage).toHaveLength(3);
      expect(kept.ledger.filter((e) => e.reason === ACCOUNT_CLOSED_REASON)).toHaveLength(1);
      expect(await mentionsOf(owner.ownerId)).toEqual({});
      expect(fake.customers.get(owner.customerId)).toMatchObject({ deleted: true });
    }
    expect(await prisma().deletedAccount.count({ where: { ownerId: { in: [viaQueue.ownerId, viaUseCase.ownerId] } } })).toBe(2);
    // Each owner's account replaced by exactly one anonymous account; no record lost or copied.
    expect(await prisma().account.count()).toBe(accounts);
    expect(await prisma().usageRecord.count()).toBe(usageRecords);
    expect(await prisma().creditLedgerEntry.count()).toBe(ledgerEntries + 2);
    await expectLedgerInvariant(prisma());
  });

  it('when Stripe fails, the job throws and the database is untouched; a retry completes the deletion', async () => {
    const owner = await seedOwner();
    const snapshot = async () => ({
      account: await prisma().account.findUnique({ where: { ownerId: owner.ownerId } }),
      ledger: await prisma().creditLedgerEntry.findMany({ where: { ownerId: owner.ownerId }, orderBy: { id: 'asc' } }),
      usage: await prisma().usageRecord.findMany({ where: { ownerId: owner.ownerId }, orderBy: { id: 'asc' } }),
      subscriptions: await prisma().subscription.findMany({ where: { ownerId: owner.ownerId } }),
      holds: await prisma().creditReservation.count({ where: { ownerId: owner.ownerId } }),
      tombstone: await prisma().deletedAccount.findUnique({ where: { ownerId: owner.ownerId } }),
    });
    const before = await snapshot();
    expect(before.tombstone).toBeNull();

    // Straight to the use case: it rejects as the worker would see it.
    fake.setBehaviour({ failWith: 503 });
    const err = await rpcError(deleteAccountData(billing.parts.payments, owner.ownerId));
    expect(err.code).toBe(Code.Unavailable);
    expect(await snapshot()).toEqual(before);

    // Through the queue: the attempt fails, BullMQ retries with backoff, and once Stripe answers the job completes.
    const jobId = randomUUID();
    const firstAttempt = await deliver(owner.ownerId, jobId);
    expect(firstAttempt.state).toBe('failed');
    expect(await snapshot()).toEqual(before);
    expect(fake.customers.get(owner.customerId)!.deleted).toBeUndefined();
    fake.setBehaviour({ failWith: null });
    let attempt = firstAttempt;
    while (attempt.state === 'failed') {
      // An attempt that started before Stripe recovered may still fail; BullMQ tries again.
      attempt = await jobSettled(billing.parts.accountDeletedWorker!, jobId);
    }
    expect(attempt.state).toBe('completed');
    expect(await mentionsOf(owner.ownerId)).toEqual({});
    expect(fake.customers.get(owner.customerId)).toMatchObject({ deleted: true });
    expect((await anonymised(owner.ownerId)).usage).toHaveLength(3);
  }, 60_000);

  it('counts a subscription already canceled or a customer already gone at Stripe as done', async () => {
    const owner = await seedOwner();
    // Ended at Stripe (the customer.subscription.deleted event not applied yet), and the customer deleted by hand.
    fake.cancelSubscription(owner.subscriptionId);
    fake.customers.set(owner.customerId, { id: owner.customerId, object: 'customer', deleted: true });
    expect(await deleteAccountData(billing.parts.payments, owner.ownerId)).toBe('deleted');
    expect(await mentionsOf(owner.ownerId)).toEqual({});
  });

  it('refuses a payload without a user id for good, changing nothing', async () => {
    const tombstones = await prisma().deletedAccount.count();
    const jobId = randomUUID();
    const settled = jobSettled(billing.parts.accountDeletedWorker!, jobId);
    await accountDeleted.publish(create(AccountDeletedSchema, { userId: '  ', occurredAt: timestampNow() }), jobId);
    const { state, job } = await settled;
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(1); // UnrecoverableError: not retried
    expect(await job.isFailed()).toBe(true);
    expect(await prisma().deletedAccount.count()).toBe(tombstones);
  });
});

describe('after the deletion, late arrivals do not bring the owner back', () => {
  let owner: Seeded;
  const noTrace = async () => {
    expect(await prisma().account.count({ where: { ownerId: owner.ownerId } })).toBe(0);
    expect(await mentionsOf(owner.ownerId)).toEqual({});
  };

  beforeAll(async () => {
    owner = await seedOwner();
    expect((await deliver(owner.ownerId)).state).toBe('completed');
  });

  it('GetAccount answers NOT_FOUND instead of opening a new account', async () => {
    const err = await rpcError(client.getAccount({ ownerId: owner.ownerId }));
    expect(err.code).toBe(Code.NotFound);
    expect(err.rawMessage).toBe(ACCOUNT_DELETED_MESSAGE);
    expect((await rpcError(client.exportOwnerData({ ownerId: owner.ownerId }))).code).toBe(Code.NotFound);
    await noTrace();
  });

  it('a late UserRegistered is skipped', async () => {
    const settled = jobSettled(billing.parts.userRegisteredWorker!, `late-registered-${owner.ownerId}`);
    await userRegistered.publish(create(UserRegisteredSchema, { userId: owner.ownerId }), `late-registered-${owner.ownerId}`);
    expect((await settled).state).toBe('completed');
    await noTrace();
  });

  it('late usage is dropped', async () => {
    const requestId = randomUUID();
    const settled = jobSettled(billing.parts.usageRecordedWorker!, requestId);
    await usageRecorded.publish(
      create(UsageRecordedSchema, {
        requestId,
        ownerId: owner.ownerId,
        chatbotId: 'bot-0',
        chatbotName: 'Late bot',
        model: 'gpt-4o-mini',
        promptTokens: 10n,
        completionTokens: 10n,
        occurredAt: timestampFromDate(new Date()),
      }),
      requestId,
    );
    expect((await settled).state).toBe('completed');
    expect(await prisma().usageRecord.count({ where: { requestId } })).toBe(0);
    await noTrace();
  });

  it('ReserveCredit and CreateCustomer are refused (FAILED_PRECONDITION)', async () => {
    const hold = await rpcError(
      client.reserveCredit({
        requestId: randomUUID(),
        ownerId: owner.ownerId,
        model: 'gpt-4o-mini',
        maxPromptTokens: 1n,
        maxCompletionTokens: 1n,
      }),
    );
    expect(hold.code).toBe(Code.FailedPrecondition);
    expect(hold.rawMessage).toBe(ACCOUNT_DELETED_MESSAGE);
    expect((await rpcError(client.createCustomer({ ownerId: owner.ownerId }))).code).toBe(Code.FailedPrecondition);
    await noTrace();
  });

  it('Stripe events about the owner are recorded as processed and change nothing', async () => {
    const byUserId = subscriptionUpdatedEvent({
      subscriptionId: owner.subscriptionId,
      customerId: owner.customerId,
      userId: owner.ownerId,
      status: 'active',
    });
    const byCustomer = subscriptionUpdatedEvent({ subscriptionId: owner.subscriptionId, customerId: owner.customerId, status: 'past_due' });
    expect(await applyEvent(byUserId)).toBe('ignored');
    expect(await applyEvent(byCustomer)).toBe('ignored');
    expect(await applyEvent(byUserId)).toBe('already_applied');
    expect(await prisma().processedStripeEvent.count({ where: { eventId: { in: [byUserId.id, byCustomer.id] } } })).toBe(2);
    expect(await prisma().subscription.count({ where: { id: owner.subscriptionId } })).toBe(0);
    await noTrace();
  });

  it('an owner who never had a billing account is tombstoned too, and an opening racing the deletion never survives it', async () => {
    const never = newOwner();
    expect(await deleteAccountData(billing.parts.payments, never)).toBe('deleted');
    expect(await deleteAccountData(billing.parts.payments, never)).toBe('already_deleted');
    expect((await rpcError(client.getAccount({ ownerId: never }))).code).toBe(Code.NotFound);

    const racing = newOwner();
    const deps = { prisma: prisma(), initialCredit: billing.config.INITIAL_CREDIT };
    const results = await Promise.allSettled([
      ...Array.from({ length: 5 }, () => openAccount(deps, racing)),
      deleteAccountData(billing.parts.payments, racing),
      ...Array.from({ length: 5 }, () =>
        creditHolds({ ...deps, pool: billing.parts.pool }).reserve({
          requestId: randomUUID(),
          ownerId: racing,
          model: 'gpt-4o-mini',
          maxPromptTokens: 1,
          maxCompletionTokens: 1,
        }),
      ),
    ]);
    expect(results[5]).toEqual({ status: 'fulfilled', value: 'deleted' });
    expect(await prisma().account.count({ where: { ownerId: racing } })).toBe(0);
    expect(await mentionsOf(racing)).toEqual({});
    await expectLedgerInvariant(prisma());
    await expectHoldsInvariant(prisma());
  });
});
