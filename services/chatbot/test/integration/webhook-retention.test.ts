// Webhook delivery retention in the chatbot service (docs/adr/0059-retention-in-every-service.md), on
// real PostgreSQL: with the clock moved (never waited for), the sweep deletes exactly the finished
// deliveries (with their attempts) past each workspace's window, from their last attempt, and nothing
// else (a pending delivery, another workspace's, one without a window), in batches, idempotently (a
// second run and two sweeps at once delete each once), with the counts it reports and publishes
// for auth's audit; the preview counts what the sweep then deletes; the window is set and read over
// the RPC, 7 days to forever, by owners and admins only.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { WebhookService } from '@parley/proto/parley/chatbot/v1/webhooks_pb.js';
import { RetentionSweptSchema } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { RETENTION_DAYS_INVALID } from '@parley/common/retention.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { DEVELOPMENT_SERVICE_SECRET } from '@parley/common/service-auth.ts';
import { rpcError } from '@parley/common/testing/rpc.ts';
import {
  previewWebhookRetention,
  publishWebhookRetentionSwept,
  sweepWebhookRetention,
  sweepWebhookWorkspace,
} from '../../src/webhooks/webhook-retention.ts';
import { logger, newOwner, startChatbotService, type TestChatbotService } from './harness.ts';

let svc: TestChatbotService;
beforeAll(async () => {
  svc = await startChatbotService();
}, 180_000);
afterAll(async () => {
  await svc?.stop();
});

const DAY = 24 * 3600_000;
// The clock the sweep is given: a year from now, so every row made here is in its past.
const NOW = new Date(Date.now() + 365 * DAY);
const daysBefore = (days: number) => new Date(NOW.getTime() - days * DAY);
const as = (role: string) =>
  createServiceClient(WebhookService, svc.url, { credentials: { caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET }, role });

async function endpoint(ownerId: string): Promise<string> {
  const e = await svc.db.webhookEndpoint.create({
    data: { ownerId, url: 'https://hooks.example.com/parley', events: ['lead.created'], secret: 'whsec_test' },
  });
  return e.id;
}

/** A delivery made `createdDaysAgo` before NOW, last attempted `attemptedDaysAgo` before NOW (null: never), with two attempts when attempted. */
async function delivery(endpointId: string, status: string, createdDaysAgo: number, attemptedDaysAgo: number | null): Promise<string> {
  const id = `msg_${randomUUID()}`;
  await svc.db.webhookDelivery.create({
    data: {
      id,
      endpointId,
      eventId: randomUUID(),
      eventType: 'lead.created',
      payload: '{}',
      status,
      createdAt: daysBefore(createdDaysAgo),
      lastAttemptAt: attemptedDaysAgo === null ? null : daysBefore(attemptedDaysAgo),
    },
  });
  if (attemptedDaysAgo !== null)
    for (let i = 0; i < 2; i++)
      await svc.db.webhookAttempt.create({
        data: { deliveryId: id, attemptedAt: daysBefore(attemptedDaysAgo), responseStatus: 500, durationMs: 3, error: 'HTTP 500' },
      });
  return id;
}

const remaining = async (endpointId: string) =>
  (await svc.db.webhookDelivery.findMany({ where: { endpointId }, select: { id: true } })).map((d) => d.id).sort();

