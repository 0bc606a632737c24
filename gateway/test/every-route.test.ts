// Every REST route against what an attacker or a broken client sends: ids that are not ids or are
// someone else's, bodies that are not JSON, are the wrong shape or types, carry control characters or
// are too large, under two content types. Each answer is a 4xx or a success with a JSON body, never a
// 5xx, and the stack still serves a signed-in owner afterwards. The routes are those the gateway
// declares (the features' operation tables, gateway/src/access/permissions.ts's OPERATIONS): a route added without being listed here fails the first test.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../src/access/permissions.ts';
import { registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, startStack, type Stack } from './stack.ts';

let stack: Stack;
let owner: Owner;
let chatbot: { id: string; uniqueId: string };

beforeAll(async () => {
  stack = await startStack();
  owner = await registerOwner(stack, 'every-route');
  const created = await api(stack.url, '/api/chatbot', { body: { name: 'Target' }, token: owner.token });
  expect(created.status).toBe(201);
  chatbot = { id: created.body._id, uniqueId: created.body.uniqueId };
});
afterAll(async () => {
  await stack?.close();
});

/** Every route under /api, every feature's operation rows; the deletions last, so the rest meet a live chatbot. */
const ROUTES: Array<[string, string]> = [
  ['POST', '/api/auth/register'],
  ['POST', '/api/auth/login'],
  ['POST', '/api/auth/login/two-factor'],
  ['GET', '/api/auth/sso/start'],
  ['GET', '/api/auth/sso/oidc/callback'],
  ['POST', '/api/auth/sso/saml/acs'],
  ['GET', '/api/auth/sso/saml/metadata/:workspace'],
  ['GET', '/api/auth/current'],
  ['POST', '/api/auth/forgot-password'],
  ['POST', '/api/auth/reset-password'],
  ['GET', '/api/chatbot/public/:uniqueId'],
  ['POST', '/api/channels/telegram/:connectionId'],
  ['POST', '/api/channels/slack/:connectionId'],
  ['POST', '/api/channels/slack/events'],
  ['GET', '/api/chatbot/:chatbotId/channels/slack/install'],
  ['POST', '/api/chatbot/:chatbotId/channels/slack/install'],
  ['GET', '/api/channels/slack/oauth/callback'],
  ['POST', '/api/channels/email/:connectionId'],
  ['POST', '/api/channels/sms/:connectionId'],
  ['GET', '/api/channels/whatsapp/:connectionId'],
  ['POST', '/api/channels/whatsapp/:connectionId'],
  ['GET', '/api/channels/messenger/:connectionId'],
  ['POST', '/api/channels/messenger/:connectionId'],
  ['GET', '/api/channels/instagram/:connectionId'],
  ['POST', '/api/channels/instagram/:connectionId'],
  ['GET', '/api/chatbot/public/:uniqueId/challenge'],
  ['POST', '/api/chatbot/public/:uniqueId/chat'],
  ['POST', '/api/chatbot/public/:uniqueId/feedback'],
  ['POST', '/api/chatbot/public/:uniqueId/lead'],
  ['POST', '/api/chatbot/public/:uniqueId/handoff'],
  ['GET', '/api/chatbot/public/:uniqueId/events'],
  ['GET', '/api/chatbot'],
  ['POST', '/api/chatbot'],
  ['GET', '/api/chatbot/:id'],
  ['PUT', '/api/chatbot/:id'],
  ['POST', '/api/chatbot/:id/profile-picture'],
  ['POST', '/api/chatbot/:id/knowledge-base/text'],
  ['POST', '/api/chatbot/:id/knowledge-base/files'],
  ['POST', '/api/chatbot/:id/knowledge-base/urls'],
  ['POST', '/api/chatbot/:id/knowledge-base/qa'],
  ['POST', '/api/chatbot/:id/knowledge-base/text-entries/:entryId/refresh'],
  ['PUT', '/api/chatbot/:id/knowledge-base/text-entries/:entryId'],
  ['GET', '/api/chatbot/:id/conversations'],
  ['GET', '/api/chatbot/:id/conversations/export'],
  ['GET', '/api/chatbot/:id/conversations/:conversationId'],
  ['GET', '/api/chatbot/:id/analytics'],
  ['GET', '/api/chatbot/:id/unanswered-questions'],
  ['POST', '/api/chatbot/:id/unanswered-questions/:questionId/answer'],
  ['POST', '/api/chatbot/:id/unanswered-questions/:questionId/dismiss'],
  ['GET', '/api/chatbot/:id/actions'],
  ['GET', '/api/chatbot/:id/actions/calls'],
  ['POST', '/api/chatbot/:id/actions'],
  ['PUT', '/api/chatbot/:id/actions/:actionId'],
  ['POST', '/api/chatbot/:id/actions/:actionId/test'],
  ['DELETE', '/api/chatbot/:id/actions/:actionId'],
  ['GET', '/api/chatbot/:id/mcp-servers'],
  ['GET', '/api/chatbot/:id/mcp-servers/calls'],
  ['POST', '/api/chatbot/:id/mcp-servers'],
  ['POST', '/api/chatbot/:id/mcp-servers/:serverId/refresh'],
  ['PUT', '/api/chatbot/:id/mcp-servers/:serverId/tools'],
  ['DELETE', '/api/chatbot/:id/mcp-servers/:serverId'],
  ['GET', '/api/models'],
  ['GET', '/api/analytics/summary'],
  ['GET', '/api/leads/export'],
  ['GET', '/api/inbox/events'],
  ['GET', '/api/user/usage'],
  ['PUT', '/api/user/profile'],
  ['PUT', '/api/user/email'],
  ['PUT', '/api/user/password'],
  ['GET', '/api/user/sessions'],
  ['GET', '/api/user/export'],
  ['GET', '/api/user/two-factor'],
  ['POST', '/api/user/two-factor/enrolment'],
  ['POST', '/api/user/two-factor/enrolment/confirm'],
  ['POST', '/api/user/two-factor/recovery-codes'],
  ['DELETE', '/api/user/two-factor'],
  ['GET', '/api/payment/options'],
  ['POST', '/api/payment/create-customer'],
  ['POST', '/api/payment/create-checkout-session'],
  ['POST', '/api/payment/portal-session'],
  ['POST', '/api/payment/webhook'],
  ['GET', '/api/workspaces'],
  ['POST', '/api/workspaces'],
  ['GET', '/api/workspace'],
  ['PATCH', '/api/workspace'],
  ['PUT', '/api/workspace/require-two-factor'],
  ['GET', '/api/workspace/members'],
  ['PATCH', '/api/workspace/members/:userId'],
  ['DELETE', '/api/workspace/members/:userId'],
  ['POST', '/api/workspace/leave'],
  ['POST', '/api/workspace/transfer'],
  ['GET', '/api/workspace/invitations'],
  ['POST', '/api/workspace/invitations'],
  ['POST', '/api/workspace/invitations/:id/resend'],
  ['DELETE', '/api/workspace/invitations/:id'],
  ['GET', '/api/workspace/audit-log'],
  ['GET', '/api/workspace/webhooks'],
  ['POST', '/api/workspace/webhooks'],
  ['GET', '/api/workspace/webhooks/event-types'],
  ['PATCH', '/api/workspace/webhooks/:id'],
  ['POST', '/api/workspace/webhooks/:id/roll-secret'],
  ['POST', '/api/workspace/webhooks/:id/test'],
  ['GET', '/api/workspace/webhooks/:id/deliveries'],
  ['POST', '/api/workspace/webhooks/:id/deliveries/:deliveryId/redeliver'],
  ['DELETE', '/api/workspace/webhooks/:id'],
  ['GET', '/api/workspace/api-keys'],
  ['POST', '/api/workspace/api-keys'],
  ['POST', '/api/workspace/api-keys/:id/roll'],
  ['DELETE', '/api/workspace/api-keys/:id'],
  ['GET', '/api/workspace/security'],
  ['PUT', '/api/workspace/security'],
  ['POST', '/api/workspace/security/test-sign-in'],
  ['GET', '/api/workspace/provider-keys'],
  ['PUT', '/api/workspace/provider-keys/:provider'],
  ['DELETE', '/api/workspace/provider-keys/:provider'],
  ['GET', '/api/api-scopes'],
  ['GET', '/api/invitations/:token'],
  ['POST', '/api/invitations/:token/accept'],
  ['DELETE', '/api/workspace'],
  ['DELETE', '/api/chatbot/:id/knowledge-base/text-entries/:entryId'],
  ['DELETE', '/api/user/account'],
  ['DELETE', '/api/chatbot/:id'],
];

