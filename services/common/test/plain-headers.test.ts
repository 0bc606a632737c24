// PlainHeaders (the lean transport's request headers) against the Fetch API's Headers: the same
// answers to the same calls, the same refusals.
import { describe, expect, it } from 'vitest';
import { PlainHeaders } from '../src/transport/plain-headers.ts';

function both(init?: HeadersInit): [Headers, PlainHeaders] {
  return [new Headers(init), new PlainHeaders(init)];
}

const seen = (h: Headers) => ({ entries: [...h], keys: [...h.keys()], values: [...h.values()], forEach: collect(h) });
function collect(h: Headers): string[] {
  const out: string[] = [];
  h.forEach((value, key) => out.push(`${key}=${value}`));
  return out;
}

describe('PlainHeaders', () => {
  it('is built from a record, pairs or another Headers as Headers is', () => {
    for (const init of [
      { 'X-B': 'b', 'x-a': ' a\t' },
      [
        ['x-b', 'b'],
        ['X-B', 'c'],
      ],
      new Headers({ 'x-c': 'c' }),
      undefined,
    ] as HeadersInit[]) {
      const [h, p] = both(init);
      expect(seen(p)).toEqual(seen(h));
    }
  });

  it('sets, appends, reads, deletes and iterates in name order as Headers does', () => {
    const [h, p] = both();
    for (const x of [h, p]) {
      x.set('Traceparent', '00-abc');
      x.set('authorization', 'Bearer t');
      x.append('x-list', 'one');
      x.append('X-List', 'two');
      x.set('content-type', 'application/proto');
      x.delete('AUTHORIZATION');
    }
    expect(seen(p)).toEqual(seen(h));
    for (const name of ['x-list', 'X-LIST', 'authorization', 'traceparent', 'missing']) {
      expect(p.get(name)).toBe(h.get(name));
      expect(p.has(name)).toBe(h.has(name));
    }
    expect(p.record).toEqual({ traceparent: '00-abc', 'x-list': 'one, two', 'content-type': 'application/proto' });
  });

  it('refuses the names and values Headers refuses', () => {
    const [h, p] = both();
    for (const [name, value] of [
      ['bad name', 'v'],
      ['x-ok', 'line\r\nbreak'],
      ['x-ok', 'nul\0'],
      ['', 'v'],
    ]) {
      expect(() => h.set(name, value)).toThrow(TypeError);
      expect(() => p.set(name, value)).toThrow(TypeError);
    }
  });
});

describe('PlainHeaders.fromNode', () => {
  it("reads Node's parsed headers as a Headers built from them reads them", () => {
    const raw = { 'content-type': 'application/proto', 'x-request-id': 'r-1', 'set-cookie': ['a=1', 'b=2'], skipped: undefined };
    const plain = PlainHeaders.fromNode(raw);
    const h = new Headers();
    for (const [key, value] of Object.entries(raw))
      if (Array.isArray(value)) for (const v of value) h.append(key, v);
      else if (value !== undefined) h.set(key, value);
    for (const name of ['content-type', 'X-Request-Id', 'set-cookie', 'skipped']) expect(plain.get(name)).toBe(h.get(name));
    // Headers lists each Set-Cookie apart in its iteration; a request carries none.
    expect([...plain.keys()]).toEqual([...new Set(h.keys())]);
  });
});
