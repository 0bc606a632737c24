import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADDRESS_NOT_ALLOWED,
  BAD_RESPONSE,
  CONNECTION_FAILED,
  createGuardedAgent,
  INVALID_URL,
  isPublicAddress,
  normalizeUrl,
  safeFetch,
  SITE_NOT_FOUND,
  TOO_LARGE,
  TOO_MANY_REDIRECTS,
  TOO_SLOW,
  USER_AGENT,
  type WebFetchOptions,
} from '../safe-fetch.ts';
import { parseAllowList } from '@parley/common/outbound/guard.ts';
import { sampleSite, startTestSite, type TestSite } from './test-site.ts';

const local: WebFetchOptions = { allowPrivate: true, timeoutMs: 5_000, maxBytes: 1024 * 1024 };
const guarded: WebFetchOptions = { ...local, allowPrivate: false };
/** The outbound guard with only the test site's loopback address allowed (the operator's allow-list). */
const onlyTheSite = { allowPrivate: false, allow: parseAllowList('127.0.0.1') };

/** A resolver answering from a table, standing for DNS names we do not control. */
function fakeDns(table: Record<string, string[]>, calls: string[] = []) {
  return ((hostname: string, _options: unknown, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  }) as unknown as typeof import('node:dns').lookup;
}

let site: TestSite;
let internal: TestSite;

beforeAll(async () => {
  // Another server on another loopback address, standing for an internal service.
  internal = await startTestSite(() => ({ '/': { type: 'text/plain', body: 'internal secrets' } }), '127.0.0.2');
  site = await startTestSite(sampleSite({ internalOrigin: internal.origin }));
});
afterAll(async () => {
  await site?.close();
  await internal?.close();
});

describe('normalizeUrl', () => {
  it('trims, keeps the query and drops the fragment', () => {
    expect(normalizeUrl('  https://Example.com/a/b?x=1#top \n')).toBe('https://example.com/a/b?x=1');
    expect(normalizeUrl('http://example.com')).toBe('http://example.com/');
  });

  it.each(['', 'example.com', 'not a url', 'ftp://example.com/', 'javascript:alert(1)', 'file:///etc/passwd', 'http://', 'mailto:a@b.c'])(
    'refuses %j',
    (raw) => {
      expect(() => normalizeUrl(raw)).toThrow(INVALID_URL);
    },
  );
});

