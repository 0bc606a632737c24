// Webhooks through the developer API (docs/api.md, Webhooks) against the real services, with a key
// holding only webhooks:write: an endpoint registered with its secret shown once, a signed test event
// delivered to a local receiver and seen in the log, a redelivery, a rolled secret that signs the next
// delivery, a change and a deletion, the same shapes as the dashboard's, and the refusals: a key
// without the scope (403 naming it), a key kept to some chatbots (403), another workspace's key (404),
// the service's own rules (400 with its message).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_SCOPE_NAMES } from '@parley/common/api-scopes.ts';
import { WEBHOOK_EVENTS } from '@parley/common/webhook-events.ts';
import { LIMIT_INVALID, scopeMissing } from '../src/v1/call.ts';
import { API_V1_ROUTES, type ApiRoute } from '../src/v1/routes.ts';
import { WEBHOOKS_NEED_WHOLE_WORKSPACE } from '../src/v1/webhooks.ts';
import { apiKeys, v1 } from './api-v1-fixtures.ts';
import { waitFor } from './billing-fixtures.ts';
import { registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, startStack, type ApiResponse, type Stack } from './stack.ts';

interface Received {
  headers: Record<string, string>;
  body: string;
}

let stack: Stack;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
/** Statuses the receiver answers with, in turn; 200 once they run out. */
const script: number[] = [];
let owner: Owner;
let hooks: string;
let keys: ReturnType<typeof apiKeys>;

const WEBHOOK_ROUTES = (Object.entries(API_V1_ROUTES) as [string, ApiRoute][]).filter(([, r]) => r.scope === 'webhooks:write');

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      const status = script.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'thanks' : `failure ${status}`);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  // The receiver is on the loopback address, which only KNOWLEDGE_URL_ALLOW_PRIVATE lets the service call;
  // retries come after milliseconds, not minutes.
  stack = await startStack({ chatbotEnv: { KNOWLEDGE_URL_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_MAX_ATTEMPTS: '4' } });
  keys = apiKeys(stack);
  owner = await registerOwner(stack, 'v1-hooks');
  hooks = (await keys.create(owner, ['webhooks:write'])).secret;
});
afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const deliveriesOf = (id: string, query = '') => v1(stack, `/webhooks/${id}/deliveries${query}`, hooks);

/** The endpoint's log once nothing in it is pending and `done` holds. */
async function settledLog(id: string, done: (page: ApiResponse) => boolean): Promise<ApiResponse> {
  const page = await waitFor(
    () => deliveriesOf(id),
    (p) => p.status === 200 && p.body.data.every((d: { status: string }) => d.status !== 'pending') && done(p),
  );
  expect(page.status).toBe(200);
  return page;
}

