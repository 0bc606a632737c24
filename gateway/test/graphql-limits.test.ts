// The GraphQL operation limits, checked with graphql's own validator: on a small schema with a cycle
// (so depth can be built from real fields), and on every operation the web app sends, which must pass.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, parse, specifiedRules, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { documentNesting, jsonDepth, OPERATION_BOUNDS, noSubscriptions, operationBounds } from '../src/http/graphql-limits.ts';
import { loadTypeDefs } from '../src/http/graphql.ts';

const schema = buildSchema(`
  type Query { node: Node, nodes: [Node!]! }
  type Mutation { touch: Boolean }
  type Subscription { ticks: Int }
  type Node { id: ID!, child: Node, children: [Node!]! }
`);

const errorsOf = (source: string, on = schema) =>
  validate(on, parse(source), [...specifiedRules, noSubscriptions, operationBounds]).map((e) => e.message);
/** node, then child fields, then the id leaf: `depth` levels in all. */
const nested = (depth: number) => `{ node { ${'child { '.repeat(depth - 2)}id${' }'.repeat(depth - 2)} } }`;
const fields = (count: number, name = 'id') => Array.from({ length: count }, (_, i) => `f${i}: ${name}`).join(' ');

describe('operation limits', () => {
  it('allows the maximum depth and refuses one more', () => {
    expect(errorsOf(nested(OPERATION_BOUNDS.maxDepth))).toEqual([]);
    expect(errorsOf(nested(OPERATION_BOUNDS.maxDepth + 1))).toEqual([`Fields may be nested at most ${OPERATION_BOUNDS.maxDepth} deep`]);
  });

  it('counts depth through fragments and inline fragments', () => {
    const query = `{ node { ...A } } fragment A on Node { child { ... on Node { child { ...B } } } } fragment B on Node { ${'child { '.repeat(8)}id${' }'.repeat(8)} }`;
    expect(errorsOf(query)).toEqual([`Fields may be nested at most ${OPERATION_BOUNDS.maxDepth} deep`]);
  });

  it('bounds root fields, aliases included', () => {
    expect(errorsOf(`{ ${fields(OPERATION_BOUNDS.maxRootFields, 'node { id }')} }`)).toEqual([]);
    expect(errorsOf(`{ ${fields(OPERATION_BOUNDS.maxRootFields + 1, 'node { id }')} }`)).toEqual([
      `An operation may ask for at most ${OPERATION_BOUNDS.maxRootFields} root fields`,
    ]);
  });

  it('bounds all fields, counting a fragment each time it is spread', () => {
    const half = Math.floor(OPERATION_BOUNDS.maxFields / 2);
    // node + 74 fields, spread twice under two roots: 2 × (1 + 74) = 150.
    expect(errorsOf(`{ a: node { ...F } b: node { ...F } } fragment F on Node { ${fields(half - 1)} }`)).toEqual([]);
    expect(errorsOf(`{ a: node { ...F } b: node { ...F } } fragment F on Node { ${fields(half)} }`)).toEqual([
      `An operation may select at most ${OPERATION_BOUNDS.maxFields} fields`,
    ]);
  });

  it('weighs fields inside lists by the lists around them', () => {
    // 1 + 10 + 100 + 1000 = 1111: allowed; one more list level costs 10000.
    expect(errorsOf('{ nodes { children { children { id } } } }')).toEqual([]);
    expect(errorsOf('{ nodes { children { children { children { id } } } } }')).toEqual([
      'The operation asks for too much at once; split it into smaller ones',
    ]);
  });

  it('a fragment bomb is refused without expanding it', () => {
    const levels = Array.from(
      { length: 30 },
      (_, i) => `fragment L${i} on Node { a: child { ...L${i + 1} } b: child { ...L${i + 1} } }`,
    ).join(' ');
    // 2^30 fields if expanded: a check that expanded it would not return before the test's timeout.
    expect(errorsOf(`{ node { ...L0 } } ${levels} fragment L30 on Node { id }`)).toContain(
      `Fields may be nested at most ${OPERATION_BOUNDS.maxDepth} deep`,
    );
  });

  it('a fragment cycle is reported by graphql, not looped over', () => {
    expect(errorsOf('{ node { ...A } } fragment A on Node { child { ...B } } fragment B on Node { child { ...A } }')).toEqual([
      'Cannot spread fragment "A" within itself via "B".',
    ]);
  });

  it('introspection fields are not weighed', () => {
    expect(errorsOf(`{ __schema { types { fields { type { ${'ofType { '.repeat(12)}name${' }'.repeat(12)} } } } } }`)).toEqual([]);
  });

  it('refuses subscriptions', () => {
    expect(errorsOf('subscription { ticks }')).toEqual(['Subscriptions are not supported']);
  });
});

