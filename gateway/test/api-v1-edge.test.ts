// The developer API at its edges, as an integrator meets them, against the real services: the body
// read only past the key check (415 for another type, 413, 400, each with the key's rate limit
// headers), WWW-Authenticate on every 401, usage of a chatbot the workspace does not have (404), a
// browser's preflight refused on purpose, the tokens each answer is billed for, and wrong keys: a
// refused secret kept (auth is not asked again), and an address that keeps sending wrong keys
// answered 429 without auth being asked.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_SCOPE_NAMES } from '@parley/common/api-scopes.ts';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { fakePromptTokens, fakeTokenCount, startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { createClients, type Clients } from '../src/http/clients.ts';
import { keyChecker, type KeyCheckGuard } from '../src/access/api-keys.ts';
import { KEY_CHECKS_THROTTLED } from '../src/v1/rate-limit.ts';
import { CORS_NOT_ALLOWED, JSON_BODY_ONLY } from '../src/v1/router.ts';
import { apiKeys, chatbotWithKnowledge, v1 } from './api-v1-fixtures.ts';
import { makePro, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { startGateway, startStack, TEST_SERVICE_SECRET, type ApiResponse, type Stack } from './stack.ts';
import { sql } from './workspace-fixtures.ts';

const ANSWER = 'We open at nine [1].';

let stack: Stack;
let fake: FakeOpenAI;
let keys: ReturnType<typeof apiKeys>;
let owner: Owner;
let other: Owner;
let bot: string;
let full: { id: string; secret: string };

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply: ANSWER });
  stack = await startStack({ chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url }, billingEnv: { INITIAL_CREDIT: '5' } });
  keys = apiKeys(stack);
  owner = await registerOwner(stack, 'edge-owner');
  await makePro(stack, owner);
  other = await registerOwner(stack, 'edge-other');
  bot = await chatbotWithKnowledge(stack, owner, 'Edge shop');
  full = await keys.create(owner, API_SCOPE_NAMES);
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