/** Routes with effects on the session the sweep signs in with: checked elsewhere, left out here. */
const NOT_SWEPT = new Set(['GET /api/auth/logout', 'POST /api/user/sessions/revoke-others']);

/** An id of each kind a route can be given: the owner's own, malformed, unknown, absurdly long, a path trick. */
const ids = () => [chatbot.id, 'not-a-uuid', '00000000-0000-4000-8000-000000000000', 'x'.repeat(3000), '..%2F..%2Fetc'];

const BODIES = [
  '{',
  '[]',
  'null',
  '"text"',
  JSON.stringify({
    name: 123,
    email: 1,
    password: [],
    message: { a: 1 },
    sessionId: [],
    messageId: {},
    rating: 7,
    question: null,
    answer: 5,
    urls: 'x',
    title: {},
    content: [],
    token: 9,
    amount: 'lots',
  }),
  JSON.stringify({ name: '\u0000\u0007\u001b[31m', message: 'a\u0000b', email: 'a@b.c\u0000', content: '\ud800', title: '\u202e' }),
  JSON.stringify({
    appearance: { primaryColor: 5, position: {}, hideBranding: 'yes', launcherLabel: 'x'.repeat(10_000) },
    limits: { visitorMessagesPerDay: -1, dailySpendLimit: 'NaN' },
    allowedDomains: [1, null, 'a'.repeat(5000)],
    isActive: 'maybe',
    language: 'klingon',
    leadForm: { name: 7, email: 'sometimes', afterMessages: 1e99, consentText: '\u0000' },
    handoff: { enabled: 'yes', timeoutSeconds: -5 },
    phone: [],
    consent: 'maybe',
    source: {},
  }),
];

