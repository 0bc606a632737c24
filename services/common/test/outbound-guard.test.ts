import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRefusal, createGuardedAgent, parseAllowList, type OutboundPolicy } from '../src/outbound/guard.ts';
import { MAX_REDIRECTS, OutboundError, outboundRequest, outboundUrl } from '../src/outbound/request.ts';
import { fakeDns, startHostileTargets, type Listening } from './hostile-targets.ts';

const strict = { allowPrivate: false, allow: parseAllowList('') };

describe('addressRefusal', () => {
  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])(
    'lets the public %s through',
    (a) => {
      expect(addressRefusal(a, strict)).toBeNull();
    },
  );

  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.8.9.10', 'a loopback address'],
    ['10.1.2.3', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['169.254.1.1', 'a link-local address'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['100.127.255.254', 'a carrier-grade NAT address'],
    ['224.0.0.1', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['0.0.0.0', 'an unspecified address'],
    ['0.1.2.3', 'an unspecified address'],
    ['255.255.255.255', 'the broadcast address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['::1', 'a loopback address'],
    ['::', 'an unspecified address'],
    ['fe80::1', 'a link-local address'],
    ['fc00::1', 'a unique-local address'],
    ['fd12:3456::1', 'a unique-local address'],
    ['ff02::1', 'a multicast address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:10.0.0.1', 'a private address'],
    ['::ffff:169.254.169.254', 'a cloud metadata address'],
    ['::ffff:7f00:1', 'a loopback address'],
  ])('refuses %s as %s, naming the reason', (address, words) => {
    expect(addressRefusal(address, strict)).toMatch(new RegExp(`is ${words}$`));
  });

  it.each(['64:ff9b::7f00:1', '2002:7f00:1::1', '2001::1'])('refuses the IPv4-embedding form %s', (address) => {
    expect(addressRefusal(address, strict)).not.toBeNull();
  });

  it('refuses what is not an address', () => {
    expect(addressRefusal('localhost', strict)).toBe('localhost is not an IP address');
  });

  it("lets through only the operator's named ranges", () => {
    const policy = { allowPrivate: false, allow: parseAllowList(' 10.20.0.0/16, fd12::/64 ,192.168.7.9') };
    expect(addressRefusal('10.20.3.4', policy)).toBeNull();
    expect(addressRefusal('::ffff:10.20.3.4', policy)).toBeNull();
    expect(addressRefusal('fd12::5', policy)).toBeNull();
    expect(addressRefusal('192.168.7.9', policy)).toBeNull();
    expect(addressRefusal('10.21.0.1', policy)).toBe('10.21.0.1 is a private address');
    expect(addressRefusal('192.168.7.10', policy)).toBe('192.168.7.10 is a private address');
    expect(addressRefusal('169.254.169.254', policy)).toBe('169.254.169.254 is a cloud metadata address');
  });
});

describe('parseAllowList', () => {
  it('reads ranges, addresses and host names', () => {
    const list = parseAllowList('10.0.0.0/8,billing.internal, Orders.Corp.Example ,::1');
    expect(list.ranges.map(([r, bits]) => `${r.toString()}/${bits}`)).toEqual(['10.0.0.0/8', '::1/128']);
    expect([...list.hosts]).toEqual(['billing.internal', 'orders.corp.example']);
  });

  it.each(['10.0.0.0/33', 'not a host!', 'http://x.example', '10.0.0.0/x'])('refuses %j', (raw) => {
    expect(() => parseAllowList(raw)).toThrow();
  });
});

describe('outboundUrl', () => {
  const https: OutboundPolicy = { ...strict, httpsOnly: true };
  it('only https outside development', () => {
    expect(outboundUrl('https://api.example.com/x#frag', https).href).toBe('https://api.example.com/x');
    expect(() => outboundUrl('http://api.example.com/', https)).toThrow('Only https addresses may be reached');
    expect(outboundUrl('http://api.example.com/', { ...https, httpsOnly: false }).protocol).toBe('http:');
  });

  it.each(['ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'gopher://x/'])('refuses the scheme of %s', (raw) => {
    expect(() => outboundUrl(raw, { ...https, httpsOnly: false })).toThrow(OutboundError);
  });

  it('refuses credentials in the address and what is not a URL', () => {
    expect(() => outboundUrl('https://u:p@api.example.com/', https)).toThrow('user name or password');
    expect(() => outboundUrl('not a url', https)).toThrow('not a valid URL');
  });
});