/** A raw call with the key, for bodies the JSON helper would not send. */
async function send(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | FormData },
): Promise<ApiResponse> {
  const res = await fetch(`${stack.url}/api/v1${path}`, {
    method: init.method ?? 'POST',
    headers: { authorization: `Bearer ${full.secret}`, ...init.headers },
    body: init.body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : text };
}

const expectRateLimitHeaders = (res: ApiResponse) => {
  expect(Number(res.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
  expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  expect(res.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
};

/** A secret shaped like a real one that no key has. */
const unknownSecret = () => `parley_sk_${(randomUUID() + randomUUID()).replaceAll('-', '').slice(0, 43)}`;

describe('the body, read past the key check', () => {
  it('answers a chat sent as text/plain or as a form 415 unsupported_media_type, with the rate limit headers', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await send(`/chatbots/${bot}/chat`, { headers: { 'content-type': type }, body: 'When do you open?' });
      expect(res.status, type).toBe(415);
      expect(res.body.error).toEqual({ code: 'unsupported_media_type', message: JSON_BODY_ONLY });
      expectRateLimitHeaders(res);
    }
  });

  it('answers JSON sent to the file upload 415 unsupported_media_type', async () => {
    const res = await send(`/chatbots/${bot}/knowledge/files`, { headers: { 'content-type': 'application/json' }, body: '{"file":"x"}' });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
    expectRateLimitHeaders(res);
  });

  it('answers a body too large 413 and a malformed one 400, both with the rate limit headers', async () => {
    const large = await send(`/chatbots/${bot}/chat`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'x'.repeat(200_000) }),
    });
    expect(large.status).toBe(413);
    expect(large.body.error.code).toBe('payload_too_large');
    expectRateLimitHeaders(large);
    const malformed = await send(`/chatbots/${bot}/chat`, { headers: { 'content-type': 'application/json' }, body: '{' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_request');
    expectRateLimitHeaders(malformed);
  });

  it('reads no body as no fields: 400 naming the missing one', async () => {
    const res = await send(`/chatbots/${bot}/chat`, {});
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'invalid_request', message: expect.stringMatching(/^message: /) });
    expectRateLimitHeaders(res);
  });

  it('refuses a body of another type with a key that does not work as 401, before reading it', async () => {
    const res = await fetch(`${stack.url}/api/v1/chatbots/${bot}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('401', () => {
  it('carries WWW-Authenticate: Bearer, with error="invalid_token" for a key that does not work', async () => {
    const none = await v1(stack, '/chatbots', undefined);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    for (const secret of [unknownSecret(), 'parley_sk_short', owner.token]) {
      const bad = await v1(stack, '/chatbots', secret);
      expect(bad.status).toBe(401);
      expect(bad.body.error.code).toBe('unauthenticated');
      expect(bad.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    }
    const revoked = await keys.create(owner, ['chatbots:read']);
    await keys.revoke(owner, revoked.id);
    expect((await v1(stack, '/chatbots', revoked.secret)).headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect((await v1(stack, '/chatbots', full.secret)).headers.get('www-authenticate')).toBeNull();
  });
});

describe('usage of one chatbot', () => {
  it('is 404 for a chatbot the workspace does not have, and still answers for one it deleted', async () => {
    const elsewhere = await chatbotWithKnowledge(stack, other, 'Not yours');
    for (const id of [elsewhere, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await v1(stack, `/usage?startDate=2026-01-01&endDate=2026-12-31&chatbotId=${id}`, full.secret);
      expect(res.status, id).toBe(404);
      expect(res.body.error).toEqual({ code: 'not_found', message: 'Chatbot not found' });
      expectRateLimitHeaders(res);
    }
    // The workspace's own chatbot without answers yet: zeros.
    const fresh = await chatbotWithKnowledge(stack, owner, 'Fresh');
    const today = new Date().toISOString().slice(0, 10);
    const quiet = await v1(stack, `/usage?startDate=${today}&endDate=${today}&chatbotId=${fresh}`, full.secret);
    expect(quiet.status).toBe(200);
    expect(quiet.body).toMatchObject({ totalRequests: 0 });
    // Answered, then deleted: billing keeps its usage, and the API still shows it.
    expect((await v1(stack, `/chatbots/${fresh}/chat`, full.secret, { body: { message: 'Open?' } })).status).toBe(200);
    const usage = () => v1(stack, `/usage?startDate=${today}&endDate=${today}&chatbotId=${fresh}`, full.secret);
    await expect.poll(async () => (await usage()).body.totalRequests, { timeout: 10_000 }).toBe(1);
    expect((await v1(stack, `/chatbots/${fresh}`, full.secret, { method: 'DELETE' })).status).toBe(200);
    const after = await usage();
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ totalRequests: 1, chatbots: [{ chatbotId: fresh, name: null, requests: 1 }] });
  });
});

describe('browsers', () => {
  it('are refused at the preflight with 403 cors_not_allowed, and no Access-Control-Allow-* header', async () => {
    for (const path of ['/chatbots', `/chatbots/${bot}/chat`, '/openai/chat/completions', '/nothing-here']) {
      const res = await fetch(`${stack.url}/api/v1${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      expect(res.status, path).toBe(403);
      expect(await res.json()).toEqual({ error: { code: 'cors_not_allowed', message: CORS_NOT_ALLOWED } });
      expect(
        [...res.headers.keys()].filter((h) => h.startsWith('access-control-')),
        path,
      ).toEqual([]);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });
});

describe('the tokens an answer is billed for', () => {
  /** What the model reported for its last answer (the fake counts a token per four characters). */
  const modelUsage = () => {
    const promptTokens = fakePromptTokens(fake.requests.at(-1)!.messages);
    const completionTokens = fakeTokenCount(ANSWER);
    return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
  };
  const billed = (apiKeyId: string) =>
    expect.poll(
      async () =>
        (
          await sql(
            stack.billingDatabase,
            `SELECT "promptTokens", "completionTokens", "totalTokens" FROM $schema."UsageRecord" WHERE "apiKeyId" = $1`,
            [apiKeyId],
          )
        ).map((r) => ({ promptTokens: r.promptTokens, completionTokens: r.completionTokens, totalTokens: r.totalTokens })),
      { timeout: 10_000 },
    );

  it('come with the JSON answer, the same as its usage record', async () => {
    const key = await keys.create(owner, ['chat']);
    const res = await v1(stack, `/chatbots/${bot}/chat`, key.secret, { body: { message: 'When do you open?' } });
    expect(res.status).toBe(200);
    const usage = modelUsage();
    expect(usage.promptTokens).toBeGreaterThan(0);
    expect(res.body.usage).toEqual(usage);
    await billed(key.id).toEqual([usage]);
  });

  it("come with the stream's done event", async () => {
    const key = await keys.create(owner, ['chat']);
    const res = await fetch(`${stack.url}/api/v1/chatbots/${bot}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Streamed?', stream: true }),
    });
    const done = (await res.text()).split('\n\n').find((block) => block.startsWith('event: done'))!;
    const usage = modelUsage();
    expect(JSON.parse(/^data: (.*)$/m.exec(done)![1]).usage).toEqual(usage);
    await billed(key.id).toEqual([usage]);
  });

  it("are zero for the owner's answer to a Q&A pair, which costs nothing", async () => {
    const qa = await v1(stack, `/chatbots/${bot}/knowledge/qa`, full.secret, {
      body: { question: 'Do you deliver?', answer: 'Yes, daily.' },
    });
    expect(qa.status).toBe(201);
    const res = await v1(stack, `/chatbots/${bot}/chat`, full.secret, { body: { message: 'Do you deliver?' } });
    expect(res.body.message).toBe('Yes, daily.');
    expect(res.body.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
  });
});

describe('wrong keys', () => {
  /** Auth's key check, counted, and failing with `failWith` while it is set. */
  function countedClients() {
    const real = createClients({ ...stack.gatewayEnv, RPC_TIMEOUT_MS: 5000, SERVICE_SECRET: TEST_SERVICE_SECRET } as never);
    const counted = { asked: 0, failWith: null as ConnectError | null };
    const clients = {
      apiKeys: {
        authenticateApiKey: async (req: { secret: string }) => {
          counted.asked += 1;
          if (counted.failWith) throw counted.failWith;
          return real.apiKeys.authenticateApiKey(req);
        },
      },
    } as unknown as Clients;
    return { clients, counted };
  }
  /** A guard that records what the checker asked of it. */
  function recordingGuard() {
    const steps: string[] = [];
    const guard: KeyCheckGuard = {
      admit: async () => void steps.push('admit'),
      refused: async () => void steps.push('refused'),
    };
    return { guard, steps };
  }

  it('are refused from the refusal cache for its time, without asking auth again; a failure to ask is not kept', async () => {
    let now = 1_000_000;
    const { clients, counted } = countedClients();
    const checker = keyChecker(clients, { cacheMs: 5000, refusalCacheMs: 30_000, now: () => now });
    const wrong = unknownSecret();
    const first = recordingGuard();
    await expect(checker.authenticate(wrong, first.guard)).rejects.toThrow('Invalid API key');
    // The refusal is counted against the address.
    expect(first.steps).toEqual(['admit', 'refused']);
    const again = recordingGuard();
    await expect(checker.authenticate(wrong, again.guard)).rejects.toThrow('Invalid API key');
    expect(again.steps).toEqual([]);
    expect(counted.asked).toBe(1);
    now += 30_000;
    await expect(checker.authenticate(wrong)).rejects.toThrow('Invalid API key');
    expect(counted.asked).toBe(2);

    // A revoked key stays refused: kept as refused once auth said so.
    const key = await keys.create(owner, ['chat']);
    const working = recordingGuard();
    expect((await checker.authenticate(key.secret, working.guard)).apiKeyId).toBe(key.id);
    expect(working.steps).toEqual(['admit']);
    await keys.revoke(owner, key.id);
    checker.forget([key.id]);
    await expect(checker.authenticate(key.secret)).rejects.toThrow('Invalid API key');
    const asked = counted.asked;
    await expect(checker.authenticate(key.secret)).rejects.toThrow('Invalid API key');
    expect(counted.asked).toBe(asked);

    // Auth unavailable, or refusing the gateway's own credentials, is no refusal of the secret: nothing
    // kept, nothing counted, the next call asks again.
    const later = unknownSecret();
    for (const failure of [
      new ConnectError('down', Code.Unavailable),
      new ConnectError('service credentials required', Code.Unauthenticated),
    ]) {
      counted.failWith = failure;
      const failed = recordingGuard();
      await expect(checker.authenticate(later, failed.guard)).rejects.toThrow(failure.rawMessage);
      expect(failed.steps).toEqual(['admit']);
    }
    counted.failWith = null;
    await expect(checker.authenticate(later)).rejects.toThrow('Invalid API key');
    expect(counted.asked).toBe(asked + 3);

    // Checks of one secret at once share one question to auth, and a refusal counts once.
    const burst = unknownSecret();
    const together = recordingGuard();
    const before = counted.asked;
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => checker.authenticate(burst, together.guard)));
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(counted.asked).toBe(before + 1);
    expect(together.steps.filter((step) => step === 'refused')).toEqual(['refused']);
    const busy = await keys.create(owner, ['chat']);
    const keyed = await Promise.all(Array.from({ length: 5 }, () => checker.authenticate(busy.secret)));
    expect(keyed.map((k) => k.apiKeyId)).toEqual(Array(5).fill(busy.id));
    expect(counted.asked).toBe(before + 2);
  });

  it('from one address past the limit are answered 429 with Retry-After without asking auth; others are not held', async () => {
    const gateway = await startGateway({
      ...stack.gatewayEnv,
      API_KEY_FAILURES_PER_IP: '3',
      API_KEY_FAILURE_WINDOW_MS: '60000',
      API_KEY_CACHE_MS: '60000',
      TRUST_PROXY: '1',
    });
    try {
      const from = (ip: string, secret: string | undefined) => v1(gateway.url, '/chatbots', secret, { headers: { 'x-forwarded-for': ip } });
      const address = '198.51.100.7';
      const held = await keys.create(owner, ['chatbots:read']);
      expect((await from(address, held.secret)).status).toBe(200);
      // Working keys asked of auth count nothing.
      for (let i = 0; i < 4; i++) expect((await from(address, (await keys.create(owner, ['chatbots:read'])).secret)).status).toBe(200);

      // Wrong keys one after another: the limit's worth is asked of auth, the rest are refused before.
      const wrong = Array.from({ length: 6 }, unknownSecret);
      const answers: ApiResponse[] = [];
      for (const secret of wrong) answers.push(await from(address, secret));
      expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 429, 429, 429]);
      for (const refused of answers.filter((a) => a.status === 429)) {
        expect(refused.body.error).toEqual({ code: 'rate_limited', message: KEY_CHECKS_THROTTLED });
        const retryAfter = Number(refused.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(60);
      }
      // A working key the gateway would have to ask auth about waits too (auth is not asked)...
      const fresh = await keys.create(owner, ['chatbots:read']);
      expect((await from(address, fresh.secret)).status).toBe(429);
      // ...while the key it holds keeps working, a wrong key auth refused stays 401 (kept), a malformed
      // one is 401 as ever (never asked), and another address is not held.
      expect((await from(address, held.secret)).status).toBe(200);
      const refused = wrong.filter((_, i) => answers[i].status === 401);
      for (const secret of refused) expect((await from(address, secret)).status).toBe(401);
      expect((await from(address, 'parley_sk_short')).status).toBe(401);
      expect((await from('198.51.100.8', unknownSecret())).status).toBe(401);
      expect((await from('198.51.100.8', fresh.secret)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});

describe('the OpenAPI document', () => {
  it('documents the body refusals of the operations that take one, and the usage of the answers', async () => {
    const doc = (await v1(stack, '/openapi.json', undefined)).body;
    const chat = doc.paths['/chatbots/{id}/chat'].post.responses;
    expect(Object.keys(chat)).toEqual(expect.arrayContaining(['400', '401', '413', '415', '429']));
    expect(Object.keys(doc.paths['/chatbots'].get.responses)).not.toContain('415');
    expect(doc.components.schemas.ChatReply.required).toContain('usage');
    expect(Object.keys(doc.components.schemas.OpenAIChatCompletion.properties.usage.properties)).toEqual([
      'prompt_tokens',
      'completion_tokens',
      'total_tokens',
    ]);
  });
});
