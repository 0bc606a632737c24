// The fetch an SDK speaks through (the MCP client, ADR 55) holds the outbound guard's every rule, as
// outboundRequest does: every refused range before connecting, a name resolving to one, a DNS answer
// that changes between the check and the connection, a redirect to a private address or the metadata
// service, a 10 GB body declared or streamed, and, under the caller's deadline, a body that never
// ends, a slow loris and a server that never answers. Loopback stands for the internet: 127.0.0.1 is
// allow-listed, 127.0.0.2 stands for an internal service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedAgent, parseAllowList, type OutboundPolicy } from '../src/outbound/guard.ts';
import { guardedFetch } from '../src/outbound/guarded-fetch.ts';
import { MAX_REDIRECTS, OutboundError } from '../src/outbound/request.ts';
import { fakeDns, startHostileTargets, type Listening } from './hostile-targets.ts';

const policy: OutboundPolicy = { allowPrivate: false, allow: parseAllowList('127.0.0.1'), httpsOnly: false };
const BODY_CAP = { maxBytes: 64 * 1024 };

let target: Listening;
let internal: Listening;
let close: () => Promise<void>;
const base = () => `http://127.0.0.1:${target.port}`;

beforeAll(async () => {
  ({ target, internal, close } = await startHostileTargets());
});
afterAll(async () => {
  await close();
});

/** The fetch's outcome: the body's text, or the guard's failure as kept by lastFailure. */
async function outcome(url: string, opts: { dns?: ReturnType<typeof fakeDns>; timeoutMs?: number } = {}) {
  const guarded = guardedFetch(policy, BODY_CAP, opts.dns ? createGuardedAgent(policy, opts.dns) : undefined);
  try {
    const res = await guarded.fetch(url, { signal: AbortSignal.timeout(opts.timeoutMs ?? 2000) });
    return { text: await res.text() };
  } catch (err) {
    const last = guarded.lastFailure();
    expect(last).toBeInstanceOf(OutboundError);
    return { failure: last!.failure, message: last!.message, thrown: err instanceof OutboundError || err instanceof TypeError };
  }
}

describe('guardedFetch', () => {
  it('follows up to three redirects, each checked again, and refuses a fourth', async () => {
    expect(await outcome(`${base()}/hop/${MAX_REDIRECTS - 1}`)).toEqual({ text: '{"ok":true}' });
    expect(await outcome(`${base()}/hop/${MAX_REDIRECTS}`)).toMatchObject({ failure: 'redirects' });
  });

  it.each([
    ['127.0.0.2', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['[::1]', 'a loopback address'],
    ['[::ffff:127.0.0.2]', 'a loopback address'],
  ])('refuses %s before connecting', async (host, words) => {
    const result = await outcome(`http://${host}:${internal.port}/`);
    expect(result).toMatchObject({ failure: 'address' });
    expect(result.message).toMatch(new RegExp(`is ${words}$`));
    expect(internal.hits).toEqual([]);
  });

  it('refuses a redirect to a private address and to the metadata service, naming why', async () => {
    expect(await outcome(`${base()}/to-internal`)).toMatchObject({
      failure: 'address',
      message: 'This address is not allowed: 127.0.0.2 is a loopback address',
    });
    expect(await outcome(`${base()}/to-metadata`)).toMatchObject({
      failure: 'address',
      message: 'This address is not allowed: 169.254.169.254 is a cloud metadata address',
    });
    expect(internal.hits).toEqual([]);
  });

  it('refuses a name that resolves to a private address, and pins the connection to the checked answer', async () => {
    expect(
      await outcome(`http://shop.test:${internal.port}/`, { dns: fakeDns({ 'shop.test': [['8.8.8.8', '127.0.0.2']] }) }),
    ).toMatchObject({
      failure: 'address',
      message: 'This address is not allowed: shop.test resolves to 127.0.0.2, a loopback address',
    });
    // A rebinding DNS: allowed at first, then the internal address; the connection resolves once, itself.
    const calls: string[] = [];
    const dns = fakeDns({ 'rebind.test': [['127.0.0.1'], ['127.0.0.2']] }, calls);
    expect(await outcome(`http://rebind.test:${target.port}/done`, { dns })).toEqual({ text: '{"ok":true}' });
    expect(calls).toEqual(['rebind.test']);
    expect(await outcome(`http://rebind.test:${internal.port}/`, { dns })).toMatchObject({ failure: 'address' });
    expect(internal.hits).toEqual([]);
  });

  it('stops a 10 GB body at the size cap, declared or streamed', async () => {
    expect(await outcome(`${base()}/huge-declared`)).toMatchObject({
      failure: 'too-large',
      message: 'The answer is larger than 65536 bytes',
    });
    expect(await outcome(`${base()}/huge-streamed`)).toMatchObject({ failure: 'too-large' });
  });

  it.each(['/never-ends', '/slow-loris', '/no-answer'])("ends %s at the caller's deadline", async (path) => {
    expect(await outcome(`${base()}${path}`, { timeoutMs: 300 })).toMatchObject({
      failure: 'timeout',
      message: 'No complete answer in time',
    });
  });

  it('refuses a scheme other than http(s) and credentials in the address', async () => {
    expect(await outcome('file:///etc/passwd')).toMatchObject({ failure: 'scheme' });
    expect(await outcome(`http://user:pass@127.0.0.1:${target.port}/done`)).toMatchObject({ failure: 'url' });
  });
});