describe('nesting read from the text, before parsing', () => {
  it('counts selection sets outside parentheses and lists and objects inside them', () => {
    expect(documentNesting('{ a { b { c } } }')).toEqual({ selectionSets: 3, values: 0 });
    expect(documentNesting('query ($v: [[ID!]!] = [[1]]) { a(x: {y: [{z: 1}]}) { b } }')).toEqual({ selectionSets: 2, values: 3 });
    expect(documentNesting('{ a(x: [[[')).toEqual({ selectionSets: 1, values: 3 });
    expect(documentNesting('{ a @d(x: {y: [1]}) { b } }')).toEqual({ selectionSets: 2, values: 2 });
  });

  it('skips strings, block strings (with their escaped quotes) and comments', () => {
    expect(documentNesting('{ a(x: "[[{{\\"[[") }')).toEqual({ selectionSets: 1, values: 0 });
    expect(documentNesting('{ a(x: """ [[ \\""" {{ """) }')).toEqual({ selectionSets: 1, values: 0 });
    expect(documentNesting('{ # [[[[ {{{{\n a }')).toEqual({ selectionSets: 1, values: 0 });
    // An unterminated string ends with its line, as graphql's lexer reads it.
    expect(documentNesting('{ a(x: "[[\n [[ ]] ) }')).toEqual({ selectionSets: 1, values: 2 });
  });

  it('counts JSON nesting without recursing, and stops past the bound', () => {
    expect(jsonDepth('x', 10)).toBe(0);
    expect(jsonDepth({ a: [1, { b: [] }] }, 10)).toBe(4);
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(jsonDepth(deep, 10)).toBe(11);
  });
});

describe("the web app's operations", () => {
  // Operations live in features/*/graphql, shared fragments in lib/*/graphql.
  const webSrc = new URL('../../web/src/', import.meta.url).pathname;
  const documents = readdirSync(webSrc, { recursive: true, encoding: 'utf8' })
    .filter((f) => /^(features|lib)\/.*\/graphql\/[^/]+\.ts$/.test(f))
    .flatMap((f) => [...readFileSync(join(webSrc, f), 'utf8').matchAll(/graphql\(`([\s\S]*?)`\)/g)].map((m) => m[1]));
  const fragments = documents.filter((d) => /^\s*fragment\b/.test(d));
  const operations = documents.filter((d) => /^\s*(query|mutation)\b/.test(d));
  const gatewaySchema = buildSchema(loadTypeDefs().join('\n'));

  it('are all found', () => {
    expect(operations.length).toBeGreaterThanOrEqual(10);
  });

  it.each(operations.map((op) => [op.match(/(query|mutation)\s+(\w+)/)?.[2] ?? op, op]))('%s passes the limits', (_name, op) => {
    // Each operation with every fragment it may spread (unused ones would be a NoUnusedFragments error).
    const used = new Set<string>();
    const pending = [op];
    while (pending.length) {
      for (const [, name] of pending.pop()!.matchAll(/\.\.\.(\w+)/g)) {
        if (used.has(name)) continue;
        used.add(name);
        const fragment = fragments.find((f) => new RegExp(`fragment\\s+${name}\\b`).test(f));
        if (fragment) pending.push(fragment);
      }
    }
    const source = [op, ...fragments.filter((f) => [...used].some((name) => new RegExp(`fragment\\s+${name}\\b`).test(f)))].join('\n');
    expect(parse(source, { maxTokens: OPERATION_BOUNDS.maxTokens })).toBeTruthy();
    const nesting = documentNesting(source);
    expect(nesting.values).toBeLessThanOrEqual(OPERATION_BOUNDS.maxValueDepth);
    expect(nesting.selectionSets).toBeLessThanOrEqual(OPERATION_BOUNDS.maxSelectionSetDepth);
    expect(errorsOf(source, gatewaySchema)).toEqual([]);
  });
});
