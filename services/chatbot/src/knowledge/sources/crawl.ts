// Which pages of a site become knowledge when an owner adds a whole site: the pages its sitemap
// lists when it has one (no page fetched just to find others), otherwise the pages its links lead
// to, breadth first from the start page. Same origin only, robots.txt respected, at most maxPages,
// and addresses that differ only in the order of their query or in tracking parameters counted once.
import { gunzipSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import robotsParserModule from 'robots-parser';
import { fetchPage } from './fetch-page.ts';
import { normalizeUrl, safeFetch, USER_AGENT, type WebFetchOptions } from './safe-fetch.ts';
import { SourceError } from './source-error.ts';

// robots-parser is CommonJS typed as an ES module: its default import is the function itself.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

export const BLOCKED_BY_ROBOTS = "Blocked by the site's robots.txt";
export { DEFAULT_MAX_PAGES, MAX_PAGES_LIMIT } from './web-source.ts';

/** Sitemap files read per crawl (index files included), and pages fetched side by side to follow links. */
const MAX_SITEMAPS = 20;
const LINK_FETCH_CONCURRENCY = 4;
const DEFAULT_BUDGET_MS = 60_000;
/** Robots and sitemap files may be large, but we need little of them. */
const MAX_ROBOTS_BYTES = 512 * 1024;

/** Addresses that name files rather than pages. */
const NOT_A_PAGE =
  /\.(png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|pdf|zip|gz|tgz|bz2|xz|7z|rar|tar|exe|dmg|msi|deb|rpm|apk|iso|bin|mp3|mp4|m4a|wav|ogg|oga|webm|avi|mov|mkv|flac|css|js|mjs|json|xml|rss|atom|woff2?|ttf|otf|eot|docx?|xlsx?|pptx?|odt|ods|csv|ics|txt\.gz)$/i;
/** Query parameters that say where a visitor came from, not which page it is. */
const TRACKING_PARAM = /^(utm_\w+|fbclid|gclid|dclid|gbraid|wbraid|msclkid|mc_cid|mc_eid|_ga|_gl|yclid)$/i;

export interface CrawlOptions extends WebFetchOptions {
  maxPages: number;
  /** The start page's links when the caller has fetched it already (pass its final address as startUrl). */
  startLinks?: string[];
  /** Time allowed for discovery as a whole; each fetch also has its own timeoutMs. */
  budgetMs?: number;
}

/** The site's pages to read, the start page first, at most maxPages. */
export async function discoverPages(startUrl: string, opts: CrawlOptions): Promise<string[]> {
  const deadline = Date.now() + (opts.budgetMs ?? DEFAULT_BUDGET_MS);
  let start = normalizeUrl(startUrl);
  const robots = await readRobots(new URL(start).origin, opts);
  if (!robots.allows(start)) throw new SourceError(BLOCKED_BY_ROBOTS);
  if (opts.maxPages <= 1) return [start];

  let site = new PageList(start, opts.maxPages, robots.allows);
  for (const url of await sitemapPages(robots.sitemaps, opts, deadline)) site.add(url, start);
  if (site.size() > 1) return site.pages();

  let startLinks = opts.startLinks;
  if (!startLinks) {
    // No sitemap: read the start page for its links, and learn where it really is.
    const page = await fetchPage(start, opts);
    if (page.url !== start && new URL(page.url).origin === site.origin)
      site = new PageList((start = normalizeUrl(page.url)), opts.maxPages, robots.allows);
    startLinks = page.links;
  }
  for (const link of startLinks) site.add(link, start);
  // Breadth first: fetch further pages only while there are too few, a few at a time.
  while (!site.full() && Date.now() < deadline) {
    const batch = site.unexpanded(LINK_FETCH_CONCURRENCY);
    if (batch.length === 0) break;
    const fetched = await Promise.all(
      batch.map((url) =>
        fetchPage(url, { ...opts, timeoutMs: Math.max(1, Math.min(opts.timeoutMs, deadline - Date.now())) }).catch(() => undefined),
      ),
    );
    batch.forEach((url, i) => {
      const page = fetched[i];
      if (!page) return site.drop(url);
      site.settle(url, page.url);
      for (const link of page.links) site.add(link, page.url);
    });
  }
  return site.pages();
}

/**
 * A page's address in one form: same origin as the site, no fragment or credentials, tracking
 * parameters removed and the rest sorted; undefined for other sites, non-http(s) addresses and files.
 */
export function pageAddress(href: string, base: string, origin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return undefined;
  }
  if (url.origin !== origin || NOT_A_PAGE.test(url.pathname)) return undefined;
  url.hash = '';
  url.username = '';
  url.password = '';
  const params = [...url.searchParams].filter(([name]) => !TRACKING_PARAM.test(name));
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  url.search = new URLSearchParams(params).toString();
  return url.href;
}

/** The pages found so far, in the order found; which of them have been fetched to follow their links. */
class PageList {
  readonly origin: string;
  private readonly found: string[] = [];
  private readonly seen = new Set<string>();
  private readonly removed = new Set<string>();
  private expanded = 1; // the start page's links come from the caller or the first fetch
  private readonly maxPages: number;
  private readonly allows: (url: string) => boolean;

