// Stripe events applied once and in any order: the same story of subscriptions, cancellations and
// top-ups, delivered in order, then every event twice in shuffled orders (through the real BullMQ
// worker, and straight to the use case), must leave exactly the same plans, subscriptions and ledger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { timestampNow } from '@bufbuild/protobuf/wkt';
import { StripeEventReceivedSchema } from '@parley/proto/parley/events/v1/stripe_event_received_pb.js';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import {
  stripeEvent,
  stripeEventPayload,
  subscriptionCheckoutCompletedEvent,
  subscriptionDeletedEvent,
  subscriptionUpdatedEvent,
  topUpCheckoutCompletedEvent,
  type StripeEventJson,
} from '@parley/common/testing/fake-stripe.ts';
import { applyStripeEvent, type StripeEventInput } from '../../src/payments/apply-stripe-event.ts';
import { startStripeEventsWorker } from '../../src/payments/stripe-events.job.ts';
import { expectLedgerInvariant } from './ledger.ts';
import { jobSettled, logger, startBilling, type Billing } from './harness.ts';

let billing: Billing;
let producer: Producer<typeof StripeEventReceivedSchema>;

beforeAll(async () => {
  billing = await startBilling();
  producer = createProducer(billing.redis, QUEUES.stripeEvents, StripeEventReceivedSchema, { prefix: billing.config.QUEUE_PREFIX });
});

afterAll(async () => {
  await producer?.close();
  await billing?.stop();
});

const input = (event: StripeEventJson): StripeEventInput => ({ eventId: event.id, type: event.type, payload: stripeEventPayload(event) });
const apply = (event: StripeEventJson) => applyStripeEvent(billing.parts.payments, input(event));
const message = (event: StripeEventJson) => create(StripeEventReceivedSchema, { ...input(event), receivedAt: timestampNow() });

/** A small deterministic PRNG (mulberry32), so a failing seed can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], seed: number): T[] {
  const next = random(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const T0 = 1_900_000_000;

/**
 * One story, its owners and ids suffixed with `run` so that runs share a database without touching
 * each other. Events are listed in the order Stripe created them.
 */
