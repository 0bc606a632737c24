// The owner's data export from billing: account, customer, subscriptions and the whole ledger at
// once; usage records oldest first, a page at a time, over keyset pagination with an opaque cursor.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Code, type Client } from '@connectrpc/connect';
import { BillingService, CheckoutProduct, Plan, type UsageRecord } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { rpcError } from '@parley/common/testing/rpc.ts';
import { stripeEventPayload, subscriptionCheckoutCompletedEvent, type StripeEventJson } from '@parley/common/testing/fake-stripe.ts';
import { applyStripeEvent } from '../../src/payments/apply-stripe-event.ts';
import { recordUsage } from '../../src/usage/record-usage.ts';
import { startBilling, type Billing } from './harness.ts';

const PUBLIC_URL = 'http://parley.test:8080';

let billing: Billing;
let client: Client<typeof BillingService>;

beforeAll(async () => {
  billing = await startBilling({ env: { STRIPE_SECRET_KEY: '', STRIPE_API_BASE: '', PUBLIC_URL } });
  client = createServiceClient(BillingService, billing.url);
});

afterAll(async () => {
  await billing?.stop();
});

const apply = (event: StripeEventJson) =>
  applyStripeEvent(billing.parts.payments, { eventId: event.id, type: event.type, payload: stripeEventPayload(event) });
const record = (ownerId: string, occurredAt: Date, chatbotName = 'Support bot') =>
  recordUsage(
    { prisma: billing.parts.prisma, initialCredit: billing.config.INITIAL_CREDIT },
    {
      requestId: randomUUID(),
      ownerId,
      chatbotId: 'bot-1',
      chatbotName,
      model: 'gpt-4o-mini',
      promptTokens: 1000,
      completionTokens: 500,
      occurredAt,
    },
  );

/** Every page of the owner's usage records, following the cursors. */
async function allPages(ownerId: string, pageSize: number): Promise<UsageRecord[][]> {
  const pages: UsageRecord[][] = [];
  let cursor = '';
  do {
    const page = await client.listUsageRecords({ ownerId, cursor, pageSize });
    pages.push(page.records);
    cursor = page.nextCursor;
    expect(pages.length).toBeLessThan(100);
  } while (cursor);
  return pages;
}