  constructor(start: string, maxPages: number, allows: (url: string) => boolean) {
    this.origin = new URL(start).origin;
    this.maxPages = maxPages;
    this.allows = allows;
    const first = pageAddress(start, start, this.origin) ?? start;
    this.found.push(first);
    this.seen.add(first);
    if (first !== start) this.seen.add(start);
  }

  size = () => this.found.length - this.removed.size;
  full = () => this.size() >= this.maxPages;
  pages = () => this.found.filter((url) => !this.removed.has(url));

  add(href: string, base: string): void {
    if (this.full()) return;
    const url = pageAddress(href, base, this.origin);
    if (!url || this.seen.has(url) || !this.allows(url)) return;
    this.seen.add(url);
    this.found.push(url);
  }

  unexpanded(count: number): string[] {
    const next = this.found.slice(this.expanded, this.expanded + count);
    this.expanded += next.length;
    return next.filter((url) => !this.removed.has(url));
  }

  /** A page that could not be read is left out: it would only become a failed entry. */
  drop(url: string): void {
    this.removed.add(url);
  }

  /** A page fetched at a new address (redirected) is kept once, at that address, when it stays on the site. */
  settle(url: string, finalUrl: string): void {
    if (finalUrl === url) return;
    const final = pageAddress(finalUrl, finalUrl, this.origin);
    if (final === url) return;
    if (!final || this.seen.has(final) || !this.allows(final)) return this.drop(url);
    this.seen.add(final);
    this.found[this.found.indexOf(url)] = final;
  }
}

interface Robots {
  allows: (url: string) => boolean;
  sitemaps: string[];
}

/** The site's robots.txt rules for us; a site without a readable one has none, and its sitemap is at /sitemap.xml. */
async function readRobots(origin: string, opts: WebFetchOptions): Promise<Robots> {
  const robotsUrl = `${origin}/robots.txt`;
  let text = '';
  try {
    const res = await safeFetch(robotsUrl, { ...opts, maxBytes: Math.min(opts.maxBytes, MAX_ROBOTS_BYTES) });
    // A site answering every address with its HTML app has no robots.txt.
    if (!res.contentType.includes('html')) text = res.body.toString('utf8');
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
  }
  const rules = robotsParser(robotsUrl, text);
  const sitemaps = (rules.getSitemaps() as string[]).filter((url) => /^https?:\/\//i.test(url));
  return {
    allows: (url) => rules.isAllowed(url, USER_AGENT) !== false,
    sitemaps: sitemaps.length > 0 ? sitemaps : [`${origin}/sitemap.xml`],
  };
}

const xml = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  // No entity expansion at all: a sitemap has no use for it, and it is how XML bombs work.
  processEntities: false,
  isArray: (name) => name === 'url' || name === 'sitemap',
});

/** Page addresses listed by the sitemaps (following sitemap index files), as many as found within the limits. */
async function sitemapPages(sitemaps: string[], opts: CrawlOptions, deadline: number): Promise<string[]> {
  const queue = [...sitemaps];
  const pages: string[] = [];
  // Pages of other sites and robots-disallowed ones are filtered later: collect a few more than needed.
  for (let read = 0; read < MAX_SITEMAPS && queue.length > 0 && pages.length < opts.maxPages * 4 && Date.now() < deadline; read++) {
    const listed = await readSitemap(queue.shift()!, opts);
    pages.push(...listed.pages);
    queue.push(...listed.sitemaps);
  }
  return pages;
}

/** One sitemap file (XML, gzipped XML or plain text); an unreadable one lists nothing. */
export async function readSitemap(url: string, opts: WebFetchOptions): Promise<{ pages: string[]; sitemaps: string[] }> {
  const none = { pages: [], sitemaps: [] };
  let body: Buffer;
  try {
    body = (await safeFetch(url, opts)).body;
    if (body[0] === 0x1f && body[1] === 0x8b) body = gunzipSync(body, { maxOutputLength: opts.maxBytes });
  } catch (err) {
    if (err instanceof SourceError || err instanceof RangeError || (err as NodeJS.ErrnoException).code?.startsWith('Z_')) return none;
    throw err;
  }
  const text = body.toString('utf8').replace(/^\uFEFF/, '');
  if (!text.trimStart().startsWith('<'))
    return {
      pages: text
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => /^https?:\/\//i.test(line)),
      sitemaps: [],
    };
  let doc: { urlset?: { url?: { loc?: unknown }[] }; sitemapindex?: { sitemap?: { loc?: unknown }[] } };
  try {
    doc = xml.parse(text);
  } catch {
    return none;
  }
  return { pages: locations(doc.urlset?.url), sitemaps: locations(doc.sitemapindex?.sitemap) };
}

const XML_ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" };

function locations(items: { loc?: unknown }[] | undefined): string[] {
  return (items ?? [])
    .map((item) => (typeof item?.loc === 'string' ? item.loc.trim().replace(/&(amp|lt|gt|quot|apos);/g, (e) => XML_ENTITIES[e]) : ''))
    .filter((loc) => /^https?:\/\//i.test(loc));
}
