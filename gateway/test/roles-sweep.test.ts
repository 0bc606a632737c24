// The roles sweep (docs/adr/0030-workspaces.md): every REST route registered on the gateway's Express
// app and every GraphQL Query and Mutation field must be named in src/permissions.ts; then each is
// called, in a team workspace with a chatbot, by a member of every role and by a member of another
// workspace, and answers exactly as the table says: a role holding the permission gets past the
// check, a role without it gets 403 with the role's message, the outsider gets 404 (another
// workspace's id reveals nothing); 'session' and 'public' entries let everyone through; 'api-key'
// entries (the developer API) let no member's session through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { can, ROLES, type Role } from '@parley/common/roles.ts';
import { createGateway } from '../src/http/app.ts';
import { readGatewayConfig } from '../src/config.ts';
import { roleLacksPermission, WORKSPACE_NOT_FOUND } from '../src/http/errors.ts';
import { ACCESS, accessOf, isPermission, type Access } from '../src/access/permissions.ts';
import { createLogger } from '@parley/common/logger.ts';
import { PASSWORD, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { gql, startStack, uniqueEmail, type ApiResponse, type Stack } from './stack.ts';
import { createTeam, gqlIn, inWorkspace, setMembership, setWorkspacePlan, type Team } from './workspace-fixtures.ts';

let stack: Stack;
let team: Team;
let outsider: Owner;
let chatbot: { id: string; uniqueId: string };
const BOGUS = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  // Seats enough for every invitation the sweep sends.
  stack = await startStack({ gatewayEnv: { SEATS_PRO: '500' } });
  team = await createTeam(stack, 'sweep');
  await setWorkspacePlan(stack, team.owner, team.id, 'pro');
  outsider = await registerOwner(stack, 'sweep-outsider');
  const created = await inWorkspace(stack, team.id, '/api/chatbot', { body: { name: 'Team bot' }, token: team.owner.token });
  expect(created.status).toBe(201);
  chatbot = { id: created.body._id, uniqueId: created.body.uniqueId };
});
afterAll(async () => {
  await stack?.close();
});

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: unknown;
}

/** Every route of an Express router and the routers mounted in it, as `METHOD /path/:param`. */
function routesOf(stack: Layer[], prefix = ''): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const path = layer.route.path === '/' && prefix ? prefix : `${prefix}${layer.route.path}`;
      return Object.keys(layer.route.methods)
        .filter((m) => m !== '_all')
        .map((m) => `${m.toUpperCase()} ${path}`);
    }
    if (layer.handle?.stack)
      return routesOf(layer.handle.stack, typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? prefix + layer.rawPath : prefix);
    return [];
  });
}

async function registeredRoutes(): Promise<string[]> {
  const parts = await createGateway(readGatewayConfig({ ...stack.gatewayEnv, LOG_LEVEL: 'silent' }), {
    logger: createLogger('sweep', 'silent'),
  });
  try {
    return [...new Set(routesOf((parts.app as unknown as { router: { stack: Layer[] } }).router.stack))];
  } finally {
    for (const close of parts.closers) await close();
  }
}

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface Field {
  name: string;
  args: Array<{ name: string; type: TypeRef }>;
  type: TypeRef;
}
interface FullType {
  name: string;
  kind: string;
  fields: Field[] | null;
  inputFields: Array<{ name: string; type: TypeRef }> | null;
  enumValues: Array<{ name: string }> | null;
}
const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';
const INTROSPECTION = `{ __schema {
  types { name kind enumValues { name } inputFields { name type { ${TYPE_REF} } }
          fields { name args { name type { ${TYPE_REF} } } type { ${TYPE_REF} } } } } }`;

const typeText = (t: TypeRef): string =>
  t.kind === 'NON_NULL' ? `${typeText(t.ofType!)}!` : t.kind === 'LIST' ? `[${typeText(t.ofType!)}]` : t.name!;
const named = (t: TypeRef): TypeRef => (t.ofType ? named(t.ofType) : t);