describe('webhook endpoints through the developer API', () => {
  it('registers an endpoint with its secret once, delivers a signed test event, redelivers, rolls the secret, changes and deletes it', async () => {
    const created = await v1(stack, '/webhooks', hooks, {
      body: { url: receiverUrl, events: ['message.created', 'conversation.started'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    // Events in the catalogue's order, as on the dashboard.
    expect(created.body.endpoint).toEqual({
      id: expect.any(String),
      url: receiverUrl,
      events: ['conversation.started', 'message.created'],
      enabled: true,
      disabledReason: null,
      failingSince: null,
      createdAt: expect.any(String),
    });
    const id: string = created.body.endpoint.id;

    const listed = await v1(stack, '/webhooks', hooks);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ data: [{ ...created.body.endpoint, lastDelivery: null }] });
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');

    const sent = await v1(stack, `/webhooks/${id}/test`, hooks, { body: { eventType: 'feedback.created' } });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ endpointId: id, eventType: 'feedback.created', test: true, status: 'pending', attempts: 0 });

    const page = await settledLog(id, (p) => p.body.data[0]?.status === 'succeeded');
    expect(page.body).toEqual({ data: [expect.objectContaining({ id: sent.body.id })], nextCursor: null });
    expect(page.body.data[0]).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      responseStatus: 200,
      responseExcerpt: 'thanks',
      error: null,
    });
    const delivered = received.find((r) => r.headers['webhook-id'] === sent.body.id)!;
    expect(new Webhook(created.body.secret).verify(delivered.body, delivered.headers)).toMatchObject({
      type: 'feedback.created',
      data: WEBHOOK_EVENTS['feedback.created'].example,
    });

    // The dashboard shows the same endpoint and delivery, field for field.
    const dashboard = await api(stack.url, '/api/workspace/webhooks', { token: owner.token });
    expect((await v1(stack, '/webhooks', hooks)).body.data).toEqual(dashboard.body);
    const dashboardLog = await api(stack.url, `/api/workspace/webhooks/${id}/deliveries`, { token: owner.token });
    expect(page.body.data).toEqual(dashboardLog.body.deliveries);

    const again = await v1(stack, `/webhooks/${id}/deliveries/${sent.body.id}/redeliver`, hooks, { method: 'POST' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: sent.body.id, status: 'pending' });
    const redelivered = await settledLog(id, (p) => p.body.data[0]?.attempts === 2);
    // The redelivery's attempt joined the first one's.
    expect(redelivered.body.data[0].attemptLog).toEqual([
      page.body.data[0].attemptLog[0],
      { attemptedAt: redelivered.body.data[0].lastAttemptAt, responseStatus: 200, durationMs: expect.any(Number), error: null },
    ]);
    expect(received.filter((r) => r.headers['webhook-id'] === sent.body.id)).toHaveLength(2);

    const rolled = await v1(stack, `/webhooks/${id}/roll-secret`, hooks, { method: 'POST' });
    expect(rolled.status).toBe(200);
    expect(rolled.body).toEqual({ secret: expect.stringMatching(/^whsec_/) });
    expect(rolled.body.secret).not.toBe(created.body.secret);
    // The next delivery is signed with the new secret.
    const next = await v1(stack, `/webhooks/${id}/test`, hooks, { method: 'POST' });
    expect(next.status).toBe(201);
    // No type given: the endpoint's first subscribed one.
    expect(next.body.eventType).toBe('conversation.started');
    const nextDelivered = await waitFor(
      async () => received.find((r) => r.headers['webhook-id'] === next.body.id),
      (r) => r !== undefined,
    );
    expect(() => new Webhook(rolled.body.secret).verify(nextDelivered!.body, nextDelivered!.headers)).not.toThrow();
    expect(() => new Webhook(created.body.secret).verify(nextDelivered!.body, nextDelivered!.headers)).toThrow();

    // Pages of the log, newest first.
    const first = await deliveriesOf(id, '?limit=1');
    expect(first.body.data.map((d: { id: string }) => d.id)).toEqual([next.body.id]);
    const second = await deliveriesOf(id, `?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: sent.body.id })], nextCursor: null });

    const changed = await v1(stack, `/webhooks/${id}`, hooks, { method: 'PATCH', body: { enabled: false, events: ['plan.changed'] } });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ...created.body.endpoint, enabled: false, events: ['plan.changed'] });

    const deleted = await v1(stack, `/webhooks/${id}`, hooks, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, deleted: true });
    expect((await v1(stack, '/webhooks', hooks)).body).toEqual({ data: [] });
    const gone = await v1(stack, `/webhooks/${id}`, hooks, { method: 'DELETE' });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: { code: 'not_found', message: 'Webhook endpoint not found' } });
  });

  it('shows each attempt of a delivery: three failures, then the success', async () => {
    const created = await v1(stack, '/webhooks', hooks, { body: { url: receiverUrl, events: ['credit.low'] } });
    const id = created.body.endpoint.id;
    script.push(500, 502, 503);
    const sent = await v1(stack, `/webhooks/${id}/test`, hooks, { method: 'POST' });
    const page = await settledLog(id, (p) => p.body.data[0]?.status === 'succeeded');
    expect(page.body.data[0]).toMatchObject({ id: sent.body.id, attempts: 4, responseStatus: 200, error: null });
    expect(page.body.data[0].attemptLog.map((a: { responseStatus: number; error: string | null }) => [a.responseStatus, a.error])).toEqual([
      [500, 'HTTP 500'],
      [502, 'HTTP 502'],
      [503, 'HTTP 503'],
      [200, null],
    ]);
    await v1(stack, `/webhooks/${id}`, hooks, { method: 'DELETE' });
  });

  it('creates an endpoint disabled when asked', async () => {
    const created = await v1(stack, '/webhooks', hooks, { body: { url: receiverUrl, events: ['credit.low'], enabled: false } });
    expect(created.status).toBe(201);
    expect(created.body.endpoint.enabled).toBe(false);
    expect((await v1(stack, `/webhooks/${created.body.endpoint.id}`, hooks, { method: 'DELETE' })).status).toBe(200);
  });

  it("answers the service's refusals and bad input with 400 and the reason", async () => {
    const cases: Array<[unknown, string]> = [
      [{ url: 'not a url', events: ['credit.low'] }, 'The endpoint URL must be a valid https:// address'],
      [{ url: receiverUrl, events: [] }, 'Choose at least one event'],
      [{ url: receiverUrl, events: ['order.shipped'] }, 'Unknown event type: order.shipped'],
      [{ url: receiverUrl, events: 'credit.low' }, 'events: '],
      [{ url: receiverUrl }, 'events: '],
      [{ url: receiverUrl, events: ['credit.low'], enabled: 'yes' }, 'enabled: '],
    ];
    for (const [body, message] of cases) {
      const res = await v1(stack, '/webhooks', hooks, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.message.startsWith(message), res.body.error.message).toBe(true);
    }
    const created = await v1(stack, '/webhooks', hooks, { body: { url: receiverUrl, events: ['credit.low'] } });
    const id = created.body.endpoint.id;
    const tooMany = await deliveriesOf(id, '?limit=500');
    expect([tooMany.status, tooMany.body.error]).toEqual([400, { code: 'invalid_request', message: LIMIT_INVALID }]);
    expect((await deliveriesOf(id, '?cursor=nonsense')).status).toBe(400);
    const test = await v1(stack, `/webhooks/${id}/test`, hooks, { body: { eventType: 'nope' } });
    expect([test.status, test.body.error.message]).toEqual([400, 'Unknown event type: nope']);
    const unknown = await v1(stack, `/webhooks/${id}/deliveries/msg_unknown/redeliver`, hooks, { method: 'POST' });
    expect([unknown.status, unknown.body.error]).toEqual([404, { code: 'not_found', message: 'Webhook delivery not found' }]);
    await v1(stack, `/webhooks/${id}`, hooks, { method: 'DELETE' });
  });
});

describe('who may manage webhooks', () => {
  it('refuses every webhook route to a key without webhooks:write, naming the scope', async () => {
    const others = (
      await keys.create(
        owner,
        API_SCOPE_NAMES.filter((s) => s !== 'webhooks:write'),
      )
    ).secret;
    const endpoint = (await v1(stack, '/webhooks', hooks, { body: { url: receiverUrl, events: ['credit.low'] } })).body.endpoint;
    expect(WEBHOOK_ROUTES).toHaveLength(8);
    for (const [key] of WEBHOOK_ROUTES) {
      const [method, template] = key.split(' ');
      const path = template.slice('/api/v1'.length).replace(':id', endpoint.id).replace(':deliveryId', 'msg_x');
      const res = await v1(stack, path, others, { method, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
      expect([key, res.status, res.body]).toEqual([key, 403, { error: { code: 'forbidden', message: scopeMissing('webhooks:write') } }]);
    }
    // Untouched.
    expect((await v1(stack, '/webhooks', hooks)).body.data).toMatchObject([{ id: endpoint.id, enabled: true }]);
    await v1(stack, `/webhooks/${endpoint.id}`, hooks, { method: 'DELETE' });
  });

  it("refuses a key kept to some chatbots, and finds nothing of another workspace's", async () => {
    const chatbot = await api(stack.url, '/api/chatbot', { body: { name: 'Kept' }, token: owner.token });
    const kept = (await keys.create(owner, ['webhooks:write'], { chatbotIds: [chatbot.body._id] })).secret;
    const refused = await v1(stack, '/webhooks', kept);
    expect([refused.status, refused.body.error]).toEqual([403, { code: 'forbidden', message: WEBHOOKS_NEED_WHOLE_WORKSPACE }]);
    expect((await v1(stack, '/webhooks', kept, { body: { url: receiverUrl, events: ['credit.low'] } })).status).toBe(403);

    const endpoint = (await v1(stack, '/webhooks', hooks, { body: { url: receiverUrl, events: ['credit.low'] } })).body.endpoint;
    const stranger = await registerOwner(stack, 'v1-hooks-stranger');
    const theirs = (await keys.create(stranger, ['webhooks:write'])).secret;
    expect((await v1(stack, '/webhooks', theirs)).body).toEqual({ data: [] });
    for (const [method, path] of [
      ['PATCH', `/webhooks/${endpoint.id}`],
      ['DELETE', `/webhooks/${endpoint.id}`],
      ['POST', `/webhooks/${endpoint.id}/roll-secret`],
      ['GET', `/webhooks/${endpoint.id}/deliveries`],
      ['POST', `/webhooks/${endpoint.id}/test`],
    ]) {
      const res = await v1(stack, path, theirs, { method, body: method === 'PATCH' ? { enabled: false } : undefined });
      expect([path, res.status, res.body.error?.code]).toEqual([path, 404, 'not_found']);
    }
    expect((await v1(stack, '/webhooks', hooks)).body.data).toMatchObject([{ id: endpoint.id, enabled: true }]);
    await v1(stack, `/webhooks/${endpoint.id}`, hooks, { method: 'DELETE' });
  });
});