function story(run: string) {
  const id = (name: string) => `${name}_${run}`;
  const owners = {
    A: id('owner-a'),
    B: id('owner-b'),
    C: id('owner-c'),
    D: id('owner-d'),
    E: id('owner-e'),
    F: id('owner-f'),
    G: id('owner-g'),
    H: id('owner-h'),
  };
  const cus = (o: keyof typeof owners) => id(`cus_${o}`);
  const sessions = {
    A: id('cs_a'),
    B: id('cs_b'),
    C: id('cs_c'),
    C1: id('cs_c1'),
    C2: id('cs_c2'),
    D: id('cs_d'),
    E: id('cs_e'),
    F: id('cs_f'),
    G: id('cs_g'),
    H1: id('cs_h1'),
    H2: id('cs_h2'),
  };
  const pro = (o: keyof typeof owners, session: string, subscriptionId: string, at: number) =>
    subscriptionCheckoutCompletedEvent({ userId: owners[o], customerId: cus(o), subscriptionId, sessionId: session, created: at });
  const unpaidTopUp = topUpCheckoutCompletedEvent({
    userId: owners.E,
    customerId: cus('E'),
    sessionId: sessions.E,
    amountTotal: 700,
    paymentStatus: 'unpaid',
    created: T0 + 5,
  });
  const events: StripeEventJson[] = [
    // A: subscribes, later cancels → free, the pro credit kept.
    pro('A', sessions.A, id('sub_a'), T0 + 10),
    subscriptionDeletedEvent({ subscriptionId: id('sub_a'), customerId: cus('A'), userId: owners.A, created: T0 + 500 }),
    // B: cancels seconds after subscribing (the deletion often arrives first when shuffled).
    pro('B', sessions.B, id('sub_b'), T0 + 10),
    subscriptionDeletedEvent({ subscriptionId: id('sub_b'), customerId: cus('B'), userId: owners.B, created: T0 + 12 }),
    // C: two top-ups and a subscription that goes past due and recovers → pro.
    topUpCheckoutCompletedEvent({ userId: owners.C, customerId: cus('C'), sessionId: sessions.C1, amountTotal: 500, created: T0 + 1 }),
    pro('C', sessions.C, id('sub_c'), T0 + 10),
    subscriptionUpdatedEvent({
      subscriptionId: id('sub_c'),
      customerId: cus('C'),
      userId: owners.C,
      status: 'past_due',
      previousStatus: 'active',
      created: T0 + 100,
    }),
    subscriptionUpdatedEvent({
      subscriptionId: id('sub_c'),
      customerId: cus('C'),
      userId: owners.C,
      status: 'active',
      previousStatus: 'past_due',
      created: T0 + 200,
    }),
    topUpCheckoutCompletedEvent({ userId: owners.C, customerId: cus('C'), sessionId: sessions.C2, amountTotal: 1234, created: T0 + 300 }),
    // D: the payment fails for good → unpaid ends pro.
    pro('D', sessions.D, id('sub_d'), T0 + 10),
    subscriptionUpdatedEvent({
      subscriptionId: id('sub_d'),
      customerId: cus('D'),
      userId: owners.D,
      status: 'unpaid',
      previousStatus: 'past_due',
      created: T0 + 100,
    }),
    // E: a top-up paid by bank debit: completed unpaid, then the payment succeeds → credited once.
    unpaidTopUp,
    {
      ...topUpCheckoutCompletedEvent({ userId: owners.E, customerId: cus('E'), sessionId: sessions.E, amountTotal: 700, created: T0 + 50 }),
      type: 'checkout.session.async_payment_succeeded',
    },
    // F: its update names no owner; billing finds them by their Stripe customer.
    pro('F', sessions.F, id('sub_f'), T0 + 10),
    subscriptionUpdatedEvent({ subscriptionId: id('sub_f'), customerId: cus('F'), status: 'past_due', created: T0 + 100 }),
    // G: two events in the same second: the order of delivery must not decide.
    pro('G', sessions.G, id('sub_g'), T0 + 10),
    subscriptionUpdatedEvent({ subscriptionId: id('sub_g'), customerId: cus('G'), userId: owners.G, status: 'past_due', created: T0 + 10 }),
    // H: cancels, then subscribes again → pro, with each subscription's credit.
    pro('H', sessions.H1, id('sub_h1'), T0 + 10),
    subscriptionDeletedEvent({ subscriptionId: id('sub_h1'), customerId: cus('H'), userId: owners.H, created: T0 + 50 }),
    pro('H', sessions.H2, id('sub_h2'), T0 + 100),
    // Types billing ignores, and an event about no one it knows.
    stripeEvent('invoice.paid', { id: id('in_1'), object: 'invoice', customer: cus('C') }, { created: T0 + 11 }),
    stripeEvent('customer.created', { id: cus('C'), object: 'customer' }, { created: T0 }),
    subscriptionUpdatedEvent({ subscriptionId: id('sub_unknown'), customerId: id('cus_unknown'), status: 'active', created: T0 + 20 }),
  ];
  return { run, owners, sessions, events };
}

type Story = ReturnType<typeof story>;

/** What a run must end with, before any delivery (F is known to billing by its customer id; checkouts exist). */
async function prepare(s: Story): Promise<void> {
  await billing.parts.prisma.account.create({ data: { ownerId: s.owners.F, creditBalance: '0.01', stripeCustomerId: `cus_F_${s.run}` } });
  await billing.parts.prisma.creditLedgerEntry.create({
    data: { ownerId: s.owners.F, amount: '0.01', reason: 'signup_credit', reference: `signup:${s.owners.F}` },
  });
  const owner = (key: string) => s.owners[key.slice(0, 1) as keyof Story['owners']];
  await billing.parts.prisma.checkoutSession.createMany({
    data: Object.entries(s.sessions).map(([key, id]) => ({
      id,
      ownerId: owner(key),
      product: ['C1', 'C2', 'E'].includes(key) ? ('credit_topup' as const) : ('pro_subscription' as const),
      customerId: `cus_${key.slice(0, 1)}_${s.run}`,
      testMode: false,
      successUrl: 'http://localhost:8080/dashboard',
      cancelUrl: 'http://localhost:8080/pricing',
    })),
  });
}

