// Webhooks through the gateway (docs/adr/0032-webhooks.md): a workspace's endpoints over REST and
// GraphQL, the secret shown once (on creation and on a roll), a test event delivered signed to a local
// receiver and seen in the delivery log, a redelivery, the service's refusals of bad addresses as
// clear 400s, webhooks:manage for owners and admins only, and another workspace's endpoint not found.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS } from '@parley/common/webhook-events.ts';
import { roleLacksPermission } from '../src/http/errors.ts';
import { DELIVERY_PAGE_INVALID, WEBHOOK_DELETED_MESSAGE } from '../src/features/webhooks/webhooks.ts';
import { waitFor } from './billing-fixtures.ts';
import { registerOwner } from './chatbot-fixtures.ts';
import { startStack, type Stack } from './stack.ts';
import { createTeam, gqlIn, inWorkspace, type Team } from './workspace-fixtures.ts';

interface Received {
  headers: Record<string, string>;
  body: string;
}

let stack: Stack;
let team: Team;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  // The receiver is on the loopback address, which only KNOWLEDGE_URL_ALLOW_PRIVATE lets the service call.
  stack = await startStack({ chatbotEnv: { KNOWLEDGE_URL_ALLOW_PRIVATE: '1' } });
  team = await createTeam(stack, 'webhooks');
});
afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const ENDPOINT_FIELDS = 'id url events enabled disabledReason failingSince createdAt';
const DELIVERY_FIELDS =
  'id endpointId eventType status attempts responseStatus durationMs responseExcerpt error test payload createdAt lastAttemptAt attemptLog { attemptedAt responseStatus durationMs error }';

