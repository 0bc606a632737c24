// Contract tests of the widget's public edge (docs/product.md, The widget) through the gateway, against the real auth,
// billing, chatbot and chat services and a fake model: the public lookup's appearance, CORS on the
// public paths only, the site a call comes from (Origin, X-Parley-Embed) and its refusal, the
// proof-of-work challenge, the embed page's framing policy, /widget.js's caching, and the visitor's
// identity in the owner's history.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { makePro, registerOwner } from './chatbot-fixtures.ts';
import { api, gql, startStack, type Stack } from './stack.ts';

let stack: Stack;
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply: () => 'Fake answer.' });
  stack = await startStack({ chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url } });
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

const NOT_HERE = { message: 'This chatbot is not available on this website.' };
const SHOP = 'https://shop.example.com';

let visitorCounter = 0;
const newVisitorIp = () => `198.51.100.${++visitorCounter}`;

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);

async function ownerWithChatbot(opts: { pro?: boolean; settings?: Record<string, unknown> } = {}) {
  const owner = await registerOwner(stack, opts.pro ? 'pro' : 'owner');
  if (opts.pro) await makePro(stack, owner);
  const created = await call('/api/chatbot', { body: { name: 'Widget Bot' }, token: owner.token });
  expect(created.status).toBe(201);
  const chatbot = created.body as { _id: string; uniqueId: string };
  if (opts.settings) {
    const put = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body: opts.settings, token: owner.token });
    expect([put.status, put.body]).toEqual([200, expect.anything()]);
  }
  return { owner, chatbot };
}

function chat(uniqueId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call(`/api/chatbot/public/${uniqueId}/chat`, {
    body: { model: 'gpt-4o-mini', ...body },
    headers: { 'x-forwarded-for': newVisitorIp(), ...headers },
  });
}

async function chatSql(sql: string, params: unknown[]) {
  const client = new pg.Client({ connectionString: stack.chatDatabase.databaseUrl });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${stack.chatDatabase.schema}"`);
    return (await client.query(sql, params)).rowCount;
  } finally {
    await client.end();
  }
}