/** A value that passes the gateway's own checks for an argument or input field, chosen by its name. */
function sample(name: string, t: TypeRef, types: Map<string, FullType>, operation: string): unknown {
  if (t.kind === 'NON_NULL') return sample(name, t.ofType!, types, operation);
  if (t.kind === 'LIST') return [sample(name, t.ofType!, types, operation)];
  const type = types.get(t.name!)!;
  if (type.kind === 'ENUM') return type.enumValues!.some((v) => v.name === 'VIEWER') ? 'VIEWER' : type.enumValues![0].name;
  if (type.kind === 'INPUT_OBJECT')
    return Object.fromEntries(
      type.inputFields!.filter((f) => f.type.kind === 'NON_NULL').map((f) => [f.name, sample(f.name, f.type, types, operation)]),
    );
  switch (t.name) {
    case 'Int':
      return 10;
    case 'Boolean':
      return true;
    case 'DateTime':
      return '2026-01-01T00:00:00Z';
  }
  if (name === 'chatbotId') return chatbot.id;
  // The chatbot itself for a read or an update; an unknown one for a deletion.
  if (name === 'id') return ['chatbot', 'updateChatbot'].includes(operation) ? chatbot.id : BOGUS;
  const strings: Record<string, string> = {
    email: uniqueEmail('sweep-gql'),
    password: operation === 'register' ? PASSWORD : 'not-the-password',
    password2: PASSWORD,
    currentPassword: 'not-the-password',
    newPassword: 'another-secret-pass',
    name: 'Sweep',
    text: 'We open at nine.',
    url: 'https://example.com/',
    mode: 'subscription',
    startDate: '2026-01-01',
    endDate: '2026-01-31',
  };
  return strings[name] ?? (t.name === 'ID' ? BOGUS : 'sweep');
}

/** One REST request of the sweep: the route with its parameters filled in, and a valid body. */
function restRequest(route: string): { method: string; path: string; body?: unknown } {
  const [method, template] = route.split(' ');
  const path = template
    .replace(':uniqueId', chatbot.uniqueId)
    .replace(':sessionId', 'cs_test_sweep')
    .replace(':token', 'not-a-real-invitation-token')
    .replace('/chatbot/:id', method === 'DELETE' && template === '/api/chatbot/:id' ? `/chatbot/${BOGUS}` : `/chatbot/${chatbot.id}`)
    .replace(/:[A-Za-z]+/g, BOGUS);
  const bodies: Record<string, unknown> = {
    'POST /api/auth/register': { email: uniqueEmail('sweep-rest'), password: PASSWORD, password2: PASSWORD },
    'POST /api/auth/login': { email: uniqueEmail('nobody'), password: PASSWORD },
    'POST /api/auth/forgot-password': { email: uniqueEmail('nobody') },
    'POST /api/auth/reset-password': { token: 'not-a-token', password: PASSWORD, password2: PASSWORD },
    'PUT /api/user/profile': { name: 'Sweep' },
    'PUT /api/user/email': { email: uniqueEmail('moved'), currentPassword: 'not-the-password' },
    'PUT /api/user/password': { currentPassword: 'not-the-password', password: 'another-secret', password2: 'another-secret' },
    'DELETE /api/user/account': { password: 'not-the-password' },
    'POST /api/chatbot': { name: 'Sweep bot' },
    'PUT /api/chatbot/:id': { name: 'Team bot' },
    'POST /api/chatbot/:id/knowledge-base/text': { text: 'We open at nine.' },
    'POST /api/chatbot/:id/knowledge-base/urls': { url: 'https://example.com/' },
    'POST /api/chatbot/:id/knowledge-base/qa': { question: 'When do you open?', answer: 'At nine.' },
    'PUT /api/chatbot/:id/knowledge-base/text-entries/:entryId': { autoSync: true },
    'POST /api/chatbot/:id/unanswered-questions/:questionId/answer': { answer: 'At nine.' },
    'POST /api/payment/create-checkout-session': { mode: 'subscription' },
    'POST /api/workspaces': { name: 'Sweep' },
    'PATCH /api/workspace': { name: 'sweep team' },
    'DELETE /api/workspace': { password: 'not-the-password' },
    'PATCH /api/workspace/members/:userId': { role: 'viewer' },
    'POST /api/workspace/transfer': { userId: BOGUS },
    'POST /api/workspace/invitations': { email: uniqueEmail('invited'), role: 'viewer' },
    'POST /api/workspace/api-keys': { name: 'Sweep key', scopes: ['chatbots:read'] },
    'POST /api/workspace/api-keys/:id/roll': { overlap: 'none' },
    'PUT /api/workspace/provider-keys/:provider': { key: 'sk-sweep-provider-key' },
  };
  const query: Record<string, string> = {
    'GET /api/user/usage': '?startDate=2026-01-01&endDate=2026-01-31',
    'GET /api/chatbot/:id/conversations/export': '?format=csv',
  };
  return { method, path: path + (query[route] ?? ''), body: bodies[route] };
}

