// Every GraphQL query and mutation against hostile arguments of the right types (the types are
// GraphQL's to check): ids that are malformed, unknown or another owner's, strings with control
// characters or far too long, extreme numbers, input objects filled the same way. The operations are
// read from the schema itself (introspection, on outside production), so a new one is swept too.
// Each answer is data or a user-facing error, never INTERNAL_SERVER_ERROR or a 5xx, and the stack
// still serves a new owner afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, startStack, type Stack } from './stack.ts';

let stack: Stack;
let owner: Owner;
let chatbotId: string;
let strangersChatbotId: string;

beforeAll(async () => {
  stack = await startStack();
  owner = await registerOwner(stack, 'every-operation');
  const stranger = await registerOwner(stack, 'every-operation-stranger');
  const mine = await api(stack.url, '/api/chatbot', { body: { name: 'Mine' }, token: owner.token });
  const theirs = await api(stack.url, '/api/chatbot', { body: { name: 'Theirs' }, token: stranger.token });
  expect([mine.status, theirs.status]).toEqual([201, 201]);
  chatbotId = mine.body._id;
  strangersChatbotId = theirs.body._id;
});
afterAll(async () => {
  await stack?.close();
});

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
  queryType { name } mutationType { name }
  types { name kind enumValues { name } inputFields { name type { ${TYPE_REF} } }
          fields { name args { name type { ${TYPE_REF} } } type { ${TYPE_REF} } } } } }`;

/** The type's name as written in an operation's variable definitions (`[String!]!`). */
function typeText(t: TypeRef): string {
  if (t.kind === 'NON_NULL') return `${typeText(t.ofType!)}!`;
  if (t.kind === 'LIST') return `[${typeText(t.ofType!)}]`;
  return t.name!;
}

function named(t: TypeRef): TypeRef {
  return t.ofType ? named(t.ofType) : t;
}

/** Hostile values of a scalar, in the variants the sweep sends (the n-th variant of every argument together). */
function scalarVariants(name: string): unknown[] {
  switch (name) {
    case 'ID':
    case 'String':
      return [
        'not-a-uuid',
        '00000000-0000-4000-8000-000000000000',
        strangersChatbotId,
        'a\u0000b\u0007\u001b[31m',
        'x'.repeat(200_000),
        '',
        chatbotId,
      ];
    case 'Int':
      return [-1, 2_147_483_647, 0, -2_147_483_648, 1, 7, 3];
    case 'Float':
    case 'Decimal':
      return [-1, 1e308, 0, -1e-308, 0.000001, 99999999.99, 1];
    case 'Boolean':
      return [true, false, true, false, true, false, true];
    case 'DateTime':
      return ['not a date', '9999-12-31T23:59:59Z', '1970-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '', '2026-01-01', 'now'];
    default:
      return ['x', '', '\u0000', 'x'.repeat(10_000), '1', '-1', 'null'];
  }
}

const VARIANTS = 7;

function value(t: TypeRef, types: Map<string, FullType>, variant: number, depth = 0): unknown {
  if (t.kind === 'NON_NULL') return value(t.ofType!, types, variant, depth);
  if (t.kind === 'LIST') return [value(t.ofType!, types, variant, depth), value(t.ofType!, types, (variant + 3) % VARIANTS, depth)];
  const type = types.get(t.name!)!;
  if (type.kind === 'ENUM') return type.enumValues![variant % type.enumValues!.length].name;
  if (type.kind === 'INPUT_OBJECT') {
    if (depth > 3) return {};
    return Object.fromEntries(type.inputFields!.map((f) => [f.name, value(f.type, types, variant, depth + 1)]));
  }
  return scalarVariants(t.name!)[variant];
}

/** The smallest valid selection of a field's type: `__typename` for objects, nothing for scalars. */
function selection(t: TypeRef, types: Map<string, FullType>): string {
  const kind = types.get(named(t).name!)!.kind;
  return kind === 'OBJECT' || kind === 'INTERFACE' || kind === 'UNION' ? ' { __typename }' : '';
}

describe('every GraphQL operation', () => {
  it('answers hostile arguments with data or a user-facing error, never an internal one', async () => {
    const introspected = await gql(stack.url, INTROSPECTION, {}, owner.token);
    expect(introspected.status).toBe(200);
    const schema = introspected.body.data.__schema;
    const types = new Map<string, FullType>(schema.types.map((t: FullType) => [t.name, t]));
    const roots = [
      ['query', types.get(schema.queryType.name)!],
      ['mutation', types.get(schema.mutationType.name)!],
    ] as const;
    // Deleting the chatbot, signing out and deleting the account would end the sweep early: they come last, once.
    const last = new Set(['deleteChatbot', 'signOutOtherSessions', 'logout', 'deleteAccount']);
    const operations = roots.flatMap(([keyword, root]) => root.fields!.map((field) => ({ keyword, field })));
    operations.sort((a, b) => Number(last.has(a.field.name)) - Number(last.has(b.field.name)));
    expect(operations.length).toBeGreaterThan(20);

    const failures: string[] = [];
    let sent = 0;
    for (const { keyword, field } of operations) {
      const variables = field.args.map((a) => `$${a.name}: ${typeText(a.type)}`).join(', ');
      const args = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
      const query = `${keyword} Sweep${variables ? `(${variables})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection(field.type, types)} }`;
      const variants = last.has(field.name) || field.args.length === 0 ? 1 : VARIANTS;
      for (let variant = 0; variant < variants; variant++) {
        const values = Object.fromEntries(field.args.map((a) => [a.name, value(a.type, types, variant)]));
        const res = await gql(stack.url, query, values, owner.token);
        sent += 1;
        const internal = (res.body?.errors ?? []).filter(
          (e: { extensions?: { code?: string } }) => e.extensions?.code === 'INTERNAL_SERVER_ERROR',
        );
        if (res.status >= 500 || internal.length > 0) {
          failures.push(`${res.status} ${field.name} #${variant}: ${JSON.stringify(res.body?.errors ?? res.body).slice(0, 200)}`);
        }
        if (res.status === 400 && res.body?.errors?.[0]?.extensions?.code === 'GRAPHQL_VALIDATION_FAILED') {
          failures.push(`the sweep built an invalid operation for ${field.name}: ${res.body.errors[0].message}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(100);
    const after = await registerOwner(stack, 'every-operation-after');
    expect((await gql(stack.url, '{ me { email } }', {}, after.token)).body.data.me.email).toBe(after.email);
    // A sequential sweep of every operation: it grows with the schema, past the default 30 s on a loaded machine.
  }, 120_000);
});
