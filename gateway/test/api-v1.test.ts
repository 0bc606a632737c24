// The developer API (docs/api.md) against the real services: every /api/v1 route with a key of each
// scope, a key kept to one chatbot, a key of another workspace, and keys that must not work
// (revoked, expired, rolled past their overlap, forged, none): exactly the allowed calls pass. Then
// the key's rate limit, the key check's cache, chat with its cost attributed to the key, pagination,
// the session-only routes a key never reaches, and the OpenAPI document (drift and lint).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_SCOPE_NAMES, type ApiScope } from '@parley/common/api-scopes.ts';
import { WEBHOOK_EVENTS, WEBHOOK_EVENT_TYPES } from '@parley/common/webhook-events.ts';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIRequest } from '@parley/common/testing/fake-openai.ts';
import { createClients } from '../src/http/clients.ts';
import { accessOf } from '../src/access/permissions.ts';
import { keyChecker } from '../src/access/api-keys.ts';
import { KEY_RATE_LIMITED } from '../src/v1/rate-limit.ts';
import { scopeMissing } from '../src/v1/call.ts';
import { API_V1_ROUTES, type ApiRoute } from '../src/v1/routes.ts';
import { apiKeys, chatbotWithKnowledge, v1 } from './api-v1-fixtures.ts';
import { makePro, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, startGateway, startStack, TEST_SERVICE_SECRET, type ApiResponse, type Stack } from './stack.ts';
import { sql } from './workspace-fixtures.ts';

let stack: Stack;
let fake: FakeOpenAI;
let keys: ReturnType<typeof apiKeys>;
let owner: Owner;
let other: Owner;
let bot: string;
let otherBot: string;
let full: string;
let fullId: string;
let keptToBot: string;
let otherWorkspace: string;
const scoped = new Map<ApiScope, string>();
const BOGUS = '00000000-0000-4000-8000-000000000000';

const reply = (body: FakeOpenAIRequest) => {
  const turns = body.messages.filter((m) => m.role !== 'system');
  return `Answer after ${turns.length - 1} earlier turns to: ${turns[turns.length - 1]?.content ?? ''}`;
};

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply });
  stack = await startStack({
    chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url, CHAT_RATE_PER_VISITOR: '1000', CHAT_RATE_PER_BOT: '1000' },
    billingEnv: { INITIAL_CREDIT: '5' },
    // Webhook endpoints on the loopback address (nothing listens: their deliveries fail, which is fine here).
    chatbotEnv: { KNOWLEDGE_URL_ALLOW_PRIVATE: '1' },
  });
  keys = apiKeys(stack);
  owner = await registerOwner(stack, 'api-owner');
  await makePro(stack, owner);
  other = await registerOwner(stack, 'api-other');
  bot = await chatbotWithKnowledge(stack, owner, 'Shop');
  otherBot = await chatbotWithKnowledge(stack, owner, 'Other shop');
  ({ secret: full, id: fullId } = await keys.create(owner, API_SCOPE_NAMES));
  for (const scope of API_SCOPE_NAMES) scoped.set(scope, (await keys.create(owner, [scope])).secret);
  keptToBot = (await keys.create(owner, API_SCOPE_NAMES, { chatbotIds: [bot] })).secret;
  otherWorkspace = (await keys.create(other, API_SCOPE_NAMES)).secret;
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

const HOOK_URL = 'http://127.0.0.1:9/hooks';
let sharedHook: { endpointId: string; deliveryId: string } | undefined;

/** An endpoint the webhook routes act on, with a delivery; made once (a workspace has at most 20 endpoints). */
async function webhookTarget(): Promise<{ endpointId: string; deliveryId: string }> {
  if (sharedHook) return sharedHook;
  const made = await v1(stack, '/webhooks', full, { body: { url: HOOK_URL, events: ['credit.low'] } });
  const test = await v1(stack, `/webhooks/${made.body.endpoint.id}/test`, full, { method: 'POST' });
  sharedHook = { endpointId: made.body.endpoint.id, deliveryId: test.body.id };
  return sharedHook;
}

