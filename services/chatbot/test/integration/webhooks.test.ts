// Webhooks end to end on the chatbot service: endpoints through the WebhookService, events through
// the real parley.webhook-events queue (published as chat and billing publish them), signed
// deliveries through the real delivery queue to a local HTTP receiver that checks every signature
// with the standardwebhooks library, retries with a short backoff (WEBHOOK_RETRY_BASE_MS), the
// delivery log, redelivery, test events, ownership, the address guard, and an endpoint disabled
// after a day of failures (the day is in the endpoint's failure streak, not waited for).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { create, fromJson, type JsonValue } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AccountDeletedSchema } from '@parley/proto/parley/events/v1/account_deleted_pb.js';
import { jobSettled } from '@parley/common/testing/jobs.ts';
import { Code } from '@connectrpc/connect';
import { WebhookService } from '@parley/proto/parley/chatbot/v1/webhooks_pb.js';
import { WebhookEndpointDisabledSchema } from '@parley/proto/parley/events/v1/webhook_event_pb.js';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { webhookEvent, type WebhookEventInput } from '@parley/common/webhook-events.ts';
import { webhookPublisher, type WebhookPublisher } from '@parley/common/webhook-publisher.ts';
import { createEndpoint, restoreSubscriptions } from '../../src/webhooks/endpoints.ts';
import { ADDRESS_NOT_ALLOWED, ENDPOINT_NOT_FOUND, URL_INVALID, unknownEvent } from '../../src/webhooks/endpoint-input.ts';
import { ATTEMPTS_KEPT, DELIVERY_ERRORS } from '../../src/webhooks/deliver.ts';
import { expectRpcError, logger, newOwner, startChatbotService, type TestChatbotService } from './harness.ts';

const MAX_ATTEMPTS = 4;

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  /** The payload, verified with the endpoint's secret. */
  payload: { type: string; version: number; timestamp: string; data: Record<string, unknown> };
}

/** A receiver per endpoint path: answers each request with the next status of its script (then 200). */
class Receiver {
  server!: Server;
  secrets = new Map<string, string>();
  scripts = new Map<string, number[]>();
  received = new Map<string, Received[]>();
  unverified: string[] = [];