/** Past the body limit: sent once a route, with the owner's own ids. */
const HUGE = JSON.stringify({ message: 'x'.repeat(3_000_000) });

/** One request's body (none, JSON, or the same bytes labelled text/plain) or query. */
type Send = { rawBody?: string; text?: boolean; query?: string };

const HOSTILE_QUERY =
  '?startDate=2026-13-45&endDate[a]=1&endDate=2026-01-01&format=xml&format=csv&chatbotId=..%2F&from=%E0%A4%A&limit=-1&offset=1e99&cursor=%00';

function fill(path: string, id: string): string {
  const encoded = id.includes('%') ? id : encodeURIComponent(id);
  return path.replace(':uniqueId', id === chatbot.id ? chatbot.uniqueId : encoded).replace(/:[a-zA-Z]+/g, encoded);
}

describe('every REST route', () => {
  it('is in the sweep: each route the gateway declares is listed', () => {
    const features = new URL('../src/features/', import.meta.url);
    const dirs = readdirSync(features, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => new URL(`${e.name}/`, features));
    const declared = [
      new URL('../src/http/api.ts', import.meta.url),
      ...dirs.flatMap((dir) =>
        readdirSync(dir)
          .filter((f) => f.endsWith('.ts'))
          .map((f) => new URL(f, dir)),
      ),
    ]
      .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/router\.(get|post|put|delete|patch)\(\s*'([^']+)'/g)])
      .map(([, method, path]) => [method.toUpperCase(), path] as const)
      // The features' operation tables (http/operations.ts) name their whole paths.
      .concat(OPERATIONS.map((op) => [op.method.toUpperCase(), op.path] as const))
      .filter(([method, path]) => !NOT_SWEPT.has(`${method} ${path}`));
    const unlisted = declared.filter(([method, path]) => !ROUTES.some(([m, p]) => m === method && (path === '/' || p.endsWith(path))));
    expect(unlisted).toEqual([]);
  });

  it('answers hostile ids and bodies with a 4xx or a success, never a 5xx, and keeps serving', async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const [method, path] of ROUTES) {
      for (const id of path.includes(':') ? ids() : [chatbot.id]) {
        const url = fill(path, id);
        // With the owner's own ids every body, also as text/plain, and one past the limit; with the others, the JSON bodies.
        const own = id === chatbot.id;
        const bodies: Send[] = own
          ? [...BODIES.flatMap((rawBody) => [{ rawBody }, { rawBody, text: true }]), { rawBody: HUGE }]
          : BODIES.map((rawBody) => ({ rawBody }));
        // A read also gets a query of impossible dates, repeated and nested names, and a bad encoding.
        const sends: Send[] = method === 'GET' || method === 'DELETE' ? [{}, { query: HOSTILE_QUERY }] : bodies;
        for (const send of sends) {
          const headers = send.text ? { 'content-type': 'text/plain' } : undefined;
          const res = await api(stack.url, url + (send.query ?? ''), { method, token: owner.token, rawBody: send.rawBody, headers });
          sent += 1;
          if (res.status >= 500) failures.push(`${res.status} ${method} ${url.slice(0, 100)} ${String(send.rawBody).slice(0, 50)}`);
        }
      }
    }
    expect(sent).toBeGreaterThan(500);
    expect(failures).toEqual([]);
    // The owner was signed in throughout (nothing above signed them out, so the routes were reached),
    // and the stack still serves: a new owner signs up and lists their chatbots.
    expect((await api(stack.url, '/api/auth/current', { token: owner.token })).status).toBe(200);
    const after = await registerOwner(stack, 'every-route-after');
    expect((await api(stack.url, '/api/chatbot', { token: after.token })).status).toBe(200);
  }, 180_000);
});