/** One call of a webhook route; what it creates, or was given to delete, is deleted after. */
async function callWebhookRoute(key: string, secret: string | undefined): Promise<ApiResponse> {
  const [method, template] = key.split(' ');
  const target = await webhookTarget();
  const doomed =
    key === 'DELETE /api/v1/webhooks/:id'
      ? (await v1(stack, '/webhooks', full, { body: { url: HOOK_URL, events: ['credit.low'] } })).body.endpoint.id
      : undefined;
  const path = template
    .slice('/api/v1'.length)
    .replace(':id', doomed ?? target.endpointId)
    .replace(':deliveryId', target.deliveryId);
  const bodies: Record<string, unknown> = {
    'POST /api/v1/webhooks': { url: HOOK_URL, events: ['plan.changed'] },
    'PATCH /api/v1/webhooks/:id': { events: ['credit.low'] },
    'POST /api/v1/webhooks/:id/test': { eventType: 'plan.changed' },
  };
  const res = await v1(stack, path, secret, { method, body: bodies[key] ?? (method === 'POST' ? {} : undefined) });
  const leftover = doomed ?? (key === 'POST /api/v1/webhooks' && res.status === 201 ? res.body.endpoint.id : undefined);
  if (leftover) await v1(stack, `/webhooks/${leftover}`, full, { method: 'DELETE' });
  return res;
}