describe('the public lookup', () => {
  it("adds the appearance (the product's defaults) and proofOfWork", async () => {
    const { chatbot } = await ownerWithChatbot();
    const res = await call(`/api/chatbot/public/${chatbot.uniqueId}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'appearance',
      'handoff',
      'leadForm',
      'name',
      'profilePicture',
      'proofOfWork',
      'suggestedQuestions',
      'welcomeMessage',
    ]);
    expect(res.body.appearance).toEqual({ primaryColor: null, position: 'right', launcherLabel: '', hideBranding: false });
    expect(res.body.proofOfWork).toBe(false);
  });

  it("carries the owner's appearance and proof of work", async () => {
    const { chatbot } = await ownerWithChatbot({
      pro: true,
      settings: {
        appearance: { primaryColor: '#12ab9f', position: 'left', launcherLabel: 'Ask us', hideBranding: true },
        limits: { proofOfWork: true },
      },
    });
    const res = await call(`/api/chatbot/public/${chatbot.uniqueId}`);
    expect(res.status).toBe(200);
    expect(res.body.appearance).toEqual({ primaryColor: '#12ab9f', position: 'left', launcherLabel: 'Ask us', hideBranding: true });
    expect(res.body.proofOfWork).toBe(true);
  });
});

describe('CORS', () => {
  it('lets any origin read the public paths, without credentials, errors included', async () => {
    const { chatbot } = await ownerWithChatbot();
    const lookup = await call(`/api/chatbot/public/${chatbot.uniqueId}`, { headers: { origin: SHOP } });
    expect(lookup.status).toBe(200);
    expect(lookup.headers.get('access-control-allow-origin')).toBe('*');
    expect(lookup.headers.get('access-control-allow-credentials')).toBeNull();

    const unknown = await call(`/api/chatbot/public/${'Z'.repeat(22)}`, { headers: { origin: SHOP } });
    expect([unknown.status, unknown.headers.get('access-control-allow-origin')]).toEqual([404, '*']);
    const malformed = await call(`/api/chatbot/public/${chatbot.uniqueId}/chat`, { rawBody: '{"message":', headers: { origin: SHOP } });
    expect([malformed.status, malformed.body, malformed.headers.get('access-control-allow-origin')]).toEqual([
      400,
      { message: 'Malformed JSON body' },
      '*',
    ]);
  });

  it('answers a preflight with 204, the methods and headers the widget uses, for ten minutes', async () => {
    const res = await fetch(`${stack.url}/api/chatbot/public/${'A'.repeat(22)}/chat`, {
      method: 'OPTIONS',
      headers: { origin: SHOP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-parley-embed' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('Content-Type, Accept, X-Parley-Embed');
    expect(res.headers.get('access-control-max-age')).toBe('600');
  });

  it('is nowhere else in the API', async () => {
    const owner = await registerOwner(stack);
    const current = await call('/api/auth/current', { token: owner.token, headers: { origin: SHOP } });
    expect(current.status).toBe(200);
    expect(current.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${stack.url}/api/chatbot`, {
      method: 'OPTIONS',
      headers: { origin: SHOP, 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect((await call('/graphql', { method: 'GET', headers: { origin: SHOP } })).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('where a chatbot may answer', () => {
  it('refuses another site than its allowed domains with 403, readable by the page, and serves the listed one', async () => {
    const { chatbot } = await ownerWithChatbot({ settings: { allowedDomains: ['shop.example.com'] } });
    const before = fake.requests.length;
    for (const origin of ['https://other.example.com', 'null', 'not a url']) {
      const lookup = await call(`/api/chatbot/public/${chatbot.uniqueId}`, { headers: { origin } });
      expect([origin, lookup.status, lookup.body]).toEqual([origin, 403, NOT_HERE]);
      expect(lookup.headers.get('access-control-allow-origin')).toBe('*');
      const sent = await chat(chatbot.uniqueId, { message: 'Hi' }, { origin });
      expect([origin, sent.status, sent.body]).toEqual([origin, 403, NOT_HERE]);
    }
    expect(fake.requests.length).toBe(before);
    // The listed site, on any port; and Parley's own page while the standalone page is on.
    expect((await chat(chatbot.uniqueId, { message: 'Hi' }, { origin: 'https://SHOP.example.com:8443' })).status).toBe(200);
    expect((await chat(chatbot.uniqueId, { message: 'Hi' }, { origin: stack.publicUrl })).status).toBe(200);
    expect((await chat(chatbot.uniqueId, { message: 'Hi' })).status).toBe(200);
  });

  it('tells the embed page from the standalone page by X-Parley-Embed when the standalone page is off', async () => {
    const { chatbot } = await ownerWithChatbot({ settings: { standalonePage: false } });
    const standalone = await call(`/api/chatbot/public/${chatbot.uniqueId}`, { headers: { origin: stack.publicUrl } });
    expect([standalone.status, standalone.body]).toEqual([403, NOT_HERE]);
    const embedded = await call(`/api/chatbot/public/${chatbot.uniqueId}`, { headers: { origin: stack.publicUrl, 'x-parley-embed': '1' } });
    expect(embedded.status).toBe(200);
    expect((await chat(chatbot.uniqueId, { message: 'Hi' }, { 'x-parley-embed': '1' })).status).toBe(200);
    expect((await chat(chatbot.uniqueId, { message: 'Hi' }, { 'x-parley-embed': 'yes' })).status).toBe(403);
  });
});

describe('the proof-of-work challenge', () => {
  it("is an ALTCHA challenge, under ALTCHA's own field names", async () => {
    const { chatbot } = await ownerWithChatbot({ settings: { limits: { proofOfWork: true } } });
    const res = await call(`/api/chatbot/public/${chatbot.uniqueId}/challenge`, { headers: { origin: SHOP } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual(['algorithm', 'challenge', 'maxnumber', 'salt', 'signature']);
    expect(res.body).toMatchObject({ algorithm: 'SHA-256', maxnumber: expect.any(Number) });
    for (const key of ['challenge', 'salt', 'signature']) expect(res.body[key]).toMatch(/^\S+$/);
    const unknown = await call(`/api/chatbot/public/${'Q'.repeat(22)}/challenge`);
    expect(unknown.status).toBe(404);
  });
});

describe('the chat body', () => {
  it.each([
    [{ visitor: 'customer-42' }, 'visitor must be an object'],
    [{ visitor: ['customer-42'] }, 'visitor must be an object'],
    [{ visitor: { id: 42 } }, 'visitor.id must be a string'],
    [{ visitor: { name: { first: 'Ada' } } }, 'visitor.name must be a string'],
    [{ proofOfWork: true }, 'proofOfWork must be a string'],
  ])('refuses %j with 400 without calling the model', async (extra, message) => {
    const { chatbot } = await ownerWithChatbot();
    const before = fake.requests.length;
    const res = await chat(chatbot.uniqueId, { message: 'Hi', ...extra });
    expect([res.status, res.body]).toEqual([400, { message }]);
    expect(fake.requests.length).toBe(before);
  });

  it('takes a visitor and an empty proof of work where none is asked for', async () => {
    const { chatbot } = await ownerWithChatbot();
    expect((await chat(chatbot.uniqueId, { message: 'Hi', visitor: { id: 'customer-42', name: 'Ada' } })).status).toBe(200);
    expect((await chat(chatbot.uniqueId, { message: 'Hi', visitor: {}, proofOfWork: '' })).status).toBe(200);
    expect((await chat(chatbot.uniqueId, { message: 'Hi', visitor: null })).status).toBe(200);
  });
});

describe("the visitor's identity in the owner's history", () => {
  it('is visitorId and visitorName over REST and GraphQL, null when the host page told nothing', async () => {
    const { owner, chatbot } = await ownerWithChatbot({ pro: true });
    const told = await chat(chatbot.uniqueId, { message: 'Who am I?' });
    const anonymous = await chat(chatbot.uniqueId, { message: 'Nobody' });
    expect([told.status, anonymous.status]).toEqual([200, 200]);
    // The recorder's part, written directly: this is about reading it back.
    expect(
      await chatSql(`UPDATE "Conversation" SET "visitorId" = 'customer-42', "visitorName" = 'Zoë' WHERE "sessionId" = $1`, [
        told.body.sessionId,
      ]),
    ).toBe(1);

    const list = await call(`/api/chatbot/${chatbot._id}/conversations`, { token: owner.token });
    expect(list.status).toBe(200);
    const bySession = new Map(list.body.map((c: any) => [c.sessionId, [c.visitorId, c.visitorName]]));
    expect(bySession).toEqual(
      new Map([
        [told.body.sessionId, ['customer-42', 'Zoë']],
        [anonymous.body.sessionId, [null, null]],
      ]),
    );
    const toldId = list.body.find((c: any) => c.sessionId === told.body.sessionId)._id;
    const detail = await call(`/api/chatbot/${chatbot._id}/conversations/${toldId}`, { token: owner.token });
    expect(detail.body).toMatchObject({ visitorId: 'customer-42', visitorName: 'Zoë' });

    const g = await gql(
      stack.url,
      `query ($chatbotId: ID!, $id: ID!) {
         conversations(chatbotId: $chatbotId) { id visitorId visitorName }
         conversation(chatbotId: $chatbotId, id: $id) { visitorId visitorName }
       }`,
      { chatbotId: chatbot._id, id: toldId },
      owner.token,
    );
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.conversation).toEqual({ visitorId: 'customer-42', visitorName: 'Zoë' });
    expect(g.body.data.conversations.map((c: any) => [c.id === toldId, c.visitorId, c.visitorName]).sort()).toEqual([
      [false, null, null],
      [true, 'customer-42', 'Zoë'],
    ]);
  });
});

describe('pages', () => {
  const frameAncestors = (res: Response) => /(?:^|;)\s*frame-ancestors ([^;]*)/.exec(res.headers.get('content-security-policy') ?? '')?.[1];

  it("serves the embed page as the chat page, framed by the chatbot's allowed domains and Parley only, without X-Frame-Options", async () => {
    const { chatbot } = await ownerWithChatbot({ settings: { allowedDomains: ['shop.example.com', 'localhost'] } });
    const res = await fetch(`${stack.url}/embed/${chatbot.uniqueId}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('data-page="chat"');
    expect(frameAncestors(res)).toBe("'self' http://shop.example.com:* https://shop.example.com:* http://localhost:* https://localhost:*");
    expect(res.headers.get('x-frame-options')).toBeNull();
    // The rest of the policy is the one every page has.
    const home = await fetch(`${stack.url}/`);
    const rest = (r: Response) => r.headers.get('content-security-policy')!.replace(/(^|;)frame-ancestors [^;]*/, '');
    expect(rest(res)).toBe(rest(home));
  });

  it('lets any site frame the embed page of a chatbot that runs anywhere, and only Parley that of an unknown one', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const anywhere = await fetch(`${stack.url}/embed/${chatbot.uniqueId}`);
    expect([anywhere.status, frameAncestors(anywhere), anywhere.headers.get('x-frame-options')]).toEqual([200, '*', null]);
    const off = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body: { isActive: false }, token: owner.token });
    expect(off.status).toBe(200);
    for (const path of [`/embed/${chatbot.uniqueId}`, `/embed/${'X'.repeat(22)}`, '/embed/%E0%A4%A', '/embed']) {
      const res = await fetch(stack.url + path);
      expect([path, res.status, frameAncestors(res)]).toEqual([path, 200, "'self'"]);
      expect(await res.text()).toContain('data-page="chat"');
    }
  });

  it('keeps every other page framed by Parley only', async () => {
    for (const path of ['/', '/dashboard', `/chat/${'A'.repeat(22)}`]) {
      const res = await fetch(stack.url + path);
      expect([path, frameAncestors(res), res.headers.get('x-frame-options')]).toEqual([path, "'self'", 'SAMEORIGIN']);
    }
  });

  it('serves /widget.js as JavaScript any site may load, cached for five minutes with an ETag (404 until built)', async () => {
    const missing = await fetch(`${stack.url}/widget.js`);
    expect(missing.status).toBe(404);
    writeFileSync(join(stack.webDistDir, 'widget.js'), '(()=>{window.Parley={}})();\n');
    const res = await fetch(`${stack.url}/widget.js`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('(()=>{window.Parley={}})();\n');
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript(;|$)/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const etag = res.headers.get('etag');
    expect(etag).toBeTruthy();
    // fetch would add `Cache-Control: no-cache` to a conditional request, which asks the server for the whole file.
    const again = await fetch(`${stack.url}/widget.js`, { headers: { 'if-none-match': etag!, 'cache-control': 'max-age=0' } });
    expect(again.status).toBe(304);
    expect(again.headers.get('cache-control')).toBe('public, max-age=300');
    // Hashed assets keep their own caching and policy.
    const asset = await fetch(`${stack.url}/assets/index-abc123.js`);
    expect(asset.headers.get('cross-origin-resource-policy')).toBe('same-origin');
  });
});
