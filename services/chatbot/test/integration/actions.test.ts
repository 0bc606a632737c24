// HTTP actions end to end on the chatbot service: declared through the ActionService, secrets sealed
// at rest, run against a local target API on loopback (allowed through the operator's allow-list,
// OUTBOUND_ALLOW) through the one outbound guard, logged, and read by the chat service as tools.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionService } from '@parley/proto/parley/chatbot/v1/actions_pb.js';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from './harness.ts';

/** Any answer as text (proto messages carry bigints), to search it for a secret. */
const asText = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

const API_KEY = 'sk_live_orders_0123456789abcdef';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let svc: TestChatbotService;
let client: ReturnType<typeof createServiceClient<typeof ActionService>>;
let api: Server;
let internal: Server;
let origin: string;
const seen: Seen[] = [];
let cancels = 0;

beforeAll(async () => {
  internal = createServer((_req, res) => res.end('{"secret":"internal"}'));
  await new Promise<void>((r) => internal.listen(0, '127.0.0.2', r));
  api = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://x');
      const order = url.pathname.match(/^\/orders\/([^/]+)$/);
      const cancel = url.pathname.match(/^\/orders\/([^/]+)\/cancel$/);
      res.setHeader('content-type', 'application/json');
      if (order)
        res.end(
          JSON.stringify({
            order: { id: decodeURIComponent(order[1]), status: 'shipped', total: '42.00', internalNote: 'staff only' },
            items: [
              { name: 'Kettle', sku: 'K1' },
              { name: 'Mug', sku: 'M2' },
            ],
            // An API that echoes the credential it was given: the bot must never read it.
            debug: { authorization: req.headers.authorization },
          }),
        );
      else if (cancel && req.method === 'POST') {
        cancels++;
        res.end(JSON.stringify({ cancelled: true, order: { id: decodeURIComponent(cancel[1]) } }));
      } else if (url.pathname === '/bad-json') res.end('{"order": nope');
      else if (url.pathname === '/to-internal')
        res.writeHead(302, { location: `http://127.0.0.2:${(internal.address() as AddressInfo).port}/` }).end();
      else res.writeHead(404).end('{}');
    });
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  svc = await startChatbotService({ OUTBOUND_ALLOW: '127.0.0.1' });
  client = createServiceClient(ActionService, svc.url);
});

afterAll(async () => {
  await svc?.stop();
  api?.closeAllConnections();
  internal?.closeAllConnections();
  await new Promise((r) => api?.close(r));
  await new Promise((r) => internal?.close(r));
});

/** An action's definition as a test writes it (the RPC's ActionDefinition fields). */
type Definition = Record<string, unknown> & { inputs?: Record<string, unknown>[] };
const lookUpOrder = (): Definition => ({
  name: 'look_up_order',
  whenToUse: 'When the visitor asks where their order is',
  inputs: [{ name: 'order_id', type: 'string', description: 'The order number', required: true }],
  method: 'GET',
  url: `${origin}/orders/{order_id}`,
  query: [{ name: 'expand', value: 'items' }],
  headers: [{ name: 'Authorization', value: 'Bearer {secret.API_KEY}' }],
  secrets: [{ name: 'API_KEY', value: API_KEY }],
  responseFields: ['order.status', 'order.total', 'items.name'],
});
const cancelOrder = (): Definition => ({
  name: 'cancel_order',
  whenToUse: 'When the visitor wants to cancel an order',
  inputs: [{ name: 'order_id', type: 'string', required: true }],
  method: 'POST',
  url: `${origin}/orders/{order_id}/cancel`,
  headers: [{ name: 'X-Api-Key', value: '{secret.API_KEY}' }],
  body: '{"reason": "{reason}", "order": "{order_id}"}',
  secrets: [{ name: 'API_KEY', value: API_KEY }],
  responseFields: ['cancelled'],
});

/** cancel_order with one more input. */
const cancelOrderWith = (input: { name: string; type: string; enum?: string[] }): Definition => ({
  ...cancelOrder(),
  inputs: [{ name: 'order_id', type: 'string', required: true }, input],
});

async function chatbotWith(...definitions: Definition[]) {
  const ownerId = newOwner();
  const chatbot = await svc.createChatbot(ownerId);
  const actions = [];
  for (const definition of definitions)
    actions.push((await client.createAction({ ownerId, chatbotId: chatbot.id, definition: definition as never })).action!);
  return { ownerId, chatbot, actions };
}