describe('webhook delivery retention', () => {
  it('deletes exactly the finished deliveries past each window, with their attempts, in batches, once; the preview counted them', async () => {
    const [a, b, none] = [newOwner('wret-a'), newOwner('wret-b'), newOwner('wret-none')];
    const [ea, eb, en] = [await endpoint(a), await endpoint(a), await endpoint(b)];
    const eNone = await endpoint(none);
    const aOld = [await delivery(ea, 'succeeded', 40, 40), await delivery(ea, 'failed', 60, 31), await delivery(eb, 'failed', 90, null)];
    // Kept: created long ago but last attempted inside the window; still pending (being retried).
    const aKept = [await delivery(ea, 'succeeded', 90, 29), await delivery(eb, 'pending', 90, 80), await delivery(eb, 'succeeded', 1, 1)];
    const bOld = [await delivery(en, 'succeeded', 8, 8)];
    const bKept = [await delivery(en, 'succeeded', 6, 6)];
    const noneAll = [await delivery(eNone, 'failed', 1000, 1000)];
    await as('owner').setWebhookRetention({ ownerId: a, retention: { deliveryDays: 30 } });
    await as('admin').setWebhookRetention({ ownerId: b, retention: { deliveryDays: 7 } });

    expect(await previewWebhookRetention(svc.db, a, 30, NOW)).toBe(3);
    expect(await previewWebhookRetention(svc.db, b, 7, NOW)).toBe(1);
    expect(await previewWebhookRetention(svc.db, none, null, NOW)).toBe(0);
    // On today's clock nothing made here is 30 days old.
    expect(Number((await as('owner').previewWebhookRetention({ ownerId: a, retention: { deliveryDays: 30 } })).webhookDeliveries)).toBe(0);

    const recorded: [string, number][] = [];
    const swept = await sweepWebhookRetention(svc.db, NOW, (ownerId, n) => void recorded.push([ownerId, n]), 2);
    expect([swept.get(a), swept.get(b), swept.has(none)]).toEqual([3, 1, false]);
    expect(recorded.filter(([o]) => [a, b, none].includes(o)).sort()).toEqual([
      [a, 3],
      [b, 1],
    ]);
    expect([...(await remaining(ea)), ...(await remaining(eb))].sort()).toEqual([...aKept].sort());
    expect(await remaining(en)).toEqual(bKept);
    expect(await remaining(eNone)).toEqual(noneAll);
    // The attempts went with their deliveries; the kept ones keep theirs.
    expect(await svc.db.webhookAttempt.count({ where: { deliveryId: { in: [...aOld, ...bOld] } } })).toBe(0);
    expect(await svc.db.webhookAttempt.count({ where: { deliveryId: { in: aKept } } })).toBe(6);

    const again: string[] = [];
    await sweepWebhookRetention(svc.db, NOW, (ownerId) => void again.push(ownerId));
    expect(again.filter((o) => [a, b, none].includes(o))).toEqual([]);
    expect([...(await remaining(ea)), ...(await remaining(eb))].sort()).toEqual([...aKept].sort());
  }, 120_000);

  it('two sweeps at once delete each delivery once', async () => {
    const owner = newOwner('wret-race');
    const e = await endpoint(owner);
    for (let i = 0; i < 9; i++) await delivery(e, 'succeeded', 100 + i, 100 + i);
    await delivery(e, 'succeeded', 1, 1);
    const [one, two] = await Promise.all([
      sweepWebhookWorkspace(svc.db, owner, 30, NOW, 2),
      sweepWebhookWorkspace(svc.db, owner, 30, NOW, 2),
    ]);
    expect(one + two).toBe(9);
    expect((await remaining(e)).length).toBe(1);
  }, 120_000);

  it('sets and reads the window over the RPC: 7 days to forever, owners and admins only', async () => {
    const owner = newOwner('wret-rpc');
    expect((await as('owner').getWebhookRetention({ ownerId: owner })).retention?.deliveryDays).toBeUndefined();
    await as('owner').setWebhookRetention({ ownerId: owner, retention: { deliveryDays: 36_500 } });
    expect((await as('owner').getWebhookRetention({ ownerId: owner })).retention?.deliveryDays).toBe(36_500);
    for (const days of [6, 36_501, 0]) {
      const err = await rpcError(as('owner').setWebhookRetention({ ownerId: owner, retention: { deliveryDays: days } }));
      expect([err.code, err.rawMessage]).toEqual([Code.InvalidArgument, RETENTION_DAYS_INVALID]);
    }
    await as('owner').setWebhookRetention({ ownerId: owner, retention: {} });
    expect((await as('owner').getWebhookRetention({ ownerId: owner })).retention?.deliveryDays).toBeUndefined();
    for (const role of ['editor', 'viewer'])
      expect((await rpcError(as(role).setWebhookRetention({ ownerId: owner, retention: { deliveryDays: 30 } }))).code).toBe(
        Code.PermissionDenied,
      );
  }, 120_000);

  it('publishes what a sweep deleted as RetentionSwept from the chatbot service', async () => {
    const prefix = svc.config.QUEUE_PREFIX;
    const producer = createProducer(svc.redis, QUEUES.retentionSwept, RetentionSweptSchema, { prefix });
    const queue = new Queue(QUEUES.retentionSwept, { connection: svc.redis, prefix });
    const owner = newOwner('wret-pub');
    try {
      await publishWebhookRetentionSwept(producer, owner, 5, logger);
      const events = (await queue.getJobs(['waiting', 'delayed', 'prioritized']))
        .map((j) => fromJson(RetentionSweptSchema, j.data as JsonValue))
        .filter((e) => e.ownerId === owner);
      expect(events.map((e) => [e.service, e.kind, Number(e.webhookDeliveries)])).toEqual([['chatbot', 'webhook_deliveries', 5]]);
    } finally {
      await queue.close();
      await producer.close();
    }
  });
});