describe('isPublicAddress', () => {
  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])('lets %s through', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::a00:1',
    '2002:a00:1::',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('safeFetch', () => {
  it('fetches a page with its final address, type, charset and body', async () => {
    const res = await safeFetch(site.url('/about#team'), local);
    expect(res).toMatchObject({ url: site.url('/about'), status: 200, contentType: 'text/html', charset: 'utf-8' });
    expect(res.body.toString()).toContain('founded in 2019');
  });

  it('says who we are', async () => {
    let agent = '';
    const probe = await startTestSite(() => ({ '/': { handle: (req, res) => res.end((agent = req.headers['user-agent'] ?? '')) } }));
    try {
      await safeFetch(probe.url('/'), local);
      expect(agent).toBe(USER_AGENT);
    } finally {
      await probe.close();
    }
  });

  it('decompresses a compressed page', async () => {
    const res = await safeFetch(site.url('/gzipped'), local);
    expect(res.body.toString()).toContain('Sent compressed, as most sites send their pages');
  });

  describe('refuses private addresses unless they are allowed', () => {
    it.each([
      ['a name resolving to loopback', () => `http://localhost:${site.port}/about`],
      ['a loopback literal', () => site.url('/about')],
      ['an IPv4-mapped loopback literal', () => `http://[::ffff:127.0.0.1]:${site.port}/about`],
      ['the IPv6 loopback', () => `http://[::1]:${site.port}/about`],
      ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
      ['a private network address', () => 'http://10.0.0.1/'],
      ['a decimal-encoded loopback address', () => `http://2130706433:${site.port}/about`],
    ])('%s', async (_what, url) => {
      const before = site.requests.length;
      await expect(safeFetch(url(), guarded)).rejects.toThrow(ADDRESS_NOT_ALLOWED);
      expect(site.requests.length).toBe(before);
    });

    it('allows them with allowPrivate (KNOWLEDGE_URL_ALLOW_PRIVATE=1)', async () => {
      const res = await safeFetch(`http://localhost:${site.port}/about`, local);
      expect(res.body.toString()).toContain('founded in 2019');
    });

    it('refuses names that resolve to private addresses, and any name with one private answer among public ones', async () => {
      const agent = createGuardedAgent(
        { allowPrivate: false, allow: parseAllowList('') },
        fakeDns({ 'metadata.test': ['169.254.169.254'], 'intranet.test': ['10.1.2.3'], 'mixed.test': ['93.184.216.34', '192.168.0.10'] }),
      );
      for (const host of ['metadata.test', 'intranet.test', 'mixed.test'])
        await expect(safeFetch(`http://${host}/`, guarded, agent)).rejects.toThrow(ADDRESS_NOT_ALLOWED);
    });

    it('connects to the very address it checked (one resolution: no DNS rebinding)', async () => {
      const calls: string[] = [];
      const agent = createGuardedAgent(onlyTheSite, fakeDns({ 'shop.test': ['127.0.0.1'] }, calls));
      const res = await safeFetch(`http://shop.test:${site.port}/pricing`, guarded, agent);
      expect(res.body.toString()).toContain('499 euros');
      expect(calls).toEqual(['shop.test']);
    });

    it('checks every redirect target again', async () => {
      // The internal server is reachable (allowPrivate) …
      expect((await safeFetch(site.url('/to-internal'), local)).body.toString()).toBe('internal secrets');
      // … but not when only the site's own address is allowed.
      const agent = createGuardedAgent(onlyTheSite);
      await expect(safeFetch(site.url('/to-internal'), guarded, agent)).rejects.toThrow(ADDRESS_NOT_ALLOWED);
      expect(internal.requests).toEqual(['/']);
    });
  });

  describe('redirects', () => {
    it('follows a chain of redirects to the final page', async () => {
      const res = await safeFetch(site.url('/r1'), local);
      expect(res.url).toBe(site.url('/about'));
    });

    it(`stops after too many: "${TOO_MANY_REDIRECTS}"`, async () => {
      await expect(safeFetch(site.url('/loop'), local)).rejects.toThrow(TOO_MANY_REDIRECTS);
    });

    it('follows only http and https', async () => {
      await expect(safeFetch(site.url('/to-ftp'), local)).rejects.toThrow(ADDRESS_NOT_ALLOWED);
    });
  });

  describe('failures in the owner’s words', () => {
    it('HTTP errors', async () => {
      await expect(safeFetch(site.url('/nowhere'), local)).rejects.toThrow('The page could not be fetched (HTTP 404)');
      await expect(safeFetch(site.url('/missing-page-redirect'), local)).rejects.toThrow('The page could not be fetched (HTTP 404)');
      await expect(safeFetch(site.url('/server-error'), local)).rejects.toThrow('The page could not be fetched (HTTP 500)');
    });

    it('a site that does not exist', async () => {
      const agent = createGuardedAgent({ allowPrivate: true, allow: parseAllowList('') }, fakeDns({}));
      await expect(safeFetch('http://no-such-site.test/', local, agent)).rejects.toThrow(SITE_NOT_FOUND);
    });

    it('a site that refuses the connection', async () => {
      const closed = await startTestSite(() => ({}));
      await closed.close();
      await expect(safeFetch(closed.url('/'), local)).rejects.toThrow(CONNECTION_FAILED);
    });

    it('a page that does not answer in time', async () => {
      const started = Date.now();
      await expect(safeFetch(site.url('/slow'), { ...local, timeoutMs: 300 })).rejects.toThrow(TOO_SLOW);
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('a page whose body is too slow (the deadline covers the whole fetch)', async () => {
      const started = Date.now();
      await expect(safeFetch(site.url('/slow-body'), { ...local, timeoutMs: 600 })).rejects.toThrow(TOO_SLOW);
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('a page too large, announced or not, and a compressed bomb', async () => {
      for (const path of ['/huge', '/huge-declared', '/bomb']) await expect(safeFetch(site.url(path), local)).rejects.toThrow(TOO_LARGE);
    });

    it('a server that does not speak HTTP, or sends compressed data that is not', async () => {
      await expect(safeFetch(site.url('/not-http'), local)).rejects.toThrow(BAD_RESPONSE);
      await expect(safeFetch(site.url('/not-gzip'), local)).rejects.toThrow(BAD_RESPONSE);
    });

    it('an address that is no address', async () => {
      await expect(safeFetch('nonsense', local)).rejects.toThrow(INVALID_URL);
    });
  });
});