/** Everything the events decide, for the run's owners, with the run suffix taken out so runs compare. */
async function outcome(s: Story) {
  const strip = (v: string) => v.replaceAll(`_${s.run}`, '');
  const userIds = Object.values(s.owners);
  const [accounts, ledger, subscriptions, sessions, processed] = await Promise.all([
    billing.parts.prisma.account.findMany({ where: { ownerId: { in: userIds } }, orderBy: { ownerId: 'asc' } }),
    billing.parts.prisma.creditLedgerEntry.findMany({ where: { ownerId: { in: userIds } } }),
    billing.parts.prisma.subscription.findMany({ where: { ownerId: { in: userIds } }, orderBy: { id: 'asc' } }),
    billing.parts.prisma.checkoutSession.findMany({ where: { id: { in: Object.values(s.sessions) } }, orderBy: { id: 'asc' } }),
    billing.parts.prisma.processedStripeEvent.count({ where: { eventId: { in: s.events.map((e) => e.id) } } }),
  ]);
  return {
    accounts: accounts.map((a) => ({ owner: strip(a.ownerId), plan: a.plan, balance: a.creditBalance.toFixed() })),
    ledger: ledger.map((e) => `${strip(e.ownerId)} ${e.reason} ${strip(e.reference)} ${e.amount.toFixed()}`).sort(),
    subscriptions: subscriptions.map((x) => `${strip(x.id)} ${strip(x.ownerId)} ${x.status}`).sort(),
    completedSessions: sessions
      .filter((x) => x.completedAt)
      .map((x) => strip(x.id))
      .sort(),
    processed,
  };
}

const EXPECTED = {
  accounts: [
    { owner: 'owner-a', plan: 'free', balance: '2.01' },
    { owner: 'owner-b', plan: 'free', balance: '2.01' },
    { owner: 'owner-c', plan: 'pro', balance: '19.35' },
    { owner: 'owner-d', plan: 'free', balance: '2.01' },
    { owner: 'owner-e', plan: 'free', balance: '7.01' },
    { owner: 'owner-f', plan: 'pro', balance: '2.01' },
    { owner: 'owner-g', plan: 'pro', balance: '2.01' },
    { owner: 'owner-h', plan: 'pro', balance: '4.01' },
  ],
  subscriptions: [
    'sub_a owner-a canceled',
    'sub_b owner-b canceled',
    'sub_c owner-c active',
    'sub_d owner-d unpaid',
    'sub_f owner-f past_due',
    'sub_g owner-g past_due',
    'sub_h1 owner-h canceled',
    'sub_h2 owner-h active',
  ],
  completedSessions: ['cs_a', 'cs_b', 'cs_c', 'cs_c1', 'cs_c2', 'cs_d', 'cs_e', 'cs_f', 'cs_g', 'cs_h1', 'cs_h2'],
};

const EXPECTED_CREDITS = [
  'owner-a pro_plan_credit pro_credit:sub_a 2',
  'owner-b pro_plan_credit pro_credit:sub_b 2',
  'owner-c credit_topup topup:cs_c1 5',
  'owner-c credit_topup topup:cs_c2 12.34',
  'owner-c pro_plan_credit pro_credit:sub_c 2',
  'owner-d pro_plan_credit pro_credit:sub_d 2',
  'owner-e credit_topup topup:cs_e 7',
  'owner-f pro_plan_credit pro_credit:sub_f 2',
  'owner-g pro_plan_credit pro_credit:sub_g 2',
  'owner-h pro_plan_credit pro_credit:sub_h1 2',
  'owner-h pro_plan_credit pro_credit:sub_h2 2',
];

let inOrder: Awaited<ReturnType<typeof outcome>>;