/** Live streams run until the client goes: the sweep reads the answer's status (and a refusal's JSON) and leaves. */
const STREAMS = new Set(['GET /api/inbox/events']);

async function openStream(path: string, token: string): Promise<ApiResponse> {
  const abort = new AbortController();
  const res = await fetch(stack.url + path, {
    headers: { authorization: `Bearer ${token}`, 'x-workspace-id': team.id, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  const body = res.headers.get('content-type')?.includes('application/json') ? await res.json() : undefined;
  abort.abort();
  return { status: res.status, headers: res.headers, body };
}

type Outcome = 'allowed' | 'forbidden' | 'not found' | 'refused otherwise' | 'needs an API key';

/**
 * What an answer says about the check: refused for the role, hidden as another workspace, or let
 * through. Any other 403 (a service's own role check disagreeing with the table) is a mismatch.
 */
function outcome(status: number, message: unknown, access: Access): Outcome {
  // The developer API's routes take a key, never a session (their keys' sweep is api-v1.test.ts).
  if (access === 'api-key') return status === 401 ? 'needs an API key' : 'allowed';
  if (status === 404 && message === WORKSPACE_NOT_FOUND) return 'not found';
  if (status === 403) return isPermission(access) && message === roleLacksPermission(access) ? 'forbidden' : 'refused otherwise';
  return 'allowed';
}

function expected(access: Access, caller: Role | 'outsider'): Outcome {
  if (access === 'api-key') return 'needs an API key';
  if (!isPermission(access)) return 'allowed';
  if (caller === 'outsider') return 'not found';
  return can(caller, access) ? 'allowed' : 'forbidden';
}

/** Calls that end what the next ones need: the member leaving (joined again after) and signing out (last). */
const LEAVING = new Set(['POST /api/workspace/leave', 'Mutation.leaveWorkspace']);
const SIGNING_OUT = new Set(['GET /api/auth/logout', 'Mutation.logout']);
/** A sign-in with an unknown email or no challenge (or an SSO callback with no state), and whatever follows the first sign-out, answer 401. */
const SIGNED_OUT_AS_EXPECTED = new Set([
  'POST /api/auth/login',
  'GET /api/auth/sso/oidc/callback',
  'Mutation.login',
  'POST /api/auth/login/two-factor',
  'Mutation.completeTwoFactorLogin',
  ...SIGNING_OUT,
]);

describe('the roles sweep', () => {
  let routes: string[];
  let operations: Array<{ key: string; query: string; variables: (op: string) => Record<string, unknown> }>;

  beforeAll(async () => {
    routes = await registeredRoutes();
    const introspected = await gql(stack.url, INTROSPECTION, {}, team.owner.token);
    const types = new Map<string, FullType>(introspected.body.data.__schema.types.map((t: FullType) => [t.name, t]));
    operations = (['Query', 'Mutation'] as const).flatMap((root) =>
      types.get(root)!.fields!.map((field) => {
        const required = field.args.filter((a) => a.type.kind === 'NON_NULL');
        const defs = required.map((a) => `$${a.name}: ${typeText(a.type)}`).join(', ');
        const args = required.map((a) => `${a.name}: $${a.name}`).join(', ');
        const kind = types.get(named(field.type).name!)!.kind;
        const selection = kind === 'OBJECT' ? ' { __typename }' : '';
        const query = `${root.toLowerCase()} Sweep${defs ? `(${defs})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection} }`;
        return {
          key: `${root}.${field.name}`,
          query,
          variables: (op: string) => Object.fromEntries(required.map((a) => [a.name, sample(a.name, a.type, types, op)])),
        };
      }),
    );
  });

  it('names every REST route and GraphQL operation, and nothing else', () => {
    expect(routes.length).toBeGreaterThan(60);
    expect(operations.length).toBeGreaterThan(50);
    const named = [...routes, ...operations.map((o) => o.key)];
    expect(named.filter((key) => accessOf(key) === undefined)).toEqual([]);
    expect(Object.keys(ACCESS).filter((key) => !named.some((n) => n.toLowerCase() === key.toLowerCase()))).toEqual([]);
  });

  it("answers 404 for the team's chatbot in the outsider's own workspace", async () => {
    const res = await inWorkspace(stack, undefined, `/api/chatbot/${chatbot.id}`, { token: outsider.token });
    expect(res.status).toBe(404);
  });

  it('lets each role through exactly as the table says, and hides the workspace from a member of another', async () => {
    const callers: Array<[Role | 'outsider', Owner]> = [
      ...ROLES.map((role): [Role, Owner] => [role, role === 'owner' ? team.owner : team.members[role]]),
      ['outsider', outsider],
    ];
    const order = (key: string) => (SIGNING_OUT.has(key) ? 2 : LEAVING.has(key) ? 1 : 0);
    const calls = [
      ...routes.map((route) => ({ key: route, kind: 'rest' as const })),
      ...operations.map((o) => ({ key: o.key, kind: 'graphql' as const })),
    ].sort((a, b) => order(a.key) - order(b.key));

    const mismatches: string[] = [];
    for (const [caller, person] of callers) {
      for (const call of calls) {
        const access = accessOf(call.key)!;
        let res: ApiResponse;
        let message: unknown;
        let status: number;
        if (call.kind === 'rest') {
          const req = restRequest(call.key);
          res = STREAMS.has(call.key)
            ? await openStream(req.path, person.token)
            : await inWorkspace(stack, team.id, req.path, { method: req.method, body: req.body, token: person.token });
          status = res.status;
          message = res.body?.message;
        } else {
          const op = operations.find((o) => o.key === call.key)!;
          res = await gqlIn(stack, team.id, person.token, op.query, op.variables(call.key.split('.')[1]));
          const error = res.body?.errors?.[0];
          status = error?.extensions?.http?.status ?? res.status;
          message = error?.message;
        }
        const got = outcome(status, message, access);
        const want = expected(access, caller);
        if (got !== want) mismatches.push(`${caller} ${call.key} (${access}): ${got}, expected ${want} [${status} ${String(message)}]`);
        // Let through means reached: never a 5xx, and never signed out (but signing in as no one, and signing out twice).
        if (got === 'allowed' && (status >= 500 || (status === 401 && !SIGNED_OUT_AS_EXPECTED.has(call.key))))
          mismatches.push(`${caller} ${call.key}: ${status} ${String(message)}`);
        // A member who left joins again, with the same role, for the calls after.
        if (LEAVING.has(call.key) && caller !== 'outsider' && caller !== 'owner')
          await setMembership(stack, team.id, person.userId, caller);
      }
    }
    expect(mismatches).toEqual([]);
    // Every route and operation, once per role: several hundred calls in a row.
  }, 120_000);
});
