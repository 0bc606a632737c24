// Viewers never see visitors' words as typed (docs/product.md, Workspaces; docs/adr/0030-workspaces.md):
// in a pro team workspace a visitor asks a question carrying an email address and a phone number,
// leaves them as a lead and waits for a person; then every REST GET route of the gateway, every
// GraphQL query (each with every field it can select) and every GET route of the developer API (with
// a key holding chatbots:read and usage:read, not conversations:read) is called as a Viewer, and no
// answer holds the email or the phone. The analytics' most asked questions reach the Viewer masked
// ("[email]", "[phone]", questionsRedacted true); an agent and the owner read them as typed, and a
// key holding conversations:read reads the conversation itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@parley/common/logger.ts';
import { createGateway } from '../src/http/app.ts';
import { readGatewayConfig } from '../src/config.ts';
import { API_V1_PREFIX, API_V1_ROUTES } from '../src/v1/routes.ts';
import { waitFor } from './billing-fixtures.ts';
import type { Owner } from './chatbot-fixtures.ts';
import { api, gql, startStack, type ApiResponse, type Stack } from './stack.ts';
import { createTeam, gqlIn, inWorkspace, setWorkspacePlan, type Team } from './workspace-fixtures.ts';

const EMAIL = 'jo@example.com';
const PHONE = '+44 20 7946 0958';
const QUESTION = `Call me on ${PHONE} or mail ${EMAIL} about my order`;
const MASKED = 'Call me on [phone] or mail [email] about my order';
const PLAIN = 'Can it arrive by 2026-12-01 for $10.00?';
const BOGUS = '00000000-0000-4000-8000-000000000000';
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
/** The last 30 days, today included: what the usage paths are asked for. */
const RANGE = { startDate: day(-29), endDate: day(0) };

/** Whether an answer (any status, any shape) holds the visitor's email or phone, however it is spaced. */
const leaks = (body: unknown) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? null);
  return text.toLowerCase().includes(EMAIL) || /7946[\s().-]*0958/.test(text);
};

let stack: Stack;
let team: Team;
let viewer: Owner;
let chatbot: { id: string; uniqueId: string };
let conversationId: string;
let sessionId: string;