describe('the same events in any order, any number of times', () => {
  it('in order, once each: the expected plans, subscriptions and ledger', async () => {
    const s = story('inorder');
    await prepare(s);
    const outcomes = [];
    for (const event of s.events) outcomes.push(await apply(event));
    // Unknown types, the unpaid completion and the event about no one are recorded and ignored.
    expect(outcomes.filter((o) => o === 'ignored')).toHaveLength(4);
    expect(outcomes.filter((o) => o === 'applied')).toHaveLength(s.events.length - 4);

    inOrder = await outcome(s);
    expect(inOrder.accounts).toEqual(EXPECTED.accounts);
    expect(inOrder.subscriptions).toEqual(EXPECTED.subscriptions);
    expect(inOrder.completedSessions).toEqual(EXPECTED.completedSessions);
    const signups = Object.keys(s.owners).map((o) => `owner-${o.toLowerCase()} signup_credit signup:owner-${o.toLowerCase()} 0.01`);
    expect(inOrder.ledger).toEqual([...signups, ...EXPECTED_CREDITS].sort());
    expect(inOrder.processed).toBe(s.events.length);
  });

  it.each([1, 2, 3, 4, 5])('seed %i: every event published twice under its id, shuffled, through the BullMQ worker', async (seed) => {
    const s = story(`bullmq${seed}`);
    await prepare(s);
    const worker = billing.parts.stripeEventsWorker!;
    const settled = s.events.map((e) => jobSettled(worker, e.id));
    // Each event twice in a shuffled order; BullMQ keeps the second of a job id out while the first
    // is known (waiting, active or completed).
    for (const event of shuffle([...s.events, ...s.events], seed)) await producer.publish(message(event), event.id);
    expect((await Promise.all(settled)).map((r) => r.state)).toEqual(s.events.map(() => 'completed'));
    expect(await outcome(s)).toEqual(inOrder);

    // Redelivered under other job ids, so the worker really runs each again: nothing changes.
    const redelivered = s.events.map((e) => jobSettled(worker, `again-${e.id}`));
    for (const event of shuffle(s.events, seed + 100)) await producer.publish(message(event), `again-${event.id}`);
    expect((await Promise.all(redelivered)).map((r) => r.state)).toEqual(s.events.map(() => 'completed'));
    expect(await outcome(s)).toEqual(inOrder);
  });

  it.each([6, 7, 8])('seed %i: the use case called twice per event, one at a time in a shuffled order', async (seed) => {
    const s = story(`direct${seed}`);
    await prepare(s);
    const outcomes = [];
    for (const event of shuffle([...s.events, ...s.events], seed)) outcomes.push(await apply(event));
    expect(outcomes.filter((o) => o === 'already_applied')).toHaveLength(s.events.length);
    expect(await outcome(s)).toEqual(inOrder);
  });

  it.each([9, 10])('seed %i: every delivery at once, concurrently', async (seed) => {
    const s = story(`concurrent${seed}`);
    await prepare(s);
    const outcomes = await Promise.all(shuffle([...s.events, ...s.events, ...s.events], seed).map((event) => apply(event)));
    expect(outcomes.filter((o) => o === 'already_applied')).toHaveLength(2 * s.events.length);
    expect(await outcome(s)).toEqual(inOrder);
  });

  it('a deletion that arrives before its checkout completion leaves the owner free, with the pro credit once', async () => {
    const s = story('deletion-first');
    const completed = s.events[2];
    const deleted = s.events[3];
    expect([completed.type, deleted.type]).toEqual(['checkout.session.completed', 'customer.subscription.deleted']);

    expect(await apply(deleted)).toBe('applied');
    let account = await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: s.owners.B } });
    expect(account.plan).toBe('free');
    expect(await apply(completed)).toBe('applied');
    account = await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: s.owners.B } });
    expect(account.plan).toBe('free');
    expect(account.creditBalance.toFixed()).toBe('2.01');
    expect(await billing.parts.prisma.subscription.findUniqueOrThrow({ where: { id: `sub_b_${s.run}` } })).toMatchObject({
      status: 'canceled',
    });
  });
});

