import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCKED_BY_ROBOTS, discoverPages, pageAddress, readSitemap } from '../crawl.ts';
import { fetchPage } from '../fetch-page.ts';
import { ADDRESS_NOT_ALLOWED, type WebFetchOptions } from '../safe-fetch.ts';
import { generatedSite, generatedSitePages, pageFact, sampleSite, startTestSite, type TestSite } from './test-site.ts';

const local: WebFetchOptions = { allowPrivate: true, timeoutMs: 5_000, maxBytes: 1024 * 1024 };

describe('pageAddress', () => {
  const origin = 'https://example.com';
  it('gives duplicates one form: no fragment, no tracking parameters, the query sorted', () => {
    expect(pageAddress('/a?b=2&a=1#x', 'https://example.com/', origin)).toBe('https://example.com/a?a=1&b=2');
    expect(pageAddress('/a?utm_source=x&fbclid=y&gclid=z', 'https://example.com/', origin)).toBe('https://example.com/a');
    expect(pageAddress('b', 'https://example.com/docs/a', origin)).toBe('https://example.com/docs/b');
    expect(pageAddress('https://user:pw@example.com/a', origin, origin)).toBe('https://example.com/a');
  });

  it('leaves out other sites, other schemes and files', () => {
    for (const href of [
      'https://other.example/',
      'http://example.com/',
      'https://example.com:8443/',
      'mailto:a@example.com',
      '/logo.PNG',
      '/doc.pdf',
      '/a.zip',
      '/feed.xml',
    ])
      expect(pageAddress(href, 'https://example.com/', origin)).toBeUndefined();
  });
});

describe('discoverPages', () => {
  let site: TestSite;
  let mapped: TestSite;
  beforeAll(async () => {
    site = await startTestSite(sampleSite());
    mapped = await startTestSite(sampleSite({ sitemap: true }));
  });
  afterAll(async () => {
    await site?.close();
    await mapped?.close();
  });

  it('follows links breadth first, same site only, robots.txt respected, duplicates and files left out', async () => {
    const pages = await discoverPages(site.url('/'), { ...local, maxPages: 20 });
    expect(pages).toEqual([
      site.url('/'),
      site.url('/about'),
      site.url('/pricing'),
      site.url('/docs/getting-started'),
      site.url('/pricing?a=1&b=2'),
      site.url('/docs/advanced'),
    ]);
    expect(site.requests).not.toContain('/private/secret');
    expect(site.requests).toContain('/robots.txt');
  });

  it('uses the start page’s links when given, without fetching the start page again', async () => {
    const start = await fetchPage(site.url('/'), local);
    const before = site.requests.length;
    const pages = await discoverPages(start.url, { ...local, maxPages: 4, startLinks: start.links });
    expect(pages).toEqual([site.url('/'), site.url('/about'), site.url('/pricing'), site.url('/docs/getting-started')]);
    // Four pages found from the start page's links: nothing fetched but robots.txt and the sitemap.
    expect(site.requests.slice(before)).toEqual(['/robots.txt', '/sitemap.xml']);
  });

  it('stops at maxPages, and reads nothing more for one page', async () => {
    expect(await discoverPages(site.url('/'), { ...local, maxPages: 2 })).toEqual([site.url('/'), site.url('/about')]);
    const before = site.requests.length;
    expect(await discoverPages(site.url('/about#team'), { ...local, maxPages: 1 })).toEqual([site.url('/about')]);
    expect(site.requests.slice(before)).toEqual(['/robots.txt']);
  });

  it('leaves out pages that cannot be read, and a redirected page is kept at its final address', async () => {
    const odd = await startTestSite(() => ({
      '/': {
        body: `<main><p>Start here.</p><a href="/gone">Gone</a> <a href="/old">Old</a> <a href="/picture">Picture</a> <a href="/new">New</a> <a href="/moved">Moved</a></main>`,
      },
      '/old': { status: 301, headers: { location: '/new' } },
      '/moved': { status: 301, headers: { location: '/fresh' } },
      '/new': { body: '<main><p>New page.</p></main>' },
      '/fresh': { body: '<main><p>Fresh page.</p></main>' },
      '/picture': { type: 'image/png', body: 'png' },
    }));
    try {
      const pages = await discoverPages(odd.url('/'), { ...local, maxPages: 10 });
      expect(pages).toEqual([odd.url('/'), odd.url('/new'), odd.url('/fresh')]);
    } finally {
      await odd.close();
    }
  });

  it(`refuses a start page robots.txt disallows: "${BLOCKED_BY_ROBOTS}"`, async () => {
    await expect(discoverPages(site.url('/private/secret'), { ...local, maxPages: 5 })).rejects.toThrow(BLOCKED_BY_ROBOTS);
  });

  it('honours the rules for our user agent', async () => {
    const strict = await startTestSite(() => ({
      '/': { body: '<main><p>Hello.</p><a href="/a">A</a></main>' },
      '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n\nUser-agent: ParleyBot\nDisallow: /\n' },
    }));
    try {
      await expect(discoverPages(strict.url('/'), { ...local, maxPages: 5 })).rejects.toThrow(BLOCKED_BY_ROBOTS);
    } finally {
      await strict.close();
    }
  });

  it('takes the pages from the sitemap (named in robots.txt, through an index) without fetching them', async () => {
    const pages = await discoverPages(mapped.url('/'), { ...local, maxPages: 20 });
    expect(pages).toEqual([
      mapped.url('/'),
      mapped.url('/about'),
      mapped.url('/pricing'),
      mapped.url('/docs/getting-started'),
      mapped.url('/docs/advanced'),
      mapped.url('/only-in-sitemap'),
      mapped.url('/pricing?a=1&b=2'),
    ]);
    expect(mapped.requests).toEqual(['/robots.txt', '/sitemap-index.xml', '/sitemap-pages.xml']);
  });

  it('refuses private addresses unless allowed', async () => {
    await expect(discoverPages(site.url('/'), { ...local, allowPrivate: false, maxPages: 5 })).rejects.toThrow(ADDRESS_NOT_ALLOWED);
  });
});

