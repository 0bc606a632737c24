// A chatbot's HTTP actions through the owner's REST (ADR 45): added, tested against a local target
// API on loopback (allowed by the chatbot service's OUTBOUND_ALLOW), changed, logged and deleted,
// each change in the workspace's audit log; secrets never answered.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, startStack, type Stack } from './stack.ts';

const API_KEY = 'sk_live_orders_0123456789abcdef';
let stack: Stack;
let target: Server;
let origin: string;
let owner: Owner;
let chatbotId: string;

beforeAll(async () => {
  target = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ order: { status: 'shipped', secretNote: 'staff only' }, echo: req.headers.authorization }));
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  stack = await startStack({ chatbotEnv: { OUTBOUND_ALLOW: '127.0.0.1' } });
  owner = await registerOwner(stack, 'actions');
  const created = await api(stack.url, '/api/chatbot', { body: { name: 'Shop' }, token: owner.token });
  chatbotId = created.body._id;
});
afterAll(async () => {
  await stack?.close();
  target?.closeAllConnections();
  await new Promise((r) => target?.close(r));
});

const definition = () => ({
  name: 'look_up_order',
  whenToUse: 'When the visitor asks where their order is',
  inputs: [{ name: 'order_id', type: 'string', required: true }],
  method: 'GET',
  url: `${origin}/orders/{order_id}`,
  headers: [{ name: 'Authorization', value: 'Bearer {secret.API_KEY}' }],
  secrets: [{ name: 'API_KEY', value: API_KEY }],
  responseFields: ['order.status', 'echo'],
});

describe('actions over REST', () => {
  it('adds, tests, logs, changes and deletes an action, audited, never answering the secret', async () => {
    const path = `/api/chatbot/${chatbotId}/actions`;
    const created = await api(stack.url, path, { body: { definition: definition() }, token: owner.token });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'look_up_order',
      method: 'GET',
      confirm: false,
      secrets: [{ name: 'API_KEY', hint: '••••cdef' }],
    });
    const id = created.body.id;

    const test = await api(stack.url, `${path}/${id}/test`, { body: { inputs: { order_id: '1042' } }, token: owner.token });
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({ status: 'ok', httpStatus: 200, fieldsRead: ['order.status', 'echo'] });
    expect(JSON.parse(test.body.result)).toEqual({ 'order.status': 'shipped', echo: 'Bearer ••••' });
    expect(test.body.request).toMatchObject({ method: 'GET', url: `${origin}/orders/1042`, headers: { authorization: 'Bearer ••••' } });

    const calls = await api(stack.url, `${path}/calls?actionId=${id}`, { token: owner.token });
    expect(calls.body.map((c: { source: string; status: string; inputs: unknown }) => [c.source, c.status, c.inputs])).toEqual([
      ['test', 'ok', { order_id: '1042' }],
    ]);

    const changed = await api(stack.url, `${path}/${id}`, {
      method: 'PUT',
      body: { definition: { ...definition(), whenToUse: 'Order questions', secrets: [{ name: 'API_KEY' }] } },
      token: owner.token,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.secrets).toEqual([{ name: 'API_KEY', hint: '••••cdef' }]);

    const bad = await api(stack.url, path, {
      body: { definition: { ...definition(), url: `${origin}/{secret.API_KEY}` } },
      token: owner.token,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Secrets may be used in headers and query values only');
    const wrongShape = await api(stack.url, path, { body: { definition: { ...definition(), inputs: 'x' } }, token: owner.token });
    expect(wrongShape.status).toBe(400);

    const listed = await api(stack.url, path, { token: owner.token });
    expect(listed.body.map((a: { whenToUse: string }) => a.whenToUse)).toEqual(['Order questions']);
    const deleted = await api(stack.url, `${path}/${id}`, { method: 'DELETE', token: owner.token });
    expect(deleted.body).toEqual({ message: 'Action deleted' });
    expect((await api(stack.url, path, { token: owner.token })).body).toEqual([]);

    for (const action of ['chatbot.action_created', 'chatbot.action_changed', 'chatbot.action_deleted']) {
      const log = await api(stack.url, `/api/workspace/audit-log?action=${action}`, { token: owner.token });
      expect(log.body.events).toEqual([expect.objectContaining({ action, target: chatbotId, actorEmail: owner.email })]);
    }
    const everything = JSON.stringify([created.body, test.body, calls.body, changed.body, listed.body]);
    expect(everything).not.toContain(API_KEY);
  });

  it("answers another workspace's chatbot as not found", async () => {
    const other = await registerOwner(stack, 'actions-other');
    const res = await api(stack.url, `/api/chatbot/${chatbotId}/actions`, { token: other.token });
    expect(res.status).toBe(404);
  });
});