describe('subscription status', () => {
  const sub = (n: string) => ({ subscriptionId: `sub_status_${n}`, customerId: `cus_status_${n}`, userId: `owner-status-${n}` });
  const plan = async (n: string) =>
    (await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: `owner-status-${n}` } })).plan;

  it('an update older than the status already applied changes nothing', async () => {
    await apply(subscriptionCheckoutCompletedEvent({ ...sub('1'), created: T0 + 10 }));
    await apply(subscriptionUpdatedEvent({ ...sub('1'), status: 'unpaid', created: T0 + 300 }));
    await apply(subscriptionUpdatedEvent({ ...sub('1'), status: 'active', created: T0 + 200 }));
    expect(await plan('1')).toBe('free');
    expect((await billing.parts.prisma.subscription.findUniqueOrThrow({ where: { id: 'sub_status_1' } })).status).toBe('unpaid');
  });

  it('canceled is final: a newer update to active does not revive it', async () => {
    await apply(subscriptionCheckoutCompletedEvent({ ...sub('2'), created: T0 + 10 }));
    await apply(subscriptionDeletedEvent({ ...sub('2'), created: T0 + 20 }));
    await apply(subscriptionUpdatedEvent({ ...sub('2'), status: 'active', created: T0 + 30 }));
    expect(await plan('2')).toBe('free');
  });

  it('canceled by an update, incomplete_expired too, ends pro; trialing is pro', async () => {
    await apply(subscriptionCheckoutCompletedEvent({ ...sub('3'), created: T0 + 10 }));
    await apply(subscriptionUpdatedEvent({ ...sub('3'), status: 'canceled', created: T0 + 20 }));
    expect(await plan('3')).toBe('free');
    await apply(subscriptionUpdatedEvent({ ...sub('4'), status: 'trialing', created: T0 + 10 }));
    expect(await plan('4')).toBe('pro');
    await apply(subscriptionUpdatedEvent({ ...sub('4'), status: 'incomplete_expired', created: T0 + 20 }));
    expect(await plan('4')).toBe('free');
  });
});

describe("one owner's events at the same time", () => {
  it('a cancellation and a new subscription applied concurrently leave the owner pro (the plan sees both)', async () => {
    const owners = Array.from({ length: 30 }, (_, i) => `owner-resubscribe-${i}`);
    await Promise.all(
      owners.map((ownerId) =>
        apply(
          subscriptionCheckoutCompletedEvent({
            userId: ownerId,
            customerId: `cus_${ownerId}`,
            subscriptionId: `sub_old_${ownerId}`,
            created: T0,
          }),
        ),
      ),
    );
    await Promise.all(
      owners.flatMap((ownerId) => [
        apply(
          subscriptionDeletedEvent({
            subscriptionId: `sub_old_${ownerId}`,
            customerId: `cus_${ownerId}`,
            userId: ownerId,
            created: T0 + 10,
          }),
        ),
        apply(
          subscriptionCheckoutCompletedEvent({
            userId: ownerId,
            customerId: `cus_${ownerId}`,
            subscriptionId: `sub_new_${ownerId}`,
            created: T0 + 10,
          }),
        ),
      ]),
    );
    const accounts = await billing.parts.prisma.account.findMany({ where: { ownerId: { in: owners } } });
    expect(accounts.filter((a) => a.plan !== 'pro').map((a) => a.ownerId)).toEqual([]);
    expect(new Set(accounts.map((a) => a.creditBalance.toFixed()))).toEqual(new Set(['4.01']));
  });
});