describe('outboundRequest', () => {
  // Loopback stands for the internet: 127.0.0.1 is allow-listed, 127.0.0.2 stands for an internal service.
  const policy: OutboundPolicy = { allowPrivate: false, allow: parseAllowList('127.0.0.1'), httpsOnly: false };
  let target: Listening;
  let internal: Listening;
  let close: () => Promise<void>;
  const base = () => `http://127.0.0.1:${target.port}`;
  const bounds = { method: 'GET' as const, timeoutMs: 1_000, maxBytes: 64 * 1024 };

  beforeAll(async () => {
    ({ target, internal, close } = await startHostileTargets());
  });
  afterAll(async () => {
    await close();
  });

  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (err: unknown) => (err instanceof OutboundError ? { failure: err.failure, message: err.message } : err),
    );

  it('follows up to three redirects, each checked again', async () => {
    const res = await outboundRequest(`${base()}/hop/${MAX_REDIRECTS - 1}`, bounds, policy);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('{"ok":true}');
    expect(await failure(outboundRequest(`${base()}/hop/${MAX_REDIRECTS}`, bounds, policy))).toEqual({
      failure: 'redirects',
      message: 'More than 3 redirects',
    });
  });

  it('refuses a redirect to a private address and to the metadata service, naming why', async () => {
    expect(await failure(outboundRequest(`${base()}/to-internal`, bounds, policy))).toEqual({
      failure: 'address',
      message: 'This address is not allowed: 127.0.0.2 is a loopback address',
    });
    expect(internal.hits).toEqual([]);
    expect(await failure(outboundRequest(`${base()}/to-metadata`, bounds, policy))).toEqual({
      failure: 'address',
      message: 'This address is not allowed: 169.254.169.254 is a cloud metadata address',
    });
  });

  it('refuses a name that resolves to a private address', async () => {
    const agent = createGuardedAgent(policy, fakeDns({ 'shop.test': [['8.8.8.8', '127.0.0.2']] }));
    expect(await failure(outboundRequest(`http://shop.test:${internal.port}/`, bounds, policy, agent))).toEqual({
      failure: 'address',
      message: 'This address is not allowed: shop.test resolves to 127.0.0.2, a loopback address',
    });
    expect(internal.hits).toEqual([]);
  });

  it('pins the connection to the checked answer: a DNS answer that changes cannot get through', async () => {
    const calls: string[] = [];
    // The first answer is allowed; a rebinding DNS then answers with the internal address.
    const agent = createGuardedAgent(policy, fakeDns({ 'rebind.test': [['127.0.0.1'], ['127.0.0.2']] }, calls));
    const first = await outboundRequest(`http://rebind.test:${target.port}/done`, bounds, policy, agent);
    expect(first.status).toBe(200);
    // One resolution per connection, made by the connection itself: nothing resolves again in between.
    expect(calls).toEqual(['rebind.test']);
    await agent.close();
    const second = createGuardedAgent(policy, fakeDns({ 'rebind.test': [['127.0.0.2']] }, calls));
    expect(await failure(outboundRequest(`http://rebind.test:${internal.port}/`, bounds, policy, second))).toMatchObject({
      failure: 'address',
    });
    expect(internal.hits).toEqual([]);
  });

  it("lets an operator's allow-listed host name through whatever it resolves to", async () => {
    const allowHost: OutboundPolicy = { ...policy, allow: parseAllowList('orders.internal') };
    const agent = createGuardedAgent(allowHost, fakeDns({ 'orders.internal': [['127.0.0.2']] }));
    const res = await outboundRequest(`http://orders.internal:${internal.port}/`, bounds, allowHost, agent);
    expect(res.body.toString()).toBe('internal secrets');
    internal.hits.length = 0;
  });

  it('refuses an IP literal outside the allow-list before connecting', async () => {
    expect(await failure(outboundRequest(`http://127.0.0.2:${internal.port}/`, bounds, policy))).toEqual({
      failure: 'address',
      message: 'This address is not allowed: 127.0.0.2 is a loopback address',
    });
    expect(await failure(outboundRequest(`http://[::1]:${internal.port}/`, bounds, policy))).toMatchObject({ failure: 'address' });
    expect(internal.hits).toEqual([]);
  });

  it('stops a 10 GB body at the size cap, declared or not', async () => {
    expect(await failure(outboundRequest(`${base()}/huge-declared`, bounds, policy))).toEqual({
      failure: 'too-large',
      message: 'The answer is larger than 65536 bytes',
    });
    expect(await failure(outboundRequest(`${base()}/huge-streamed`, bounds, policy))).toMatchObject({ failure: 'too-large' });
  });

  it.each(['/never-ends', '/slow-loris', '/no-answer'])('ends %s at the overall deadline', async (path) => {
    expect(await failure(outboundRequest(`${base()}${path}`, { ...bounds, timeoutMs: 300 }, policy))).toEqual({
      failure: 'timeout',
      message: 'No complete answer within 300 ms',
    });
  });

  it('names a host that does not resolve', async () => {
    const agent = createGuardedAgent(policy, fakeDns({}));
    expect(await failure(outboundRequest('http://nowhere.test/', bounds, policy, agent))).toMatchObject({ failure: 'not-found' });
  });
});