describe('declaring actions', () => {
  it('keeps secrets sealed, shows their last four only, and confirms writes by default', async () => {
    const fix = cancelOrderWith({ name: 'reason', type: 'string' });
    const { ownerId, chatbot, actions } = await chatbotWith(lookUpOrder(), fix);
    const [get, post] = actions;
    expect(get.definition!.confirm).toBe(false);
    expect(post.definition!.confirm).toBe(true);
    expect(get.definition!.secrets).toEqual([expect.objectContaining({ name: 'API_KEY', value: '', hint: '••••cdef' })]);
    const listed = await client.listActions({ ownerId, chatbotId: chatbot.id });
    expect(asText(listed)).not.toContain(API_KEY);
    const rows = await svc.db.chatbotAction.findMany({ where: { chatbotId: chatbot.id } });
    expect(JSON.stringify(rows)).not.toContain(API_KEY);
    expect(rows[0].secrets).toMatch(/^v1\./);
    expect((await svc.db.chatbot.findUniqueOrThrow({ where: { id: chatbot.id } })).actionCount).toBe(2);
  });

  it('keeps a secret given empty on an update, and gives the tools (no URL, no secret) with the chatbot', async () => {
    const { ownerId, chatbot, actions } = await chatbotWith(lookUpOrder());
    const definition = { ...lookUpOrder(), whenToUse: 'Order status questions', secrets: [{ name: 'API_KEY', value: '' }] };
    const updated = await client.updateAction({ ownerId, chatbotId: chatbot.id, actionId: actions[0].id, definition: definition as never });
    expect(updated.action!.definition!.secrets[0].hint).toBe('••••cdef');
    const test = await client.testAction({ ownerId, chatbotId: chatbot.id, actionId: actions[0].id, inputs: { order_id: '1042' } });
    expect(test.status).toBe('ok');
    expect(seen.at(-1)!.headers.authorization).toBe(`Bearer ${API_KEY}`);

    const knowledge = await svc.client.getPromptKnowledge({
      uniqueId: chatbot.uniqueId,
      query: 'where is my order',
      budgetChars: 1000,
      k: 0,
    });
    expect(knowledge.chatbot!.actions.map((a) => [a.name, a.whenToUse, a.confirm])).toEqual([
      ['look_up_order', 'Order status questions', false],
    ]);
    expect(asText(knowledge)).not.toContain(API_KEY);
    expect(asText(knowledge)).not.toContain(origin);
    const none = await svc.createChatbot(newOwner());
    expect(
      (await svc.client.getPromptKnowledge({ uniqueId: none.uniqueId, query: 'x', budgetChars: 1000, k: 0 })).chatbot!.actions,
    ).toEqual([]);

    await client.deleteAction({ ownerId, chatbotId: chatbot.id, actionId: actions[0].id });
    expect((await svc.db.chatbot.findUniqueOrThrow({ where: { id: chatbot.id } })).actionCount).toBe(0);
  });

  it.each<[string, Partial<Definition>, string]>([
    ['a secret in the URL', { url: `${origin}/orders/{secret.API_KEY}` }, 'Secrets may be used in headers and query values only'],
    ['an undeclared input', { url: `${origin}/orders/{order_number}` }, '{order_number} is not a declared input'],
    ['a placeholder in the host', { url: 'https://{order_id}.example.com/' }, "Placeholders may not stand in the URL's host"],
    ['an undeclared secret', { headers: [{ name: 'Authorization', value: '{secret.TOKEN}' }] }, '{secret.TOKEN} is not a declared secret'],
    ['a body on GET', { body: '{}' }, 'A GET action has no body'],
    [
      'a body that is not JSON',
      { method: 'POST', body: '{"a": {order_id}}' },
      'The body must be JSON (placeholders inside strings, e.g. "{order_id}")',
    ],
    ['a reserved header', { headers: [{ name: 'Host', value: 'x' }] }, 'The header Host cannot be set'],
    ['a bad name', { name: 'Look Up' }, 'The name is lower case letters, digits and underscores (at most 48), starting with a letter'],
    ['a scheme other than http(s)', { url: 'ftp://127.0.0.1/orders/{order_id}' }, 'Only https and http addresses may be reached'],
  ])('refuses %s', async (_what, change, message) => {
    const ownerId = newOwner();
    const chatbot = await svc.createChatbot(ownerId);
    await expectRpcError(
      client.createAction({ ownerId, chatbotId: chatbot.id, definition: { ...lookUpOrder(), ...change } as never }),
      Code.InvalidArgument,
      message,
    );
  });

  it('answers another owner as if the chatbot did not exist', async () => {
    const { chatbot, actions } = await chatbotWith(lookUpOrder());
    await expectRpcError(client.listActions({ ownerId: newOwner(), chatbotId: chatbot.id }), Code.NotFound, 'Chatbot not found');
    await expectRpcError(
      client.deleteAction({ ownerId: newOwner(), chatbotId: chatbot.id, actionId: actions[0].id }),
      Code.NotFound,
      'Chatbot not found',
    );
  });
});