describe('webhook endpoints over REST', () => {
  it('lists the event catalogue with descriptions', async () => {
    const res = await inWorkspace(stack, team.id, '/api/workspace/webhooks/event-types', { token: team.owner.token });
    expect(res.status).toBe(200);
    expect(res.body.map((t: { type: string }) => t.type)).toEqual(WEBHOOK_EVENT_TYPES);
    expect(res.body[0]).toEqual({
      type: 'conversation.started',
      version: 1,
      description: WEBHOOK_EVENTS['conversation.started'].description,
    });
  });

  it('creates an endpoint with its secret once, sends a signed test event and logs it, redelivers it, rolls the secret and deletes', async () => {
    const created = await inWorkspace(stack, team.id, '/api/workspace/webhooks', {
      body: { url: receiverUrl, events: ['message.created', 'conversation.started'] },
      token: team.members.admin.token,
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    // Events in the catalogue's order.
    expect(created.body.endpoint).toMatchObject({ url: receiverUrl, events: ['conversation.started', 'message.created'], enabled: true });
    const id: string = created.body.endpoint.id;

    const listed = await inWorkspace(stack, team.id, '/api/workspace/webhooks', { token: team.owner.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([{ ...created.body.endpoint, lastDelivery: null }]);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');

    const sent = await inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}/test`, {
      body: { eventType: 'feedback.created' },
      token: team.owner.token,
    });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ endpointId: id, eventType: 'feedback.created', test: true });

    const page = await waitFor(
      async () => (await inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}/deliveries`, { token: team.owner.token })).body,
      (body) => body.deliveries?.[0]?.status === 'succeeded',
    );
    expect(page.nextCursor).toBeNull();
    expect(page.deliveries).toHaveLength(1);
    expect(page.deliveries[0]).toMatchObject({
      id: sent.body.id,
      eventType: 'feedback.created',
      status: 'succeeded',
      attempts: 1,
      responseStatus: 200,
      responseExcerpt: 'thanks',
      error: null,
      test: true,
    });
    expect(page.deliveries[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(page.deliveries[0].attemptLog).toEqual([
      { attemptedAt: page.deliveries[0].lastAttemptAt, responseStatus: 200, durationMs: page.deliveries[0].durationMs, error: null },
    ]);

    // The receiver got it, signed with the secret shown on creation.
    const delivered = received.find((r) => r.headers['webhook-id'] === sent.body.id)!;
    const verified = new Webhook(created.body.secret).verify(delivered.body, delivered.headers) as { type: string; data: unknown };
    expect(verified).toMatchObject({ type: 'feedback.created', data: WEBHOOK_EVENTS['feedback.created'].example });

    const withLast = await inWorkspace(stack, team.id, '/api/workspace/webhooks', { token: team.owner.token });
    expect(withLast.body[0].lastDelivery).toMatchObject({ id: sent.body.id, status: 'succeeded', responseStatus: 200 });

    const again = await inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}/deliveries/${sent.body.id}/redeliver`, {
      method: 'POST',
      token: team.owner.token,
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(sent.body.id);
    await waitFor(
      async () => received.filter((r) => r.headers['webhook-id'] === sent.body.id).length,
      (count) => count >= 2,
    );

    const rolled = await inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}/roll-secret`, {
      method: 'POST',
      token: team.owner.token,
    });
    expect(rolled.status).toBe(200);
    expect(rolled.body.secret).toMatch(/^whsec_/);
    expect(rolled.body.secret).not.toBe(created.body.secret);

    const changed = await inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}`, {
      method: 'PATCH',
      body: { enabled: false, events: ['plan.changed'] },
      token: team.owner.token,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id, enabled: false, events: ['plan.changed'], url: receiverUrl });

    const deleted = await inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}`, { method: 'DELETE', token: team.owner.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body.message).toBe(WEBHOOK_DELETED_MESSAGE);
    expect((await inWorkspace(stack, team.id, '/api/workspace/webhooks', { token: team.owner.token })).body).toEqual([]);
  });

  it('creates an endpoint disabled when asked', async () => {
    const created = await inWorkspace(stack, team.id, '/api/workspace/webhooks', {
      body: { url: receiverUrl, events: ['credit.low'], enabled: false },
      token: team.owner.token,
    });
    expect(created.status).toBe(201);
    expect(created.body.endpoint.enabled).toBe(false);
    expect(created.body.secret).toMatch(/^whsec_/);
    await inWorkspace(stack, team.id, `/api/workspace/webhooks/${created.body.endpoint.id}`, { method: 'DELETE', token: team.owner.token });
  });

  it('answers bad input with 400 and the reason', async () => {
    const post = (body: unknown) => inWorkspace(stack, team.id, '/api/workspace/webhooks', { body, token: team.owner.token });
    const cases: Array<[unknown, string]> = [
      [{ url: 'not a url', events: ['credit.low'] }, 'The endpoint URL must be a valid https:// address'],
      [{ url: 'ftp://example.com/', events: ['credit.low'] }, 'The endpoint URL must be a valid https:// address'],
      [{ url: receiverUrl, events: [] }, 'Choose at least one event'],
      [{ url: receiverUrl, events: ['order.shipped'] }, 'Unknown event type: order.shipped'],
      [{ url: receiverUrl, events: 'credit.low' }, 'events must be an array of strings'],
      [{ url: receiverUrl, events: ['credit.low'], enabled: 'yes' }, 'enabled must be true or false'],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect([res.status, res.body.message]).toEqual([400, message]);
    }
    const created = await post({ url: receiverUrl, events: ['credit.low'] });
    const id = created.body.endpoint.id;
    const page = await inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}/deliveries?first=500`, { token: team.owner.token });
    expect([page.status, page.body.message]).toEqual([400, DELIVERY_PAGE_INVALID]);
    const test = await inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}/test`, {
      body: { eventType: 'nope' },
      token: team.owner.token,
    });
    expect([test.status, test.body.message]).toEqual([400, 'Unknown event type: nope']);
    await inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}`, { method: 'DELETE', token: team.owner.token });
  });
});

describe('webhook endpoints over GraphQL', () => {
  it('creates, lists with the last delivery, pages the log, sends a test event, redelivers, rolls, updates and deletes', async () => {
    const token = team.owner.token;
    const types = await gqlIn(stack, team.id, token, '{ webhookEventTypes { type description } }');
    expect(types.body.data.webhookEventTypes).toHaveLength(WEBHOOK_EVENT_TYPES.length);

    const created = await gqlIn(
      stack,
      team.id,
      token,
      `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { ${ENDPOINT_FIELDS} } } }`,
      { input: { url: receiverUrl, events: ['plan.changed'] } },
    );
    expect(created.body.errors).toBeUndefined();
    const { secret, endpoint } = created.body.data.createWebhookEndpoint;
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint).toMatchObject({ url: receiverUrl, events: ['plan.changed'], enabled: true, disabledReason: null, failingSince: null });

    const sent = await gqlIn(stack, team.id, token, `mutation($id: ID!) { sendTestWebhook(endpointId: $id) { ${DELIVERY_FIELDS} } }`, {
      id: endpoint.id,
    });
    expect(sent.body.data.sendTestWebhook).toMatchObject({ eventType: 'plan.changed', status: 'PENDING', test: true });

    const listQuery = `{ webhookEndpoints { id lastDelivery { id status responseStatus } } }`;
    const listed = await waitFor(
      async () => (await gqlIn(stack, team.id, token, listQuery)).body.data.webhookEndpoints,
      (endpoints) => endpoints[0]?.lastDelivery?.status === 'SUCCEEDED',
    );
    expect(listed).toEqual([
      { id: endpoint.id, lastDelivery: { id: sent.body.data.sendTestWebhook.id, status: 'SUCCEEDED', responseStatus: 200 } },
    ]);

    // A second test event, then the log a page at a time, newest first.
    await gqlIn(stack, team.id, token, `mutation($id: ID!) { sendTestWebhook(endpointId: $id, eventType: "credit.low") { id } }`, {
      id: endpoint.id,
    });
    const pageQuery = `query($id: ID!, $after: String) { webhookDeliveries(endpointId: $id, first: 1, after: $after) { deliveries { ${DELIVERY_FIELDS} } nextCursor } }`;
    const first = await gqlIn(stack, team.id, token, pageQuery, { id: endpoint.id });
    expect(first.body.data.webhookDeliveries.deliveries.map((d: { eventType: string }) => d.eventType)).toEqual(['credit.low']);
    const second = await gqlIn(stack, team.id, token, pageQuery, { id: endpoint.id, after: first.body.data.webhookDeliveries.nextCursor });
    expect(second.body.data.webhookDeliveries).toMatchObject({ deliveries: [{ eventType: 'plan.changed' }], nextCursor: null });
    // Each attempt, with what it came to.
    const [attempt] = second.body.data.webhookDeliveries.deliveries[0].attemptLog;
    expect(second.body.data.webhookDeliveries.deliveries[0].attemptLog).toHaveLength(1);
    expect(attempt).toMatchObject({
      responseStatus: 200,
      error: null,
      attemptedAt: second.body.data.webhookDeliveries.deliveries[0].lastAttemptAt,
    });

    const again = await gqlIn(
      stack,
      team.id,
      token,
      'mutation($e: ID!, $d: ID!) { redeliverWebhook(endpointId: $e, deliveryId: $d) { id } }',
      {
        e: endpoint.id,
        d: sent.body.data.sendTestWebhook.id,
      },
    );
    expect(again.body.data.redeliverWebhook.id).toBe(sent.body.data.sendTestWebhook.id);

    const rolled = await gqlIn(stack, team.id, token, 'mutation($id: ID!) { rollWebhookSecret(id: $id) { secret } }', { id: endpoint.id });
    expect(rolled.body.data.rollWebhookSecret.secret).toMatch(/^whsec_/);

    const updated = await gqlIn(
      stack,
      team.id,
      token,
      `mutation($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { ${ENDPOINT_FIELDS} } }`,
      { id: endpoint.id, input: { url: `${receiverUrl}/v2`, enabled: false } },
    );
    expect(updated.body.data.updateWebhookEndpoint).toMatchObject({ url: `${receiverUrl}/v2`, enabled: false, events: ['plan.changed'] });

    const refused = await gqlIn(
      stack,
      team.id,
      token,
      'mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: { url: "nope" }) { id } }',
      { id: endpoint.id },
    );
    expect(refused.body.errors[0]).toMatchObject({
      message: 'The endpoint URL must be a valid https:// address',
      extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
    });

    const deleted = await gqlIn(stack, team.id, token, 'mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }', { id: endpoint.id });
    expect(deleted.body.data.deleteWebhookEndpoint).toBe(true);
  });
});

describe('who may manage webhooks', () => {
  it('refuses editors, agents and viewers with 403 over REST and GraphQL', async () => {
    const created = await inWorkspace(stack, team.id, '/api/workspace/webhooks', {
      body: { url: receiverUrl, events: ['credit.low'] },
      token: team.owner.token,
    });
    const id = created.body.endpoint.id;
    const message = roleLacksPermission('webhooks:manage');
    expect(message).toBe('Only an admin or above in this workspace can manage webhooks.');
    for (const role of ['editor', 'agent', 'viewer'] as const) {
      const token = team.members[role].token;
      const calls = [
        inWorkspace(stack, team.id, '/api/workspace/webhooks', { token }),
        inWorkspace(stack, team.id, '/api/workspace/webhooks/event-types', { token }),
        inWorkspace(stack, team.id, '/api/workspace/webhooks', { body: { url: receiverUrl, events: ['credit.low'] }, token }),
        inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}`, { method: 'PATCH', body: { enabled: false }, token }),
        inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}`, { method: 'DELETE', token }),
        inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}/roll-secret`, { method: 'POST', token }),
        inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}/test`, { method: 'POST', token }),
        inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}/deliveries`, { token }),
      ];
      for (const res of await Promise.all(calls)) expect([role, res.status, res.body.message]).toEqual([role, 403, message]);
      const gql = await gqlIn(stack, team.id, token, '{ webhookEndpoints { id } }');
      expect(gql.body.errors[0]).toMatchObject({ message, extensions: { code: 'FORBIDDEN' } });
      const roll = await gqlIn(stack, team.id, token, 'mutation($id: ID!) { rollWebhookSecret(id: $id) { secret } }', { id });
      expect(roll.body.errors[0].message).toBe(message);
    }
    // Still there, unchanged.
    const listed = await inWorkspace(stack, team.id, '/api/workspace/webhooks', { token: team.owner.token });
    expect(listed.body).toMatchObject([{ id, enabled: true }]);
    await inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}`, { method: 'DELETE', token: team.owner.token });
  });

  it("answers 404 for another workspace's endpoint and delivery, and lists only the workspace's own", async () => {
    const created = await inWorkspace(stack, team.id, '/api/workspace/webhooks', {
      body: { url: receiverUrl, events: ['credit.low'] },
      token: team.owner.token,
    });
    const id = created.body.endpoint.id;
    const sent = await inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}/test`, { method: 'POST', token: team.owner.token });
    expect(sent.status).toBe(201);

    // The team's admin in their own personal workspace, and a stranger.
    const stranger = await registerOwner(stack, 'webhooks-stranger');
    for (const token of [team.members.admin.token, stranger.token]) {
      expect((await inWorkspace(stack, undefined, '/api/workspace/webhooks', { token })).body).toEqual([]);
      const calls = [
        inWorkspace(stack, undefined, `/api/workspace/webhooks/${id}`, { method: 'PATCH', body: { enabled: false }, token }),
        inWorkspace(stack, undefined, `/api/workspace/webhooks/${id}`, { method: 'DELETE', token }),
        inWorkspace(stack, undefined, `/api/workspace/webhooks/${id}/roll-secret`, { method: 'POST', token }),
        inWorkspace(stack, undefined, `/api/workspace/webhooks/${id}/test`, { method: 'POST', token }),
        inWorkspace(stack, undefined, `/api/workspace/webhooks/${id}/deliveries`, { token }),
        inWorkspace(stack, undefined, `/api/workspace/webhooks/${id}/deliveries/${sent.body.id}/redeliver`, { method: 'POST', token }),
      ];
      for (const res of await Promise.all(calls)) expect(res.status).toBe(404);
      const gql = await gqlIn(stack, undefined, token, 'query($id: ID!) { webhookDeliveries(endpointId: $id) { nextCursor } }', { id });
      expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
    const listed = await inWorkspace(stack, team.id, '/api/workspace/webhooks', { token: team.owner.token });
    expect(listed.body).toMatchObject([{ id, enabled: true }]);
    await inWorkspace(stack, team.id, `/api/workspace/webhooks/${id}`, { method: 'DELETE', token: team.owner.token });
  });
});

describe('addresses', () => {
  it('refuses plain http and private addresses with 400 when the service guards them (the default)', async () => {
    const guarded = await startStack();
    try {
      const owner = await registerOwner(guarded, 'webhooks-guarded');
      const cases: Array<[string, string]> = [
        ['http://example.com/hooks', 'The endpoint URL must be a valid https:// address'],
        ['https://127.0.0.1/hooks', 'This address is not allowed'],
        ['https://10.0.0.7/hooks', 'This address is not allowed'],
        ['https://[::1]/hooks', 'This address is not allowed'],
      ];
      for (const [url, message] of cases) {
        const rest = await inWorkspace(guarded, undefined, '/api/workspace/webhooks', {
          body: { url, events: ['credit.low'] },
          token: owner.token,
        });
        expect([url, rest.status, rest.body.message]).toEqual([url, 400, message]);
      }
      const gql = await gqlIn(
        guarded,
        undefined,
        owner.token,
        'mutation { createWebhookEndpoint(input: { url: "https://192.168.1.1/", events: ["credit.low"] }) { secret } }',
      );
      expect(gql.body.errors[0]).toMatchObject({ message: 'This address is not allowed', extensions: { http: { status: 400 } } });
    } finally {
      await guarded.close();
    }
  });
});