  async start() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const body = Buffer.concat(chunks).toString('utf8');
        try {
          const payload = new Webhook(this.secrets.get(path) ?? 'whsec_none').verify(
            body,
            req.headers as Record<string, string>,
          ) as Received['payload'];
          this.received.set(path, [...(this.received.get(path) ?? []), { headers: req.headers, body, payload }]);
        } catch {
          this.unverified.push(path);
        }
        const status = this.scripts.get(path)?.shift() ?? 200;
        res.writeHead(status, { 'content-type': 'text/plain', ...(status === 302 ? { location: 'http://127.0.0.1:1/elsewhere' } : {}) });
        res.end(status === 200 ? `ok ${path}` : `failure ${status}`);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }
  url(path: string) {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }
  got(path: string) {
    return this.received.get(path) ?? [];
  }
  close() {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let svc: TestChatbotService;
let client: ReturnType<typeof createServiceClient<typeof WebhookService>>;
let publisher: WebhookPublisher;
const receiver = new Receiver();

beforeAll(async () => {
  svc = await startChatbotService({
    KNOWLEDGE_URL_ALLOW_PRIVATE: '1',
    WEBHOOK_RETRY_BASE_MS: '20',
    WEBHOOK_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
    WEBHOOK_TIMEOUT_MS: '5000',
  });
  client = createServiceClient(WebhookService, svc.url);
  publisher = webhookPublisher(svc.redis, { prefix: svc.config.QUEUE_PREFIX, logger, waitMs: 5 });
  await receiver.start();
});

afterAll(async () => {
  await publisher?.close();
  await receiver.close();
  await svc?.stop();
});

/** An endpoint of `ownerId` at a fresh path of the receiver, which knows its secret. */
async function endpointOf(ownerId: string, path: string, events = ['message.created', 'knowledge.entry.ready']) {
  const { endpoint, secret } = await client.createWebhookEndpoint({ ownerId, url: receiver.url(path), events });
  receiver.secrets.set(path, secret);
  return endpoint!;
}

let seq = 0;
function messageCreated(ownerId: string, id = `message.created:${++seq}-${Math.random()}`): WebhookEventInput {
  return webhookEvent('message.created', {
    id,
    ownerId,
    occurredAt: new Date('2026-01-15T09:30:00Z'),
    data: {
      chatbotId: '3f6c1a52-6a1e-4c55-9b0e-7f3f4c2a9d10',
      conversationId: 'session-1',
      requestId: id,
      question: 'Do you ship abroad?',
      answered: true,
      language: 'english',
      createdAt: '2026-01-15T09:30:00.000Z',
    },
  });
}

async function publish(...events: WebhookEventInput[]) {
  await publisher.publish(events);
  await publisher.flush();
}

const deliveries = (ownerId: string, endpointId: string) => client.listWebhookDeliveries({ ownerId, endpointId }).then((r) => r.deliveries);

/** Waits until the endpoint's deliveries are all done (none pending) and there are `count` of them. */
async function settled(ownerId: string, endpointId: string, count: number) {
  return vi.waitFor(
    async () => {
      const list = await deliveries(ownerId, endpointId);
      expect(list).toHaveLength(count);
      expect(list.filter((d) => d.status === 'pending')).toEqual([]);
      return list;
    },
    { timeout: 15_000, interval: 50 },
  );
}

describe('endpoints', () => {
  it('are created with a secret shown once, listed without it, changed and deleted', async () => {
    const ownerId = newOwner();
    const { endpoint, secret } = await client.createWebhookEndpoint({
      ownerId,
      url: receiver.url('/crud'),
      events: ['plan.changed', 'message.created', 'message.created'],
    });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(endpoint).toMatchObject({ url: receiver.url('/crud'), events: ['message.created', 'plan.changed'], enabled: true });
    const { endpoints } = await client.listWebhookEndpoints({ ownerId });
    expect(endpoints.map((e) => e.id)).toEqual([endpoint!.id]);
    expect(JSON.stringify(endpoints, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(secret);

    const changed = await client.updateWebhookEndpoint({
      ownerId,
      endpointId: endpoint!.id,
      enabled: false,
      events: { types: ['credit.low'] },
    });
    expect(changed.endpoint).toMatchObject({ enabled: false, events: ['credit.low'] });
    const { secret: rolled } = await client.rollWebhookSecret({ ownerId, endpointId: endpoint!.id });
    expect(rolled).not.toBe(secret);

    await expectRpcError(
      client.createWebhookEndpoint({ ownerId, url: receiver.url('/x'), events: [] }),
      Code.InvalidArgument,
      'Choose at least one event',
    );
    await expectRpcError(
      client.createWebhookEndpoint({ ownerId, url: receiver.url('/x'), events: ['order.paid'] }),
      Code.InvalidArgument,
      unknownEvent('order.paid'),
    );
    await expectRpcError(
      client.createWebhookEndpoint({ ownerId, url: 'not a url', events: ['credit.low'] }),
      Code.InvalidArgument,
      URL_INVALID,
    );

    await client.deleteWebhookEndpoint({ ownerId, endpointId: endpoint!.id });
    expect((await client.listWebhookEndpoints({ ownerId })).endpoints).toEqual([]);
  });

  it("are another workspace's NOT_FOUND, every call", async () => {
    const ownerId = newOwner();
    const stranger = newOwner('stranger');
    const endpoint = await endpointOf(ownerId, '/owned');
    const ref = { ownerId: stranger, endpointId: endpoint.id };
    await expectRpcError(client.updateWebhookEndpoint({ ...ref, enabled: false }), Code.NotFound, ENDPOINT_NOT_FOUND);
    await expectRpcError(client.deleteWebhookEndpoint(ref), Code.NotFound, ENDPOINT_NOT_FOUND);
    await expectRpcError(client.rollWebhookSecret(ref), Code.NotFound, ENDPOINT_NOT_FOUND);
    await expectRpcError(client.listWebhookDeliveries(ref), Code.NotFound, ENDPOINT_NOT_FOUND);
    await expectRpcError(client.redeliverWebhook({ ...ref, deliveryId: 'msg_x' }), Code.NotFound, ENDPOINT_NOT_FOUND);
    await expectRpcError(client.sendTestWebhook(ref), Code.NotFound, ENDPOINT_NOT_FOUND);
    expect((await client.listWebhookEndpoints({ ownerId: stranger })).endpoints).toEqual([]);
    // Still there, unchanged, for its owner.
    expect((await client.listWebhookEndpoints({ ownerId })).endpoints).toMatchObject([{ id: endpoint.id, enabled: true }]);
  });

  it('refuse addresses the crawler refuses, and plain http, outside local use', async () => {
    const guarded = { ...svc.parts.deps.webhooks, settings: { ...svc.parts.deps.webhooks.settings, allowPrivate: false } };
    const create = (url: string) => createEndpoint(guarded, { ownerId: newOwner(), url, events: ['message.created'] });
    for (const url of [
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://[::1]/hook',
      'https://169.254.169.254/latest',
      'https://localhost/hook',
    ])
      await expect(create(url), url).rejects.toMatchObject({ code: Code.InvalidArgument, rawMessage: ADDRESS_NOT_ALLOWED });
    await expect(create('http://93.184.215.14/hook')).rejects.toMatchObject({ code: Code.InvalidArgument, rawMessage: URL_INVALID });
    await expect(create('https://user:pw@93.184.215.14/hook')).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: URL_INVALID,
    });
    const created = await create('https://93.184.215.14/hook');
    expect(created.endpoint.url).toBe('https://93.184.215.14/hook');
  });
});

describe('subscriptions and deletion', () => {
  it('are written again when Redis lost them', async () => {
    const ownerId = newOwner();
    await endpointOf(ownerId, '/restored', ['credit.low']);
    const keys = redisKeys(svc.config.QUEUE_PREFIX);
    await svc.redis.del(keys.webhookSubscriptions(), keys.webhookSubscriptionsRevision());
    expect(await restoreSubscriptions(svc.parts.deps.webhooks)).toBeGreaterThanOrEqual(1);
    expect(await svc.redis.hget(keys.webhookSubscriptions(), ownerId)).toBe('credit.low');
    // Kept: nothing to do.
    expect(await restoreSubscriptions(svc.parts.deps.webhooks)).toBe(0);
  });

  it('go with a deleted workspace (AccountDeleted)', async () => {
    const ownerId = newOwner();
    const other = newOwner();
    await endpointOf(ownerId, '/deleted-owner');
    await endpointOf(other, '/other-owner');
    const producer = createProducer(svc.redis, QUEUES.accountDeletedChatbot, AccountDeletedSchema, { prefix: svc.config.QUEUE_PREFIX });
    try {
      const settledJob = jobSettled(svc.parts.accountDeletedWorker!, `deleted-${ownerId}`);
      await producer.publish(
        create(AccountDeletedSchema, { userId: ownerId, occurredAt: timestampFromDate(new Date()) }),
        `deleted-${ownerId}`,
      );
      expect((await settledJob).state).toBe('completed');
    } finally {
      await producer.close();
    }
    expect((await client.listWebhookEndpoints({ ownerId })).endpoints).toEqual([]);
    expect((await client.listWebhookEndpoints({ ownerId: other })).endpoints).toHaveLength(1);
    expect(await publisher.subscribedTo(ownerId, 'message.created')).toBe(false);
  });
});

describe('deliveries', () => {
  it('are signed, retried after failures and received once per delivery id; a repeated event delivers nothing more', async () => {
    const ownerId = newOwner();
    const endpoint = await endpointOf(ownerId, '/retry');
    receiver.scripts.set('/retry', [500, 500]);
    const event = messageCreated(ownerId);
    await publish(event);
    const [delivery] = await settled(ownerId, endpoint.id, 1);

    const got = receiver.got('/retry');
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery.id]));
    expect(got[2].payload).toEqual({ type: 'message.created', version: 1, timestamp: '2026-01-15T09:30:00.000Z', data: event.data });
    expect(delivery).toMatchObject({
      status: 'succeeded',
      attempts: 3,
      responseStatus: 200,
      responseExcerpt: 'ok /retry',
      error: '',
      eventType: 'message.created',
    });
    expect(receiver.unverified).toEqual([]);

    // The same event again (a publisher's retry): the endpoint already has its delivery.
    await publish(event);
    await svc.parts.webhookEventsWorker!.waitUntilReady();
    await new Promise((r) => setTimeout(r, 300));
    expect(await deliveries(ownerId, endpoint.id)).toHaveLength(1);
    expect(receiver.got('/retry')).toHaveLength(3);
  });

  it('reach only enabled endpoints subscribed to the type; an owner without one has nothing published', async () => {
    const ownerId = newOwner();
    const on = await endpointOf(ownerId, '/on', ['message.created']);
    const off = await endpointOf(ownerId, '/off', ['message.created']);
    const other = await endpointOf(ownerId, '/other-type', ['plan.changed']);
    await client.updateWebhookEndpoint({ ownerId, endpointId: off.id, enabled: false });
    await publish(messageCreated(ownerId));
    await settled(ownerId, on.id, 1);
    expect(receiver.got('/on')).toHaveLength(1);
    expect(receiver.got('/off')).toEqual([]);
    expect(receiver.got('/other-type')).toEqual([]);
    expect(await deliveries(ownerId, off.id)).toEqual([]);
    expect(await deliveries(ownerId, other.id)).toEqual([]);

    // The subscriptions hash says who listens to what; an owner with only a disabled endpoint is not in it.
    const lonely = newOwner();
    const disabled = await endpointOf(lonely, '/lonely', ['message.created']);
    await client.updateWebhookEndpoint({ ownerId: lonely, endpointId: disabled.id, enabled: false });
    const hash = await svc.redis.hgetall(redisKeys(svc.config.QUEUE_PREFIX).webhookSubscriptions());
    expect(hash[ownerId]).toBe('message.created,plan.changed');
    expect(hash[lonely]).toBeUndefined();
    expect(await publisher.subscribedTo(lonely, 'message.created')).toBe(false);
  });

  it('are sent again on redelivery (same id, one more attempt), and a test event reaches any endpoint', async () => {
    const ownerId = newOwner();
    const endpoint = await endpointOf(ownerId, '/redeliver');
    await publish(messageCreated(ownerId));
    const [first] = await settled(ownerId, endpoint.id, 1);

    const { delivery } = await client.redeliverWebhook({ ownerId, endpointId: endpoint.id, deliveryId: first.id });
    expect(delivery).toMatchObject({ id: first.id, status: 'pending' });
    const [again] = await settled(ownerId, endpoint.id, 1);
    expect(again).toMatchObject({ id: first.id, status: 'succeeded', attempts: 2 });
    const got = receiver.got('/redeliver');
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([first.id, first.id]);
    expect(got[1].body).toBe(got[0].body);
    await expectRpcError(
      client.redeliverWebhook({ ownerId, endpointId: endpoint.id, deliveryId: 'msg_unknown' }),
      Code.NotFound,
      'Webhook delivery not found',
    );

    const { delivery: test } = await client.sendTestWebhook({ ownerId, endpointId: endpoint.id, eventType: 'knowledge.entry.failed' });
    expect(test).toMatchObject({ test: true, eventType: 'knowledge.entry.failed' });
    await settled(ownerId, endpoint.id, 2);
    const last = receiver.got('/redeliver').at(-1)!;
    expect(last.headers['webhook-id']).toBe(test!.id);
    expect(last.payload).toMatchObject({ type: 'knowledge.entry.failed', version: 1, data: { error: 'This PDF is password-protected' } });
  });

  it('keep each attempt in order: three failures then a success are four attempts, and a redelivery appends', async () => {
    const ownerId = newOwner();
    const endpoint = await endpointOf(ownerId, '/attempts');
    receiver.scripts.set('/attempts', [500, 503, 302]);
    await publish(messageCreated(ownerId));
    const [delivery] = await settled(ownerId, endpoint.id, 1);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 4, responseStatus: 200, error: '' });
    const outcomes = (d: typeof delivery) => d.attemptLog.map((a) => [a.responseStatus, a.error]);
    expect(outcomes(delivery)).toEqual([
      [500, 'HTTP 500'],
      [503, 'HTTP 503'],
      [302, DELIVERY_ERRORS.redirect(302)],
      [200, ''],
    ]);
    const times = delivery.attemptLog.map((a) => timestampDate(a.attemptedAt!).getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.at(-1)).toBe(timestampDate(delivery.lastAttemptAt!).getTime());
    expect(delivery.attemptLog.every((a) => a.durationMs >= 0)).toBe(true);

    const { delivery: redelivered } = await client.redeliverWebhook({ ownerId, endpointId: endpoint.id, deliveryId: delivery.id });
    // Answered before the new round's attempt: the log as it stood.
    expect(outcomes(redelivered!)).toEqual(outcomes(delivery));
    const [again] = await settled(ownerId, endpoint.id, 1);
    expect(again.attempts).toBe(5);
    expect(outcomes(again)).toEqual([...outcomes(delivery), [200, '']]);
    expect(again.attemptLog.slice(0, 4)).toEqual(delivery.attemptLog);
  });

  it(`keep a delivery's last ${ATTEMPTS_KEPT} attempts, while attempts counts them all`, async () => {
    const ownerId = newOwner();
    const endpoint = await endpointOf(ownerId, '/kept');
    await publish(messageCreated(ownerId));
    const [delivery] = await settled(ownerId, endpoint.id, 1);
    // A day of retries and redeliveries before: the log full.
    const earlier = Array.from({ length: ATTEMPTS_KEPT - 1 }, (_, i) => ({
      deliveryId: delivery.id,
      attemptedAt: new Date(Date.now() + i),
      responseStatus: 503,
      durationMs: i,
      error: `earlier ${i}`,
    }));
    await svc.db.webhookAttempt.createMany({ data: earlier });
    await svc.db.webhookDelivery.update({ where: { id: delivery.id }, data: { attempts: ATTEMPTS_KEPT } });
    expect((await deliveries(ownerId, endpoint.id))[0].attemptLog).toHaveLength(ATTEMPTS_KEPT);

    await client.redeliverWebhook({ ownerId, endpointId: endpoint.id, deliveryId: delivery.id });
    await vi.waitFor(async () => expect((await deliveries(ownerId, endpoint.id))[0].attempts).toBe(ATTEMPTS_KEPT + 1), {
      timeout: 15_000,
      interval: 50,
    });
    const [after] = await settled(ownerId, endpoint.id, 1);
    // The oldest (the first real attempt) left; the newest came last.
    expect(after.attemptLog.map((a) => a.error)).toEqual([...earlier.map((e) => e.error), '']);
    expect(await svc.db.webhookAttempt.count({ where: { deliveryId: delivery.id } })).toBe(ATTEMPTS_KEPT);
  });

  it('page through the log newest first', async () => {
    const ownerId = newOwner();
    const endpoint = await endpointOf(ownerId, '/pages');
    await publish(...Array.from({ length: 5 }, () => messageCreated(ownerId)));
    const all = await settled(ownerId, endpoint.id, 5);
    const seen: string[] = [];
    let cursor = '';
    do {
      const page = await client.listWebhookDeliveries({ ownerId, endpointId: endpoint.id, limit: 2, cursor });
      expect(page.deliveries.length).toBeLessThanOrEqual(2);
      seen.push(...page.deliveries.map((d) => d.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((d) => d.id));
    await expectRpcError(
      client.listWebhookDeliveries({ ownerId, endpointId: endpoint.id, limit: 101 }),
      Code.InvalidArgument,
      'limit must be between 1 and 100',
    );
    await expectRpcError(
      client.listWebhookDeliveries({ ownerId, endpointId: endpoint.id, cursor: 'bad' }),
      Code.InvalidArgument,
      'Invalid cursor',
    );
  });

  it('fail on a redirect (not followed) and after the last attempt', async () => {
    const ownerId = newOwner();
    const endpoint = await endpointOf(ownerId, '/moved');
    receiver.scripts.set('/moved', Array(MAX_ATTEMPTS).fill(302));
    await publish(messageCreated(ownerId));
    const [delivery] = await settled(ownerId, endpoint.id, 1);
    expect(delivery).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, responseStatus: 302, error: DELIVERY_ERRORS.redirect(302) });
    const [listed] = (await client.listWebhookEndpoints({ ownerId })).endpoints;
    expect(listed).toMatchObject({ enabled: true });
    expect(listed.failingSince).toBeDefined();
  });

  it('disable an endpoint failing for a day, tell its owners, and deliver nothing more to it', async () => {
    const ownerId = newOwner();
    const endpoint = await endpointOf(ownerId, '/down');
    receiver.scripts.set('/down', Array(50).fill(503));
    // The endpoint has failed every attempt since yesterday.
    await svc.db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { failingSince: new Date(Date.now() - 25 * 3600_000) } });
    await publish(messageCreated(ownerId));
    const [delivery] = await settled(ownerId, endpoint.id, 1);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, responseStatus: 503, error: 'HTTP 503' });

    const [listed] = (await client.listWebhookEndpoints({ ownerId })).endpoints;
    expect(listed.enabled).toBe(false);
    expect(listed.disabledReason).toMatch(/^Deliveries failed since .* \(last: HTTP 503\)$/);
    const queue = new Queue(QUEUES.webhookEndpointDisabled, { connection: svc.redis, prefix: svc.config.QUEUE_PREFIX });
    try {
      const jobs = await queue.getJobs(['waiting']);
      const notices = jobs
        .map((j) => fromJson(WebhookEndpointDisabledSchema, j.data as JsonValue))
        .filter((n) => n.endpointId === endpoint.id);
      expect(notices).toMatchObject([{ ownerId, url: receiver.url('/down'), lastError: 'HTTP 503' }]);
    } finally {
      await queue.close();
    }
    expect(await publisher.subscribedTo(ownerId, 'message.created')).toBe(false);

    // Enabled again by its owner: the streak starts over and events flow.
    receiver.scripts.set('/down', []);
    const { endpoint: enabled } = await client.updateWebhookEndpoint({ ownerId, endpointId: endpoint.id, enabled: true });
    expect(enabled).toMatchObject({ enabled: true, disabledReason: '' });
    expect(enabled!.failingSince).toBeUndefined();
    await publish(messageCreated(ownerId));
    await settled(ownerId, endpoint.id, 2);
    expect(receiver.got('/down')).toHaveLength(2);
  });

  it('tell of a file that became knowledge, and of one that could not', async () => {
    const ownerId = newOwner();
    const endpoint = await endpointOf(ownerId, '/knowledge', ['knowledge.entry.ready', 'knowledge.entry.failed']);
    const bot = await svc.createChatbot(ownerId);
    const { entry: ready } = await svc.client.addFileEntry({
      ownerId,
      chatbotId: bot.id,
      fileName: 'hours.txt',
      content: new TextEncoder().encode('We open at nine and close at five, every day but Sunday.'),
    });
    const { entry: failed } = await svc.client.addFileEntry({
      ownerId,
      chatbotId: bot.id,
      fileName: 'empty.txt',
      content: new TextEncoder().encode('   '),
    });
    await settled(ownerId, endpoint.id, 2);
    const byType = Object.fromEntries(receiver.got('/knowledge').map((r) => [r.payload.type, r.payload.data]));
    expect(byType).toEqual({
      'knowledge.entry.ready': { chatbotId: bot.id, entryId: ready!.id, title: 'hours', source: 'file' },
      'knowledge.entry.failed': { chatbotId: bot.id, entryId: failed!.id, title: 'empty.txt', source: 'file', error: expect.any(String) },
    });
  });
});
