// Billing's webhook events (docs/adr/0032-webhooks.md), through its real workers and queues:
// plan.changed once per Stripe event that moves the plan, credit.low once per crossing of
// CREDIT_LOW_THRESHOLD by a settlement, and nothing for an owner without a subscribed endpoint.
import { Queue } from 'bullmq';
import { create, fromJson, type JsonValue } from '@bufbuild/protobuf';
import { timestampFromDate, timestampNow } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StripeEventReceivedSchema } from '@parley/proto/parley/events/v1/stripe_event_received_pb.js';
import { UsageRecordedSchema } from '@parley/proto/parley/events/v1/usage_recorded_pb.js';
import { WebhookEventBatchSchema, type WebhookEvent } from '@parley/proto/parley/events/v1/webhook_event_pb.js';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import {
  stripeEventPayload,
  subscriptionCheckoutCompletedEvent,
  subscriptionDeletedEvent,
  topUpCheckoutCompletedEvent,
  type StripeEventJson,
} from '@parley/common/testing/fake-stripe.ts';
import { setWebhookSubscriptions } from '@parley/common/webhook-subscriptions.ts';
import { jobSettled, startBilling, type Billing } from './harness.ts';

let billing: Billing;
let stripe: Producer<typeof StripeEventReceivedSchema>;
let usage: Producer<typeof UsageRecordedSchema>;
let events: Queue;

beforeAll(async () => {
  // $0.01 of starting credit; each usage below costs $0.00045, so the third one crosses $0.009.
  billing = await startBilling({ env: { CREDIT_LOW_THRESHOLD: '0.009' } });
  const prefix = billing.config.QUEUE_PREFIX;
  stripe = createProducer(billing.redis, QUEUES.stripeEvents, StripeEventReceivedSchema, { prefix });
  usage = createProducer(billing.redis, QUEUES.usageRecorded, UsageRecordedSchema, { prefix });
  events = new Queue(QUEUES.webhookEvents, { connection: billing.redis, prefix });
});

afterAll(async () => {
  await events?.close();
  await stripe?.close();
  await usage?.close();
  await billing?.stop();
});

const subscribe = (ownerId: string, types: string[]) => setWebhookSubscriptions(billing.redis, billing.config.QUEUE_PREFIX, ownerId, types);

/** The webhook events published for an owner so far (what the publisher gathers is published first). */
async function published(ownerId: string): Promise<{ type: string; data: unknown }[]> {
  await billing.parts.webhookEvents.flush();
  const jobs = await events.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed']);
  return jobs
    .sort((a, b) => a.timestamp - b.timestamp)
    .flatMap((j): WebhookEvent[] => fromJson(WebhookEventBatchSchema, j.data as JsonValue).events)
    .filter((e) => e.ownerId === ownerId)
    .map((e) => ({ type: e.type, data: JSON.parse(e.dataJson) as unknown }));
}

async function applyStripe(event: StripeEventJson, jobId = event.id) {
  const settled = jobSettled(billing.parts.stripeEventsWorker!, jobId);
  await stripe.publish(
    create(StripeEventReceivedSchema, {
      eventId: event.id,
      type: event.type,
      payload: stripeEventPayload(event),
      receivedAt: timestampNow(),
    }),
    jobId,
  );
  expect((await settled).state).toBe('completed');
}

let requests = 0;
async function spend(ownerId: string) {
  const requestId = `req-${ownerId}-${++requests}`;
  const settled = jobSettled(billing.parts.usageRecordedWorker!, requestId);
  await usage.publish(
    create(UsageRecordedSchema, {
      requestId,
      ownerId,
      chatbotId: 'chatbot-1',
      chatbotName: 'Support bot',
      model: 'gpt-4o-mini',
      promptTokens: 1000n,
      completionTokens: 500n,
      occurredAt: timestampFromDate(new Date()),
    }),
    requestId,
  );
  expect((await settled).state).toBe('completed');
}

describe('plan.changed', () => {
  it('is published once per Stripe event that moves the plan, both ways', async () => {
    const ownerId = 'owner-plan-hooks';
    await subscribe(ownerId, ['plan.changed']);
    const sub = { subscriptionId: 'sub_hooks', customerId: 'cus_hooks', userId: ownerId };
    const completed = subscriptionCheckoutCompletedEvent(sub);
    await applyStripe(completed);
    await applyStripe(completed, `again-${completed.id}`); // delivered again: already applied
    await applyStripe(subscriptionDeletedEvent(sub));
    expect(await published(ownerId)).toEqual([
      { type: 'plan.changed', data: { plan: 'pro', previousPlan: 'free' } },
      { type: 'plan.changed', data: { plan: 'free', previousPlan: 'pro' } },
    ]);
  });

  it('is not published for an owner without a subscribed endpoint', async () => {
    const ownerId = 'owner-plan-quiet';
    await applyStripe(subscriptionCheckoutCompletedEvent({ subscriptionId: 'sub_quiet', customerId: 'cus_quiet', userId: ownerId }));
    expect((await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId } })).plan).toBe('pro');
    expect(await published(ownerId)).toEqual([]);
  });
});

describe('credit.low', () => {
  it('is published once when a settlement crosses the threshold, and again only after the balance rose above it', async () => {
    const ownerId = 'owner-credit-hooks';
    await subscribe(ownerId, ['credit.low']);
    await spend(ownerId); // 0.00955
    await spend(ownerId); // 0.0091
    expect(await published(ownerId)).toEqual([]);
    await spend(ownerId); // 0.00865: below
    await spend(ownerId); // 0.0082: still below, the same crossing
    expect(await published(ownerId)).toEqual([{ type: 'credit.low', data: { balance: '0.00865', threshold: '0.009' } }]);

    const marker = redisKeys(billing.config.QUEUE_PREFIX).webhookCreditLow(ownerId);
    expect(await billing.redis.exists(marker)).toBe(1);
    // A top-up lifts the balance; the next settlement ends the crossing.
    await applyStripe(topUpCheckoutCompletedEvent({ userId: ownerId, customerId: 'cus_credit_hooks', amountTotal: 100 }));
    await spend(ownerId);
    expect(await billing.redis.exists(marker)).toBe(0);
    expect(await published(ownerId)).toHaveLength(1);
  });

  it('is not published for an owner without a subscribed endpoint', async () => {
    const ownerId = 'owner-credit-quiet';
    for (let i = 0; i < 4; i++) await spend(ownerId);
    expect(await published(ownerId)).toEqual([]);
    expect(await billing.redis.exists(redisKeys(billing.config.QUEUE_PREFIX).webhookCreditLow(ownerId))).toBe(0);
  });
});