beforeAll(async () => {
  // No model: the offline answers cost nothing (a new team workspace has no credit), and an empty
  // knowledge base answers nothing, so the question is an unanswered one too.
  stack = await startStack();
  team = await createTeam(stack, 'viewer-sweep');
  viewer = team.members.viewer;
  await setWorkspacePlan(stack, team.owner, team.id, 'pro');
  const created = await inWorkspace(stack, team.id, '/api/chatbot', { body: { name: 'Shop bot' }, token: team.owner.token });
  expect(created.status).toBe(201);
  chatbot = { id: created.body._id, uniqueId: created.body.uniqueId };
  const settings = await inWorkspace(stack, team.id, `/api/chatbot/${chatbot.id}`, {
    method: 'PUT',
    body: { leadForm: { email: 'optional', phone: 'optional', trigger: 'when_unanswered' }, handoff: { enabled: true } },
    token: team.owner.token,
  });
  expect(settings.status).toBe(200);

  // The visitor: the question twice (two visitors), another question once, their lead, and a request for a person.
  const ask = (message: string, ip: string) =>
    api(stack.url, `/api/chatbot/public/${chatbot.uniqueId}/chat`, {
      body: { message, model: 'gpt-4o-mini' },
      headers: { 'x-forwarded-for': ip },
    });
  const first = await ask(QUESTION, '203.0.113.10');
  expect(first.status).toBe(200);
  sessionId = first.body.sessionId;
  expect((await ask(QUESTION, '203.0.113.11')).status).toBe(200);
  expect((await ask(PLAIN, '203.0.113.12')).status).toBe(200);
  const lead = await api(stack.url, `/api/chatbot/public/${chatbot.uniqueId}/lead`, {
    body: { sessionId, email: EMAIL, phone: PHONE },
    headers: { 'x-forwarded-for': '203.0.113.10' },
  });
  expect(lead.status).toBe(201);
  const handoff = await api(stack.url, `/api/chatbot/public/${chatbot.uniqueId}/handoff`, {
    body: { sessionId },
    headers: { 'x-forwarded-for': '203.0.113.10' },
  });
  expect(handoff.status).toBe(200);

  // The owner reads it all: the conversation, and the analytics once the worker has counted the questions.
  const conversations = await inWorkspace(stack, team.id, `/api/chatbot/${chatbot.id}/conversations`, { token: team.owner.token });
  expect(conversations.status).toBe(200);
  conversationId = conversations.body.find((c: { sessionId: string }) => c.sessionId === sessionId)._id;
  const analytics = await waitFor(
    () => inWorkspace(stack, team.id, `/api/chatbot/${chatbot.id}/analytics`, { token: team.owner.token }),
    (res) => res.status !== 200 || res.body.topQuestions.reduce((n: number, q: { count: number }) => n + q.count, 0) >= 3,
  );
  expect(analytics.body.topQuestions).toEqual([
    { question: QUESTION, count: 2 },
    { question: PLAIN, count: 1 },
  ]);
  await waitFor(
    () => inWorkspace(stack, team.id, `/api/chatbot/${chatbot.id}/unanswered-questions`, { token: team.owner.token }),
    (res) => res.status !== 200 || res.body.length > 0,
  );
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: unknown;
}

/** Every GET route of an Express router and the routers mounted in it, as `/path/:param` (as the roles sweep reads them). */
function getRoutesOf(layers: Layer[], prefix = ''): string[] {
  return layers.flatMap((layer) => {
    if (layer.route) return layer.route.methods.get ? [layer.route.path === '/' && prefix ? prefix : `${prefix}${layer.route.path}`] : [];
    if (layer.handle?.stack)
      return getRoutesOf(layer.handle.stack, typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? prefix + layer.rawPath : prefix);
    return [];
  });
}

async function registeredGetRoutes(): Promise<string[]> {
  const parts = await createGateway(readGatewayConfig({ ...stack.gatewayEnv, LOG_LEVEL: 'silent' }), {
    logger: createLogger('viewer-sweep', 'silent'),
  });
  try {
    return [...new Set(getRoutesOf((parts.app as unknown as { router: { stack: Layer[] } }).router.stack))];
  } finally {
    for (const close of parts.closers) await close();
  }
}

/** A route's path with this workspace's chatbot, conversation and session in it, and the query it needs. */
function pathOf(template: string): string {
  const query: Record<string, string> = {
    '/api/user/usage': `?startDate=${RANGE.startDate}&endDate=${RANGE.endDate}`,
    [`${API_V1_PREFIX}/usage`]: `?startDate=${RANGE.startDate}&endDate=${RANGE.endDate}`,
    '/api/chatbot/:id/conversations/export': '?format=csv',
    '/api/leads/export': '',
    // The public paths as anyone may call them: without the visitor's own session, which a member never holds.
    '/api/chatbot/public/:uniqueId/events': '?sessionId=not-the-visitors-session',
  };
  return (
    template
      .replace(':uniqueId', chatbot.uniqueId)
      .replace('/chatbot/:id', `/chatbot/${chatbot.id}`)
      .replace('/chatbots/:id', `/chatbots/${chatbot.id}`)
      .replace(':conversationId', template.startsWith(API_V1_PREFIX) ? sessionId : conversationId)
      .replace(/:[A-Za-z]+/g, BOGUS) + (query[template] ?? '')
  );
}

/** A live stream's first bytes (a refusal's JSON, or whatever it sent first), then the client leaves. */
async function firstOf(path: string, headers: Record<string, string>): Promise<ApiResponse> {
  const abort = new AbortController();
  const res = await fetch(stack.url + path, { headers: { ...headers, accept: 'text/event-stream' }, signal: abort.signal });
  let body: unknown;
  if (res.headers.get('content-type')?.includes('application/json')) body = await res.json();
  else {
    const reader = res.body!.getReader();
    const timer = setTimeout(() => abort.abort(), 1000);
    let text = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    } catch {
      // the client left
    }
    clearTimeout(timer);
    body = text;
  }
  abort.abort();
  return { status: res.status, headers: res.headers, body };
}

/** Live streams: read for a moment, never to their end. */
const STREAMS = new Set(['/api/inbox/events', '/api/chatbot/public/:uniqueId/events']);
/**
 * Left out: signing out (it would end the sweep's session), and the development mail page (never
 * mounted in production, answered only to a browser on the same machine), which shows every mail of
 * the local outbox, the agents' "a visitor is waiting" mail among them.
 */
const NOT_A_SCREEN = new Set(['/api/auth/logout', '/dev/mail']);
/** What holds visitors' words whole: a Viewer is refused it (403), whatever else the sweep finds. */
const CONVERSATIONS = [
  '/api/chatbot/:id/conversations',
  '/api/chatbot/:id/conversations/:conversationId',
  '/api/chatbot/:id/conversations/export',
  '/api/chatbot/:id/unanswered-questions',
  '/api/leads/export',
  '/api/inbox/events',
];

/** Every REST GET route's answer to a member: the routes whose answer holds the email or the phone, and each route's status. */
async function restSweep(routes: string[], person: Owner) {
  const found: string[] = [];
  const statuses: Record<string, number> = {};
  for (const route of routes) {
    const path = pathOf(route);
    const headers = { authorization: `Bearer ${person.token}`, 'x-workspace-id': team.id };
    const res = STREAMS.has(route) ? await firstOf(path, headers) : await inWorkspace(stack, team.id, path, { token: person.token });
    statuses[route] = res.status;
    if (leaks(res.body)) found.push(route);
  }
  return { found, statuses };
}