describe('ExportOwnerData', () => {
  it('answers the account, the Stripe customer, the subscriptions and the whole ledger, oldest first', async () => {
    const ownerId = 'export-pro';
    const { sessionId } = await client.createCheckoutSession({
      ownerId,
      product: CheckoutProduct.PRO_SUBSCRIPTION,
      successUrl: `${PUBLIC_URL}/dashboard`,
      cancelUrl: `${PUBLIC_URL}/pricing`,
    });
    const { customerId } = await client.getTestCheckoutSession({ sessionId });
    await apply(subscriptionCheckoutCompletedEvent({ userId: ownerId, customerId, subscriptionId: `sub_test_${sessionId}`, sessionId }));
    await record(ownerId, new Date('2026-01-02T03:04:05.678Z'));

    const data = await client.exportOwnerData({ ownerId });
    expect(data.account).toMatchObject({ ownerId, plan: Plan.PRO, creditBalance: '2.00955', reservedCredit: '0' });
    expect(data.stripeCustomerId).toBe(customerId);
    expect(data.subscriptions).toHaveLength(1);
    expect(data.subscriptions[0]).toMatchObject({ id: `sub_test_${sessionId}`, status: 'active' });
    expect(data.subscriptions[0].statusAt && data.subscriptions[0].createdAt).toBeTruthy();
    expect(data.creditLedger.map((e) => [e.reason, e.amount])).toEqual([
      ['signup_credit', '0.01'],
      ['pro_plan_credit', '2'],
      // The usage debit is not repeated here: the usage records (ListUsageRecords) are the same facts.
    ]);
    const times = data.creditLedger.map((e) => timestampDate(e.createdAt!).getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('opens the account of an owner billing has not seen yet: no customer, no subscriptions, the signup credit', async () => {
    const data = await client.exportOwnerData({ ownerId: 'export-new' });
    expect(data.account).toMatchObject({ ownerId: 'export-new', plan: Plan.FREE, creditBalance: '0.01' });
    expect(data.stripeCustomerId).toBe('');
    expect(data.subscriptions).toEqual([]);
    expect(data.creditLedger.map((e) => [e.reason, e.amount])).toEqual([['signup_credit', '0.01']]);
  });

  it('refuses a missing owner id', async () => {
    expect((await rpcError(client.exportOwnerData({ ownerId: '' }))).code).toBe(Code.InvalidArgument);
  });
});

describe('ListUsageRecords', () => {
  it("pages over all of the owner's records oldest first, neither skipping nor repeating one, ties included", async () => {
    const ownerId = 'export-usage';
    const tie = new Date('2026-02-01T00:00:00.000Z');
    const times = [
      tie,
      tie,
      tie,
      new Date('2026-01-15T12:00:00.000Z'),
      new Date('2026-02-03T08:00:00.000Z'),
      tie,
      new Date('2025-12-31T23:59:59.999Z'),
    ];
    for (const at of times) await record(ownerId, at, 'Sales bot');
    await record('export-someone-else', tie);

    const expected = await billing.parts.prisma.usageRecord.findMany({
      where: { ownerId },
      orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }],
    });
    const pages = await allPages(ownerId, 3);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    const listed = pages.flat();
    expect(listed.map((r) => r.requestId)).toEqual(expected.map((r) => r.requestId));
    expect(listed[0]).toMatchObject({
      chatbotId: 'bot-1',
      chatbotName: 'Sales bot',
      model: 'gpt-4o-mini',
      // As the usage report names it.
      modelDisplayName: 'GPT-4o mini',
      promptTokens: 1000n,
      completionTokens: 500n,
      totalTokens: 1500n,
      promptCost: '0.00015',
      completionCost: '0.0003',
      totalCost: '0.00045',
    });
    expect(timestampDate(listed[0].occurredAt!).toISOString()).toBe('2025-12-31T23:59:59.999Z');

    // A page size that divides the records exactly ends with an empty cursor, not an empty page.
    expect((await allPages(ownerId, 7)).map((p) => p.length)).toEqual([7]);
    // A record newer than all the others, added mid-way, comes on a later page.
    const first = await client.listUsageRecords({ ownerId, pageSize: 4 });
    const late = await record(ownerId, new Date('2026-03-01T00:00:00.000Z'));
    const rest = await client.listUsageRecords({ ownerId, cursor: first.nextCursor, pageSize: 10 });
    expect([...first.records, ...rest.records].map((r) => r.requestId)).toEqual([
      ...expected.map((r) => r.requestId),
      late.usageRecord.requestId,
    ]);
    expect(rest.nextCursor).toBe('');
  });

  it('lists 500 by default and at most 1000 a page', async () => {
    const ownerId = 'export-heavy';
    await billing.parts.prisma.$executeRaw`
      INSERT INTO "Account" ("userId", "creditBalance", "updatedAt") VALUES (${ownerId}, 0, now())`;
    await billing.parts.prisma.$executeRaw`
      INSERT INTO "UsageRecord" ("id", "requestId", "userId", "chatbotId", "chatbotName", "model", "promptTokens", "completionTokens", "totalTokens",
                                 "promptCost", "completionCost", "totalCost", "occurredAt")
      SELECT gen_random_uuid(), 'heavy-' || n, ${ownerId}, 'bot-1', 'Bot', 'gpt-4o-mini', 1, 1, 2, 0, 0, 0, timestamptz '2026-01-01' + n * interval '1 second'
        FROM generate_series(1, 1001) AS n`;

    const byDefault = await client.listUsageRecords({ ownerId });
    expect(byDefault.records).toHaveLength(500);
    expect(byDefault.nextCursor).not.toBe('');
    expect((await allPages(ownerId, 1000)).map((p) => p.length)).toEqual([1000, 1]);
    expect((await allPages(ownerId, 0)).map((p) => p.length)).toEqual([500, 500, 1]);
  });

  it('refuses a page size outside 0..1000 and a cursor it did not give out', async () => {
    for (const pageSize of [-1, 1001]) {
      expect((await rpcError(client.listUsageRecords({ ownerId: 'export-usage', pageSize }))).code).toBe(Code.InvalidArgument);
    }
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    for (const cursor of [
      'not a cursor!',
      b64('not json'),
      b64('[]'),
      b64('{"t":"2026-01-01T00:00:00.000Z"}'),
      b64('{"t":"2026-01-01T00:00:00.000Z","id":"x\'; DROP TABLE"}'),
      b64('{"t":"yesterday","id":"6f1c1f38-5b4a-4b8e-9a55-0d3e3c1f0b1a"}'),
      b64('{"t":"2026-01-01","id":"6f1c1f38-5b4a-4b8e-9a55-0d3e3c1f0b1a"}'),
      'x'.repeat(500),
    ]) {
      const err = await rpcError(client.listUsageRecords({ ownerId: 'export-usage', cursor }));
      expect(err.code).toBe(Code.InvalidArgument);
      expect(err.rawMessage).toBe('cursor is not one this service gave out.');
    }
  });

  it('lists nothing for an owner without usage', async () => {
    expect(await client.listUsageRecords({ ownerId: 'export-nobody' })).toMatchObject({ records: [], nextCursor: '' });
  });
});