describe('readSitemap', () => {
  it('reads gzipped and plain-text sitemaps, and ignores what is not one', async () => {
    const host = await startTestSite((origin) => ({
      '/sitemap.xml.gz': {
        type: 'application/gzip',
        body: gzipSync(
          `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc> ${origin}/a?x=1&amp;y=2 </loc></url></urlset>`,
        ),
      },
      '/sitemap.txt': { type: 'text/plain', body: `${origin}/one\n\n${origin}/two\nnot an address\n` },
      '/broken.xml': { type: 'application/xml', body: '<urlset><url><loc>' },
      '/bomb.xml.gz': { type: 'application/gzip', body: gzipSync(Buffer.alloc(20 * 1024 * 1024, ' ')) },
    }));
    try {
      expect(await readSitemap(host.url('/sitemap.xml.gz'), local)).toEqual({ pages: [host.url('/a?x=1&y=2')], sitemaps: [] });
      expect(await readSitemap(host.url('/sitemap.txt'), local)).toEqual({ pages: [host.url('/one'), host.url('/two')], sitemaps: [] });
      expect((await readSitemap(host.url('/broken.xml'), local)).pages).toEqual([]);
      expect(await readSitemap(host.url('/bomb.xml.gz'), local)).toEqual({ pages: [], sitemaps: [] });
      expect(await readSitemap(host.url('/missing.xml'), local)).toEqual({ pages: [], sitemaps: [] });
    } finally {
      await host.close();
    }
  });
});

describe('a 50-page site', () => {
  it.each([
    ['links only', false],
    ['a sitemap', true],
  ])('is discovered and fetched whole (%s)', async (what, sitemap) => {
    const site = await startTestSite(generatedSite(50, { sitemap }));
    try {
      const started = performance.now();
      const pages = await discoverPages(site.url('/'), { ...local, maxPages: 50 });
      const discovered = performance.now();
      const fetched: Awaited<ReturnType<typeof fetchPage>>[] = [];
      for (let i = 0; i < pages.length; i += 4)
        fetched.push(...(await Promise.all(pages.slice(i, i + 4).map((url) => fetchPage(url, local)))));
      const done = performance.now();
      console.log(
        `50-page site (${what}): discovered in ${(discovered - started).toFixed(0)} ms, fetched and extracted in ${(done - discovered).toFixed(0)} ms (${site.requests.length} requests)`,
      );
      expect(pages).toEqual(generatedSitePages(site.origin, 50));
      expect(fetched[17].text).toContain(pageFact(17));
      expect(fetched[17].text).not.toContain('Footer');
      expect(done - started).toBeLessThan(20_000);
    } finally {
      await site.close();
    }
  });
});