describe("a Viewer's every screen and API", () => {
  it('REST: no GET route answers a Viewer the email or the phone; those holding conversations refuse them and answer an agent', async () => {
    const routes = (await registeredGetRoutes()).filter((r) => !NOT_A_SCREEN.has(r) && !r.startsWith(API_V1_PREFIX));
    expect(routes.length).toBeGreaterThan(25);
    for (const route of CONVERSATIONS) expect(routes).toContain(route);

    const asViewer = await restSweep(routes, viewer);
    expect(asViewer.found).toEqual([]);
    expect(CONVERSATIONS.map((r) => [r, asViewer.statuses[r]])).toEqual(CONVERSATIONS.map((r) => [r, 403]));
    // What a Viewer does read, they read.
    for (const route of ['/api/chatbot', '/api/chatbot/:id', '/api/chatbot/:id/analytics', '/api/analytics/summary', '/api/user/usage'])
      expect([route, asViewer.statuses[route]]).toEqual([route, 200]);

    // The same sweep as an agent finds the visitor's words where they are: the sweep has teeth.
    const asAgent = await restSweep(routes, team.members.agent);
    const WORDS = [
      '/api/chatbot/:id/conversations/:conversationId',
      '/api/chatbot/:id/conversations/export',
      '/api/chatbot/:id/unanswered-questions',
      '/api/leads/export',
      '/api/chatbot/:id/analytics',
      '/api/analytics/summary',
    ];
    expect(asAgent.found).toEqual(expect.arrayContaining(WORDS));
  });

  it('REST and GraphQL: the most asked questions reach a Viewer masked, and an agent and the owner as typed', async () => {
    const ANALYTICS = `query ($id: ID!) {
      analytics(chatbotId: $id) { full topQuestions { question count } questionsRedacted }
      analyticsSummary { full topQuestions { question count } questionsRedacted } }`;
    const expected = (question: string, questionsRedacted: boolean) => ({
      full: true,
      topQuestions: [
        { question, count: 2 },
        { question: PLAIN, count: 1 },
      ],
      questionsRedacted,
    });
    for (const [who, person, question, redacted] of [
      ['viewer', viewer, MASKED, true],
      ['agent', team.members.agent, QUESTION, false],
      ['owner', team.owner, QUESTION, false],
    ] as const) {
      for (const path of [`/api/chatbot/${chatbot.id}/analytics`, '/api/analytics/summary']) {
        const res = await inWorkspace(stack, team.id, path, { token: person.token });
        expect({ who, path, status: res.status, ...pick(res.body) }).toEqual({ who, path, status: 200, ...expected(question, redacted) });
      }
      const g = await gqlIn(stack, team.id, person.token, ANALYTICS, { id: chatbot.id });
      expect(g.body.errors).toBeUndefined();
      expect({ who, ...g.body.data }).toEqual({
        who,
        analytics: expected(question, redacted),
        analyticsSummary: expected(question, redacted),
      });
    }
  });

  it('GraphQL: no query, with every field it can select, answers a Viewer the email or the phone; an agent reads them', async () => {
    const types = await schemaTypes();
    expect(types.get('Query')!.fields!.length).toBeGreaterThan(20);
    const asViewer = await graphqlSweep(types, viewer);
    expect(asViewer.found).toEqual([]);
    for (const name of ['chatbots', 'chatbot', 'analytics', 'analyticsSummary', 'usage', 'currentWorkspace', 'members'])
      expect(asViewer.answered).toContain(name);
    const WORDS = ['conversations', 'conversation', 'unansweredQuestions', 'leads', 'inbox', 'inboxConversation'];
    for (const name of WORDS) expect(asViewer.answered).not.toContain(name);

    // The same sweep as an agent finds the visitor's words where they are: the sweep has teeth.
    const asAgent = await graphqlSweep(types, team.members.agent);
    expect(asAgent.found).toEqual(
      expect.arrayContaining(['conversation', 'unansweredQuestions', 'leads', 'inboxConversation', 'analytics', 'analyticsSummary']),
    );
  });

  it('the developer API: a key without conversations:read finds the email and the phone nowhere; one with it reads the conversation', async () => {
    const key = async (scopes: string[]) => {
      const res = await inWorkspace(stack, team.id, '/api/workspace/api-keys', {
        body: { name: scopes.join(' '), scopes },
        token: team.owner.token,
      });
      expect(res.status).toBe(201);
      return res.body.secret as string;
    };
    const reader = await key(['chatbots:read', 'usage:read']);
    const gets = Object.keys(API_V1_ROUTES)
      .filter((k) => k.startsWith('GET '))
      .map((k) => k.slice(4));
    expect(gets.length).toBeGreaterThan(5);
    const found: string[] = [];
    const statuses: Record<string, number> = {};
    for (const route of gets) {
      const res = await api(stack.url, pathOf(route), { token: reader });
      statuses[route] = res.status;
      if (leaks(res.body)) found.push(`${route} ${res.status}`);
    }
    expect(found).toEqual([]);
    expect(statuses[`${API_V1_PREFIX}/chatbots`]).toBe(200);
    expect(statuses[`${API_V1_PREFIX}/usage`]).toBe(200);
    expect(statuses[`${API_V1_PREFIX}/chatbots/:id/conversations/:conversationId/messages`]).toBe(403);

    const agentKey = await key(['chatbots:read', 'usage:read', 'conversations:read']);
    const messages = await api(stack.url, `${API_V1_PREFIX}/chatbots/${chatbot.id}/conversations/${sessionId}/messages`, {
      token: agentKey,
    });
    expect(messages.status).toBe(200);
    expect(messages.body.data[0]).toMatchObject({ role: 'user', content: QUESTION });
  });
});