describe('events billing does not apply', () => {
  it('records an unknown type as processed and changes no balance', async () => {
    const event = stripeEvent('charge.refunded', { id: 'ch_1', object: 'charge', metadata: { userId: 'owner-unknown-type' } });
    expect(await apply(event)).toBe('ignored');
    expect(await apply(event)).toBe('already_applied');
    expect(await billing.parts.prisma.processedStripeEvent.findUnique({ where: { eventId: event.id } })).toMatchObject({
      type: 'charge.refunded',
    });
    expect(await billing.parts.prisma.account.count({ where: { ownerId: 'owner-unknown-type' } })).toBe(0);
  });

  it('records a top-up checkout completed unpaid without crediting it', async () => {
    const event = topUpCheckoutCompletedEvent({
      userId: 'owner-unpaid',
      customerId: 'cus_unpaid',
      amountTotal: 500,
      paymentStatus: 'unpaid',
    });
    expect(await apply(event)).toBe('ignored');
    expect(await billing.parts.prisma.creditLedgerEntry.count({ where: { ownerId: 'owner-unpaid' } })).toBe(0);
  });

  it('through the worker, an unknown type completes (so Stripe is not asked to redeliver it)', async () => {
    const event = stripeEvent('payment_intent.created', { id: 'pi_1', object: 'payment_intent' });
    const settled = jobSettled(billing.parts.stripeEventsWorker!, event.id);
    await producer.publish(message(event), event.id);
    expect((await settled).state).toBe('completed');
  });

  const good = topUpCheckoutCompletedEvent({ userId: 'owner-malformed', customerId: 'cus_malformed', amountTotal: 500 });
  const object = good.data.object;
  it.each([
    ['a payload that is not JSON', { ...input(good), payload: '{"id":' }, /not JSON/],
    ['a payload of another event id', { ...input(good), eventId: 'evt_other' }, /does not match event_id/],
    ['a payload of another type', { ...input(good), type: 'customer.subscription.deleted' }, /does not match type/],
    ['no created time', { ...input(good), payload: JSON.stringify({ ...good, created: 'yesterday' }) }, /created/],
    ['a checkout without its object', { ...input(good), payload: JSON.stringify({ ...good, data: {} }) }, /data\.object/],
    [
      'a top-up without a whole amount of cents',
      { ...input(good), payload: JSON.stringify({ ...good, data: { object: { ...object, amount_total: 5.5 } } }) },
      /amount_total/,
    ],
    [
      'a top-up paid in euros',
      { ...input(good), payload: JSON.stringify({ ...good, data: { object: { ...object, currency: 'eur' } } }) },
      /eur/,
    ],
    [
      'a subscription without a status',
      {
        ...input(good),
        type: 'customer.subscription.updated',
        payload: JSON.stringify({ ...good, type: 'customer.subscription.updated', data: { object: { id: 'sub_x' } } }),
      },
      /status/,
    ],
  ])('fails %s at once through the worker, recording and crediting nothing', async (_name, job, reason) => {
    const jobId = `malformed-${Math.random().toString(36).slice(2)}`;
    const settled = jobSettled(billing.parts.stripeEventsWorker!, jobId);
    await producer.publish(create(StripeEventReceivedSchema, job), jobId);
    const result = await settled;
    expect(result.state).toBe('failed');
    expect(result.error?.message).toMatch(reason);
    expect(result.job.attemptsMade).toBe(1); // UnrecoverableError: not retried
    expect(await billing.parts.prisma.processedStripeEvent.count({ where: { eventId: job.eventId } })).toBe(0);
    expect(await billing.parts.prisma.creditLedgerEntry.count({ where: { ownerId: 'owner-malformed', reason: 'credit_topup' } })).toBe(0);
  });
});

describe('retries', () => {
  it('retries an event whose database step failed, and applies it once', async () => {
    await billing.parts.stripeEventsWorker!.pause();
    let calls = 0;
    const flaky = async (event: StripeEventInput) => {
      if (++calls === 1) throw new Error('Connection terminated unexpectedly');
      return applyStripeEvent(billing.parts.payments, event);
    };
    const worker = startStripeEventsWorker({ redis: billing.redis, logger, prefix: billing.config.QUEUE_PREFIX, applyStripeEvent: flaky });
    try {
      const event = topUpCheckoutCompletedEvent({ userId: 'owner-retry', customerId: 'cus_retry', amountTotal: 999 });
      const first = jobSettled(worker, event.id);
      await producer.publish(message(event), event.id);
      expect((await first).state).toBe('failed');
      const retried = jobSettled(worker, event.id);
      expect((await retried).state).toBe('completed');
      expect(calls).toBe(2);
      const account = await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: 'owner-retry' } });
      expect(account.creditBalance.toFixed()).toBe('10');
    } finally {
      await worker.close();
      billing.parts.stripeEventsWorker!.resume();
    }
  });
});

describe('the ledger', () => {
  it('explains every balance after all of the above', async () => {
    expect(await expectLedgerInvariant(billing.parts.prisma)).toBeGreaterThan(50);
  });
});