/** One call of a route on a chatbot, with a valid body; deletions get something of their own to delete. */
async function callRoute(key: string, secret: string | undefined, chatbotId: string): Promise<ApiResponse> {
  if (key.startsWith('/api/v1/webhooks', key.indexOf(' ') + 1)) return callWebhookRoute(key, secret);
  const [method, template] = key.split(' ');
  let path = template.slice('/api/v1'.length).replace(':id', chatbotId);
  if (key === 'DELETE /api/v1/chatbots/:id' && chatbotId === bot) {
    // A chatbot of its own, kept to the same answer a key kept to `bot` gets for any other.
    const made = await v1(stack, '/chatbots', full, { body: { name: 'Doomed' } });
    path = `/chatbots/${made.body.id}`;
  }
  if (path.includes(':entryId')) {
    const added = await v1(stack, `/chatbots/${bot}/knowledge/qa`, full, { body: { question: 'Doomed?', answer: 'Yes.' } });
    path = path.replace(':entryId', added.body.entry.id);
  }
  if (path.includes(':conversationId')) {
    const chat = await v1(stack, `/chatbots/${bot}/chat`, full, { body: { message: 'Hello?' } });
    path = path.replace(':conversationId', chat.body.conversationId);
  }
  const bodies: Record<string, unknown> = {
    'POST /api/v1/chatbots': { name: 'Made by a key' },
    'PATCH /api/v1/chatbots/:id': { welcomeMessage: 'Hello there' },
    'POST /api/v1/chatbots/:id/knowledge/text': { text: 'We sell bicycles.' },
    'POST /api/v1/chatbots/:id/knowledge/urls': { url: 'https://example.com/' },
    'POST /api/v1/chatbots/:id/knowledge/qa': { question: 'Do you sell cars?', answer: 'No.' },
    'POST /api/v1/chatbots/:id/chat': { message: 'When do you open?' },
    'POST /api/v1/openai/chat/completions': { model: chatbotId, messages: [{ role: 'user', content: 'When do you open?' }] },
  };
  if (key === 'POST /api/v1/chatbots/:id/knowledge/files') {
    const form = new FormData();
    form.append('file', new Blob(['We repair bicycles too.'], { type: 'text/plain' }), 'repairs.txt');
    const res = await fetch(`${stack.url}/api/v1${path}`, {
      method: 'POST',
      body: form,
      headers: secret ? { authorization: `Bearer ${secret}` } : {},
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  }
  if (key === 'POST /api/v1/mcp')
    return v1(stack, path, secret, {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
  const query = key === 'GET /api/v1/usage' ? `?startDate=2026-01-01&endDate=2026-12-31&chatbotId=${chatbotId}` : '';
  return v1(stack, path + query, secret, { method, body: bodies[key] });
}

type Outcome = 'passes' | 'unauthenticated' | 'lacks scope' | 'not found' | 'refused';

function outcomeOf(res: ApiResponse, route: ApiRoute): Outcome {
  if (res.status === 401) return 'unauthenticated';
  if (res.status === 403 && res.body.error?.message === scopeMissing(route.scope)) return 'lacks scope';
  if (res.status === 404) return 'not found';
  if (res.status >= 200 && res.status < 300) return 'passes';
  return 'refused';
}

const ROUTES = Object.entries(API_V1_ROUTES) as [string, ApiRoute][];

describe('the scope sweep', () => {
  it('names every route in the one table, as an API route', () => {
    for (const [key] of ROUTES) expect(accessOf(key), key).toBe('api-key');
  });

  it('lets a key through exactly the routes of its scope, with the answers documented', async () => {
    const mismatches: string[] = [];
    for (const [key, route] of ROUTES) {
      for (const scope of API_SCOPE_NAMES) {
        const res = await callRoute(key, scoped.get(scope), bot);
        const got = outcomeOf(res, route);
        const want: Outcome = scope === route.scope ? 'passes' : 'lacks scope';
        if (got !== want) mismatches.push(`${key} with ${scope}: ${got} (${res.status} ${JSON.stringify(res.body).slice(0, 120)})`);
        if (got === 'passes') expect(res.status, key).toBe(route.status);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('keeps a key kept to one chatbot to it, and a key of another workspace to its own', async () => {
    const mismatches: string[] = [];
    const chatbotRoutes = ROUTES.filter(([key, r]) => r.chatbot || key.includes('/openai/chat') || key.endsWith('/usage'));
    for (const [key, route] of chatbotRoutes) {
      const cases: [string, string, string, Outcome][] = [
        // A deletion of `bot` deletes a chatbot of its own (callRoute), which a key kept to `bot` may not reach.
        ...(key === 'DELETE /api/v1/chatbots/:id'
          ? []
          : [['kept to bot, on bot', keptToBot, bot, 'passes'] as [string, string, string, Outcome]]),
        ['kept to bot, on the other', keptToBot, otherBot, 'not found'],
        // Usage names the chatbot in its query: another workspace's is not found there either.
        ['other workspace', otherWorkspace, bot, 'not found'],
      ];
      for (const [name, secret, chatbotId, want] of cases) {
        const got = outcomeOf(await callRoute(key, secret, chatbotId), route);
        if (got !== want) mismatches.push(`${key} ${name}: ${got}`);
      }
    }
    expect(mismatches).toEqual([]);
    const listed = await v1(stack, '/chatbots', keptToBot);
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([bot]);
    expect((await v1(stack, '/openai/models', keptToBot)).body.data.map((m: { id: string }) => m.id)).toEqual([bot]);
    expect((await v1(stack, '/chatbots', otherWorkspace)).body.data).toEqual([]);
    const create = await v1(stack, '/chatbots', keptToBot, { body: { name: 'Not allowed' } });
    expect(create.status).toBe(403);
    const usage = await v1(stack, '/usage?startDate=2026-01-01&endDate=2026-12-31', keptToBot);
    expect(usage.status).toBe(403);
    const elsewhere = await v1(stack, `/usage?startDate=2026-01-01&endDate=2026-12-31&chatbotId=${bot}`, otherWorkspace);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error).toEqual({ code: 'not_found', message: 'Chatbot not found' });
    // Its own usage, as a workspace without answers: zeros.
    const own = await v1(stack, '/usage?startDate=2026-01-01&endDate=2026-12-31', otherWorkspace);
    expect(own.body).toMatchObject({ totalRequests: 0, chatbots: [] });
    // A key kept to a chatbot may delete it.
    const doomed = (await v1(stack, '/chatbots', full, { body: { name: 'Kept and doomed' } })).body.id;
    const keptToDoomed = (await keys.create(owner, ['chatbots:write'], { chatbotIds: [doomed] })).secret;
    expect((await v1(stack, `/chatbots/${doomed}`, keptToDoomed, { method: 'DELETE' })).status).toBe(200);
  });

  it('refuses keys that do not work on every route: none, forged, revoked, expired, rolled past the overlap', async () => {
    const revoked = await keys.create(owner, API_SCOPE_NAMES);
    await keys.revoke(owner, revoked.id);
    const expiring = await keys.create(owner, API_SCOPE_NAMES, { expiresAt: new Date(Date.now() + 60_000) });
    await sql(stack.authDatabase, `UPDATE $schema."ApiKey" SET "expiresAt" = now() - interval '1 minute' WHERE id = $1`, [expiring.id]);
    const rolled = await keys.create(owner, API_SCOPE_NAMES);
    const newSecret = await keys.roll(owner, rolled.id, 0);
    const forged = `parley_sk_${'A'.repeat(43)}`;
    const bad: [string, string | undefined][] = [
      ['none', undefined],
      ['forged', forged],
      ['malformed', 'parley_sk_short'],
      ['a session token', owner.token],
      ['revoked', revoked.secret],
      ['expired', expiring.secret],
      ['rolled', rolled.secret],
    ];
    const mismatches: string[] = [];
    for (const [key, route] of ROUTES)
      for (const [name, secret] of bad) {
        const res = await callRoute(key, secret, bot);
        if (outcomeOf(res, route) !== 'unauthenticated' || res.body.error?.code !== 'unauthenticated')
          mismatches.push(`${key} ${name}: ${res.status}`);
      }
    expect(mismatches).toEqual([]);
    expect((await v1(stack, '/chatbots', newSecret)).status).toBe(200);
  });

  it('keeps a rolled secret working through its overlap and not past it; a revoked key stops', async () => {
    // A gateway that keeps no key check, so each call sees auth's answer of the moment.
    const gateway = await startGateway({ ...stack.gatewayEnv, API_KEY_CACHE_MS: '0' });
    try {
      const rolled = await keys.create(owner, ['chatbots:read']);
      const next = await keys.roll(owner, rolled.id, 3600);
      expect((await v1(gateway.url, '/chatbots', rolled.secret)).status).toBe(200);
      expect((await v1(gateway.url, '/chatbots', next)).status).toBe(200);
      await sql(
        stack.authDatabase,
        `UPDATE $schema."ApiKeySecret" SET "validUntil" = now() - interval '1 second' WHERE "validUntil" IS NOT NULL AND "apiKeyId" = $1`,
        [rolled.id],
      );
      expect((await v1(gateway.url, '/chatbots', rolled.secret)).status).toBe(401);
      expect((await v1(gateway.url, '/chatbots', next)).status).toBe(200);
      await keys.revoke(owner, rolled.id);
      expect((await v1(gateway.url, '/chatbots', next)).status).toBe(401);
    } finally {
      await gateway.close();
    }
  });

  it("never lets a key act on the dashboard's session routes", async () => {
    for (const path of [
      '/api/auth/current',
      '/api/user/sessions',
      '/api/workspace/members',
      '/api/payment/portal-session',
      '/api/chatbot',
    ]) {
      const res = await api(stack.url, path, { token: full, method: path.includes('portal') ? 'POST' : 'GET' });
      expect(res.status, path).toBe(401);
    }
  });
});

describe('answers', () => {
  it('carry X-Request-Id and the rate limit headers, errors as { error: { code, message } }', async () => {
    const ok = await v1(stack, '/chatbots', full);
    expect(ok.headers.get('x-request-id')).toBeTruthy();
    expect(Number(ok.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
    expect(ok.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(ok.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    const missing = await v1(stack, `/chatbots/${BOGUS}`, full);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    expect(missing.headers.get('x-request-id')).toBeTruthy();
    const badBody = await v1(stack, `/chatbots/${bot}/chat`, full, { body: { message: 5 } });
    expect(badBody.status).toBe(400);
    expect(badBody.body.error).toEqual({ code: 'invalid_request', message: expect.stringContaining('message') });
    const unknown = await v1(stack, '/nothing-here', full);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('refuses a burst past the key limit with 429 and Retry-After, per key', async () => {
    const gateway = await startGateway({ ...stack.gatewayEnv, API_RATE_LIMIT: '3', API_RATE_WINDOW_MS: '60000' });
    try {
      const burst = await keys.create(owner, ['chatbots:read']);
      const answers = await Promise.all(Array.from({ length: 6 }, () => v1(gateway.url, '/chatbots', burst.secret)));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
      const refused = answers.filter((a) => a.status === 429);
      expect(refused).toHaveLength(3);
      for (const r of refused) {
        expect(r.body.error).toEqual({ code: 'rate_limited', message: KEY_RATE_LIMITED });
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
      }
      expect([...answers.map((a) => a.headers.get('x-ratelimit-remaining'))].sort()).toEqual(['0', '0', '0', '0', '1', '2']);
      // Another key has its own allowance.
      const second = await keys.create(owner, ['chatbots:read']);
      expect((await v1(gateway.url, '/chatbots', second.secret)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});

describe('hostile input', () => {
  it('answers bad ids, bodies and queries on every route with a 4xx or a success, never a 5xx', async () => {
    const bodies = [
      '{',
      '[]',
      'null',
      '"text"',
      JSON.stringify({ message: { a: 1 }, name: 5, model: [], messages: 'x', text: 'a\u0000b', url: 7, visitor: 'me', stream: 'yes' }),
    ];
    const failures: string[] = [];
    for (const [key] of ROUTES) {
      const [method, template] = key.split(' ');
      // The chatbot the later tests chat with is never deleted here.
      const ids = key === 'DELETE /api/v1/chatbots/:id' ? [] : [bot];
      for (const id of [...ids, 'not-a-uuid', 'x'.repeat(3000), '..%2F..%2Fetc']) {
        const path = template.slice('/api/v1'.length).replace(/:[a-zA-Z]+/g, id.includes('%') ? id : encodeURIComponent(id));
        const sends =
          method === 'GET' || method === 'DELETE'
            ? [{ query: '?limit=-1&cursor=%00&startDate=2026-13-45&endDate[a]=1' }]
            : bodies.map((rawBody) => ({ rawBody }));
        for (const send of sends) {
          const res = await v1(stack, path + ('query' in send ? send.query : ''), full, {
            method,
            rawBody: 'rawBody' in send ? send.rawBody : undefined,
          });
          if (res.status >= 500 || (typeof res.body?.error?.code !== 'string' && res.status >= 400))
            failures.push(`${res.status} ${key} ${id.slice(0, 20)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('the key check', () => {
  it('keeps a working key a few seconds, stops using it then, and never past its expiry', async () => {
    let now = 1_000_000;
    const clients = createClients({ ...stack.gatewayEnv, RPC_TIMEOUT_MS: 5000, SERVICE_SECRET: TEST_SERVICE_SECRET } as never);
    const checker = keyChecker(clients, { cacheMs: 5000, now: () => now });
    const key = await keys.create(owner, ['chat']);
    expect((await checker.authenticate(key.secret)).apiKeyId).toBe(key.id);
    await keys.revoke(owner, key.id);
    now += 4000;
    // Kept: the revocation is not seen yet.
    expect((await checker.authenticate(key.secret)).apiKeyId).toBe(key.id);
    now += 1000;
    await expect(checker.authenticate(key.secret)).rejects.toThrow('Invalid API key');

    const expiring = await keys.create(owner, ['chat'], { expiresAt: new Date(Date.now() + 60_000) });
    const checked = await checker.authenticate(expiring.secret);
    now = checked.expiresAtMs;
    await expect(checker.authenticate(expiring.secret)).rejects.toThrow();
  });
});

describe('chat through the API', () => {
  it('answers as JSON, continues the conversation, and bills the key', async () => {
    const first = await v1(stack, `/chatbots/${bot}/chat`, full, {
      body: { message: 'When do you open?', visitor: { id: 'u-1', name: 'Ada', email: 'ada@example.com' } },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      message: expect.stringContaining('When do you open?'),
      conversationId: expect.any(String),
      sources: expect.any(Array),
      messageId: expect.any(String),
      usage: { promptTokens: expect.any(Number), completionTokens: expect.any(Number), totalTokens: expect.any(Number) },
    });
    const second = await v1(stack, `/chatbots/${bot}/chat`, full, {
      body: { message: 'And close?', conversationId: first.body.conversationId },
    });
    expect(second.body.conversationId).toBe(first.body.conversationId);
    expect(second.body.message).toContain('after 2 earlier turns');
    // The usage record names the key (billing's worker records it shortly after the answer).
    await expect
      .poll(
        async () =>
          (await sql(stack.billingDatabase, `SELECT "apiKeyId" FROM $schema."UsageRecord" WHERE "apiKeyId" = $1`, [fullId])).length,
        { timeout: 10_000 },
      )
      .toBeGreaterThanOrEqual(2);
    const today = new Date().toISOString().slice(0, 10);
    const usage = await v1(stack, `/usage?startDate=${today}&endDate=${today}&chatbotId=${bot}`, full);
    expect(usage.body.recentRequests).toEqual(expect.arrayContaining([expect.objectContaining({ chatbotId: bot, apiKeyId: fullId })]));
    const conversation = await v1(stack, `/chatbots/${bot}/conversations/${first.body.conversationId}`, full);
    expect(conversation.body).toMatchObject({
      id: first.body.conversationId,
      visitorId: 'u-1',
      visitorName: 'Ada',
      visitorEmail: 'ada@example.com',
      messageCount: 4,
    });
  });

  it('streams the public page events, done carrying sources and messageId', async () => {
    const res = await fetch(`${stack.url}/api/v1/chatbots/${bot}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${full}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Streamed?', stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const events = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((block) => ({
        event: /^event: (.*)$/m.exec(block)?.[1],
        data: JSON.parse(/^data: (.*)$/m.exec(block)![1]),
      }));
    expect(events.slice(0, -1).every((e) => e.event === 'delta')).toBe(true);
    expect(events.at(-1)).toEqual({
      event: 'done',
      data: {
        message: expect.any(String),
        conversationId: expect.any(String),
        sources: expect.any(Array),
        messageId: expect.any(String),
        usage: { promptTokens: expect.any(Number), completionTokens: expect.any(Number), totalTokens: expect.any(Number) },
      },
    });
  });

  it('pages conversations and messages with cursors', async () => {
    const pager = await chatbotWithKnowledge(stack, owner, 'Pager');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await v1(stack, `/chatbots/${pager}/chat`, full, { body: { message: `Question ${i}` } })).body.conversationId);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: ApiResponse = await v1(stack, `/chatbots/${pager}/conversations?limit=2${cursor ? `&cursor=${cursor}` : ''}`, full);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((c: { id: string }) => c.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual([...ids].sort());
    const messages = await v1(stack, `/chatbots/${pager}/conversations/${ids[0]}/messages?limit=1`, full);
    expect(messages.body.data).toEqual([expect.objectContaining({ role: 'user', content: 'Question 0' })]);
    const rest = await v1(stack, `/chatbots/${pager}/conversations/${ids[0]}/messages?cursor=${messages.body.nextCursor}`, full);
    expect(rest.body).toEqual({ data: [expect.objectContaining({ role: 'assistant' })], nextCursor: null });
    // Each message has exactly the fields the OpenAPI document gives a Message, all of them required.
    const documented = (await api(stack.url, '/api/v1/openapi.json')).body.components.schemas.Message;
    expect(Object.keys(documented.properties).sort()).toEqual([
      'authorName',
      'content',
      'createdAt',
      'fallback',
      'id',
      'model',
      'rating',
      'role',
      'sources',
    ]);
    expect([...documented.required].sort()).toEqual(Object.keys(documented.properties).sort());
    for (const m of [...messages.body.data, ...rest.body.data]) {
      expect(Object.keys(m).sort()).toEqual(Object.keys(documented.properties).sort());
      expect(m.authorName).toBeNull();
    }
    // A conversation is found under its own chatbot only.
    expect((await v1(stack, `/chatbots/${bot}/conversations/${ids[0]}`, full)).status).toBe(404);
    expect((await v1(stack, `/chatbots/${pager}/conversations/not-one-of-ours/messages`, full)).status).toBe(404);
    expect((await v1(stack, `/chatbots/${pager}/conversations?cursor=nonsense`, full)).status).toBe(400);
    expect((await v1(stack, `/chatbots/${pager}/conversations?limit=500`, full)).status).toBe(400);
  });
});

describe('the OpenAPI document', () => {
  let doc: any;
  beforeAll(async () => {
    const res = await api(stack.url, '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });

  it('documents every route with its scope, and every documented operation answers', async () => {
    const documented: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { 'x-parley-scope': string }>>))
      for (const [method, op] of Object.entries(ops)) {
        const key = `${method.toUpperCase()} /api/v1${path.replace(/\{(\w+)\}/g, ':$1')}`;
        documented.push(key);
        expect(op['x-parley-scope'], key).toBe((API_V1_ROUTES as Record<string, ApiRoute>)[key]?.scope);
        const res = await callRoute(key, full, bot);
        expect([404, 405], `${key} answered ${res.status}`).not.toContain(res.status);
      }
    expect(documented.sort()).toEqual(ROUTES.map(([key]) => key).sort());
  });

  it('documents every webhook event: its envelope, data schema and example, from the one catalogue', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const type of WEBHOOK_EVENT_TYPES) {
      const body = doc.webhooks[type].post.requestBody.content['application/json'];
      expect(body.schema.properties.data, type).toEqual(WEBHOOK_EVENTS[type].schema);
      expect(body.example, type).toMatchObject({ type, version: WEBHOOK_EVENTS[type].version, data: WEBHOOK_EVENTS[type].example });
      expect(doc.webhooks[type].post.parameters.map((p: { name: string }) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
    }
  });

  it("passes Redocly's lint (offline)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-openapi-'));
    const file = join(dir, 'openapi.json');
    // The document of a real deployment's address (a test stack's localhost is a lint warning of its own).
    writeFileSync(file, JSON.stringify({ ...doc, servers: [{ url: 'https://parley.app/api/v1' }] }));
    writeFileSync(join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
    const out = execFileSync(new URL('../../node_modules/.bin/redocly', import.meta.url).pathname, ['lint', file, '--format', 'stylish'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out).not.toMatch(/error/i);
  });
});