/** Every GraphQL query, each selecting all it can: the queries whose answer holds the email or the phone, and those answered. */
async function graphqlSweep(types: Map<string, FullType>, person: Owner) {
  const found: string[] = [];
  const answered: string[] = [];
  for (const field of types.get('Query')!.fields!) {
    const required = field.args.filter((a) => a.type.kind === 'NON_NULL');
    const defs = required.map((a) => `$${a.name}: ${typeText(a.type)}`).join(', ');
    const args = required.map((a) => `${a.name}: $${a.name}`).join(', ');
    const variables = Object.fromEntries(required.map((a) => [a.name, argument(field.name, a.name)]));
    // As deep as the gateway's limits take (lists of lists cost more): the deepest selection it accepts.
    let res: ApiResponse | undefined;
    for (let levels = 4; levels >= 1; levels--) {
      const query = `query Sweep${defs ? `(${defs})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection(field.type, types, levels)} }`;
      res = await gqlIn(stack, team.id, person.token, query, variables);
      if (!/asks for too much/.test(res.body?.errors?.[0]?.message ?? '')) break;
    }
    // A query the schema and the limits take: a refusal or an answer, never a malformed or refused operation.
    const code = res!.body?.errors?.[0]?.extensions?.code;
    expect({ field: field.name, code, message: res!.body?.errors?.[0]?.message }).not.toMatchObject({
      code: expect.stringMatching(/^GRAPHQL_(VALIDATION_FAILED|PARSE_FAILED)$/),
    });
    expect({ field: field.name, message: res!.body?.errors?.[0]?.message }).not.toMatchObject({
      message: expect.stringMatching(/asks for too much/),
    });
    if (leaks(res!.body)) found.push(field.name);
    if (res!.body?.data?.[field.name] != null) answered.push(field.name);
  }
  return { found, answered };
}

const pick = (body: any) => ({ full: body?.full, topQuestions: body?.topQuestions, questionsRedacted: body?.questionsRedacted });

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface FullType {
  name: string;
  kind: string;
  fields: Array<{ name: string; args: Array<{ name: string; type: TypeRef }>; type: TypeRef }> | null;
}
const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';

async function schemaTypes(): Promise<Map<string, FullType>> {
  const res = await gql(
    stack.url,
    `{ __schema { types { name kind fields { name args { name type { ${TYPE_REF} } } type { ${TYPE_REF} } } } } }`,
    {},
    team.owner.token,
  );
  return new Map(res.body.data.__schema.types.map((t: FullType) => [t.name, t]));
}

const typeText = (t: TypeRef): string =>
  t.kind === 'NON_NULL' ? `${typeText(t.ofType!)}!` : t.kind === 'LIST' ? `[${typeText(t.ofType!)}]` : t.name!;
const named = (t: TypeRef): TypeRef => (t.ofType ? named(t.ofType) : t);

/** Every field of an object type that takes no required argument, nested objects too, `levels` deep. */
function selection(t: TypeRef, types: Map<string, FullType>, levels: number): string {
  const type = types.get(named(t).name!)!;
  if (type.kind !== 'OBJECT') return '';
  if (levels === 0) return ' { __typename }';
  const fields = type
    .fields!.filter((f) => !f.args.some((a) => a.type.kind === 'NON_NULL'))
    .map((f) => `${f.name}${selection(f.type, types, levels - 1)}`);
  return ` { ${fields.join(' ')} }`;
}

/** The value of a query's required argument: this workspace's chatbot and conversation where one is named. */
function argument(query: string, name: string): unknown {
  if (name === 'chatbotId') return chatbot.id;
  if (name === 'id') return query === 'chatbot' ? chatbot.id : conversationId;
  if (name === 'startDate') return RANGE.startDate;
  if (name === 'endDate') return RANGE.endDate;
  return BOGUS;
}