describe('testing and running an action', () => {
  it('shows the request with secrets masked and only the allow-listed fields, with an echoed secret masked', async () => {
    const { ownerId, chatbot, actions } = await chatbotWith({
      ...lookUpOrder(),
      responseFields: ['order.status', 'items.name', 'debug.authorization'],
    });
    const test = await client.testAction({ ownerId, chatbotId: chatbot.id, actionId: actions[0].id, inputs: { order_id: '10 42/../x' } });
    expect(test.status).toBe('ok');
    expect(test.request!.url).toBe(`${origin}/orders/10%2042%2F..%2Fx?expand=items`);
    expect(test.request!.headers.authorization).toBe('Bearer ••••');
    expect(JSON.parse(test.result)).toEqual({
      'order.status': 'shipped',
      'items.name': ['Kettle', 'Mug'],
      'debug.authorization': 'Bearer ••••',
    });
    expect(test.fieldsRead).toEqual(['order.status', 'items.name', 'debug.authorization']);
    expect(seen.at(-1)!.url).toBe('/orders/10%2042%2F..%2Fx?expand=items');
    expect(asText(test)).not.toContain(API_KEY);

    const log = await client.listActionCalls({ ownerId, chatbotId: chatbot.id, actionId: actions[0].id });
    expect(log.calls.map((c) => [c.source, c.status, c.inputs, c.fieldsRead])).toEqual([
      ['test', 'ok', { order_id: '10 42/../x' }, ['order.status', 'items.name', 'debug.authorization']],
    ]);
    const calls = await svc.db.actionCall.findMany({ where: { chatbotId: chatbot.id } });
    expect(JSON.stringify(calls)).not.toContain(API_KEY);
  });

  it('sends a JSON body with typed values, and tells failures and refusals in words', async () => {
    const def = {
      ...cancelOrder(),
      inputs: [...cancelOrder().inputs!, { name: 'reason', type: 'string', enum: ['late', 'changed mind'] }],
    };
    const bad = { ...lookUpOrder(), name: 'bad_json', url: `${origin}/bad-json` };
    const redirect = { ...lookUpOrder(), name: 'redirects_inside', url: `${origin}/to-internal` };
    const identified = { ...lookUpOrder(), name: 'my_orders', identifiedOnly: true };
    const byIdentity = { ...lookUpOrder(), name: 'by_email', inputs: [{ name: 'order_id', type: 'string', source: 'email' }] };
    const { ownerId, chatbot, actions } = await chatbotWith(def, bad, redirect, identified, byIdentity);
    const run = (i: number, inputs: Record<string, string>) =>
      client.testAction({ ownerId, chatbotId: chatbot.id, actionId: actions[i].id, inputs });

    const ok = await run(0, { order_id: '7', reason: 'late', extra: 'dropped' });
    expect([ok.status, ok.result]).toEqual(['ok', '{"cancelled":true}']);
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ reason: 'late', order: '7' });
    expect(seen.at(-1)!.headers['x-api-key']).toBe(API_KEY);

    expect(await run(0, { order_id: '7', reason: 'because' })).toMatchObject({
      status: 'refused',
      error: 'The input "reason" must be one of late, changed mind',
    });
    expect(await run(0, {})).toMatchObject({ status: 'refused', error: 'The input "order_id" is required' });
    expect(await run(1, { order_id: '1' })).toMatchObject({ status: 'failed', error: "The API's answer is not valid JSON" });
    expect(await run(2, { order_id: '1' })).toMatchObject({
      status: 'refused',
      error: 'This address is not allowed: 127.0.0.2 is a loopback address',
    });
    expect(await run(3, { order_id: '1' })).toMatchObject({ status: 'refused', error: 'This action needs a verified visitor' });
    expect(await run(4, {})).toMatchObject({ status: 'refused', error: 'This action needs a verified visitor' });
  });

  it("runs a visitor's call once per call key, under concurrent retries", async () => {
    const def = cancelOrderWith({ name: 'reason', type: 'string' });
    const { ownerId, chatbot } = await chatbotWith(def);
    const before = cancels;
    const callKey = `confirm-${Math.random()}`;
    const runs = await Promise.all(
      Array.from({ length: 10 }, () =>
        client.runAction({ chatbotId: chatbot.id, actionName: 'cancel_order', sessionId: 's1', arguments: { order_id: '1042' }, callKey }),
      ),
    );
    expect(cancels - before).toBe(1);
    expect(runs.filter((r) => !r.repeated)).toEqual([expect.objectContaining({ status: 'ok', result: '{"cancelled":true}' })]);
    // Later retries (a second Confirm, a reload) read the first run's outcome.
    const again = await client.runAction({
      chatbotId: chatbot.id,
      actionName: 'cancel_order',
      sessionId: 's1',
      arguments: { order_id: '1042' },
      callKey,
    });
    expect(again).toMatchObject({ status: 'ok', result: '{"cancelled":true}', repeated: true });
    expect(cancels - before).toBe(1);
    const log = await client.listActionCalls({ ownerId, chatbotId: chatbot.id, sessionId: 's1' });
    expect(log.calls.map((c) => [c.actionName, c.source, c.status])).toEqual([['cancel_order', 'chat', 'ok']]);
    expect(await client.runAction({ chatbotId: chatbot.id, actionName: 'nope', sessionId: 's1', callKey: 'k2' })).toMatchObject({
      status: 'refused',
      error: 'There is no action named nope',
    });
  });
});
