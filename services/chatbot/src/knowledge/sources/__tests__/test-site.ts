// A real website on 127.0.0.1 for the tests of fetching and crawling, also used by the ingestion
// tests and the benchmark: pages with menus and footers, robots.txt, sitemaps, redirects and hostile
// pages (slow, huge, compressed bombs, failing). Served by node:http on a random port.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface Route {
  status?: number;
  /** Content type; text/html; charset=utf-8 unless said. */
  type?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Full control, for pages that stream. */
  handle?: (req: IncomingMessage, res: ServerResponse) => void;
}

/** Path (with its query, if any) → route; built once the site knows its origin. */
export type Routes = Record<string, Route>;

export interface TestSite {
  /** http://127.0.0.1:<port>, without a trailing slash. */
  origin: string;
  port: number;
  url: (path: string) => string;
  /** Every path requested, in order (with its query). */
  requests: string[];
  close: () => Promise<void>;
}

export async function startTestSite(routes: (origin: string) => Routes, host = '127.0.0.1'): Promise<TestSite> {
  let table: Routes = {};
  const requests: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    const route = table[path] ?? table[path.split('?')[0]] ?? { status: 404, body: '<h1>Not found</h1>' };
    const answer = () => {
      timers.delete(timer);
      if (res.destroyed) return;
      if (route.handle) return route.handle(req, res);
      res.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'text/html; charset=utf-8', ...route.headers });
      res.end(route.body ?? '');
    };
    const timer = setTimeout(answer, route.delayMs ?? 0);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host}:${port}`;
  table = routes(origin);
  return {
    origin,
    port,
    url: (path) => `${origin}${path}`,
    requests,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HTML page as sites make them: a header menu and a footer around the main article. */
export function htmlPage({
  title,
  paragraphs,
  links = [],
  menu: menuLinks = ['/', '/about', '/pricing', '/docs/getting-started'],
}: {
  title: string;
  paragraphs: string[];
  links?: string[];
  menu?: string[];
}): string {
  const menu = menuLinks.map((href) => `<li><a href="${href}">Menu ${href}</a></li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} | Example Corp</title></head>
<body>
<header><nav class="site-nav"><ul>${menu}</ul></nav></header>
<main><article>
<h1>${title}</h1>
${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}
<ul>${links.map((href) => `<li><a href="${href}">Read ${href}</a></li>`).join('')}</ul>
</article></main>
<footer><p>Footer: © Example Corp. Cookie settings. Privacy policy. All rights reserved.</p></footer>
</body></html>`;
}

const page = (title: string, paragraphs: string[], links: string[] = [], menu?: string[]): Route => ({
  body: htmlPage({ title, paragraphs, links, menu }),
});

/** Streams `bytes` of text without announcing its length, slowly when `chunkDelayMs` is set. */
function stream(bytes: number, { chunkDelayMs = 0, headers = {} as Record<string, string> } = {}): Route['handle'] {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const write = () => {
      while (sent < bytes && !res.destroyed) {
        sent += chunk.length;
        const more = res.write(chunk);
        if (chunkDelayMs) return void setTimeout(write, chunkDelayMs);
        if (!more) return void res.once('drain', write);
      }
      res.end();
    };
    write();
  };
}

/**
 * The site most tests use. Pages: / → /about, /pricing, /docs/getting-started (→ /docs/advanced,
 * only reachable through it), /private/secret (disallowed by robots.txt), a picture, and duplicates
 * of /about that differ by fragment, tracking parameters or query order. With `sitemap`, robots.txt
 * names /sitemap-index.xml, which lists /sitemap-pages.xml, which lists the pages plus /only-in-sitemap.
 * `internalOrigin` is where /to-internal redirects (another server, standing for an internal service).
 */
export function sampleSite({ sitemap = false, internalOrigin = 'http://127.0.0.1:9' } = {}): (origin: string) => Routes {
  return (origin) => {
    const redirect = (location: string, status = 302): Route => ({ status, headers: { location } });
    const listed = ['/', '/about', '/pricing', '/docs/getting-started', '/docs/advanced', '/only-in-sitemap', '/private/secret'];
    const routes: Routes = {
      '/': page(
        'Welcome to Example Corp',
        [
          'Example Corp builds garden robots that mow, weed and water, so that your lawn looks after itself while you are away.',
          'Our robots run for six hours on one charge, find their own way back to the dock, and stay out of flower beds.',
        ],
        [
          '/about',
          '/pricing',
          '/docs/getting-started',
          '/private/secret',
          '/logo.png',
          '/about#team',
          '/about?utm_source=news',
          'https://elsewhere.example/',
          'mailto:hi@example.com',
        ],
      ),
      '/about': page('About us', [
        'Example Corp was founded in 2019 in Utrecht by two engineers, who wanted a mower that would not need watching.',
      ]),
      '/pricing': page(
        'Pricing',
        ['The Basic robot costs 499 euros; the Pro robot, with rain sensors and an app, costs 899 euros, delivery included.'],
        ['/pricing?b=2&a=1', '/pricing?a=1&b=2'],
      ),
      '/docs/getting-started': page(
        'Getting started',
        ['Charge the robot overnight before its first run, then walk the edge of the lawn with it once, so it learns the border.'],
        ['advanced'],
      ),
      '/docs/advanced': page('Advanced settings', [
        'Set the mowing height between 2 and 8 centimetres in the app, and choose which days of the week the robot may work.',
      ]),
      '/only-in-sitemap': page('Warranty', [
        'Every robot has a three-year warranty, covering the motor, the battery and the blades, with repairs done within a week.',
      ]),
      '/private/secret': page('Secret', [
        'Internal roadmap: nothing to see here, and certainly nothing a crawler should read, index or repeat.',
      ]),
      '/robots.txt': {
        type: 'text/plain',
        body: `User-agent: *\nDisallow: /private/\n\nUser-agent: OtherBot\nDisallow: /\n${sitemap ? `\nSitemap: ${origin}/sitemap-index.xml\n` : ''}`,
      },
      '/r1': redirect('/r2', 301),
      '/r2': redirect(`${origin}/r3`, 307),
      '/r3': redirect('/about', 308),
      '/loop': redirect('/loop2'),
      '/loop2': redirect('/loop'),
      '/to-internal': redirect(`${internalOrigin}/`),
      '/to-ftp': redirect('ftp://example.com/file'),
      '/missing-page-redirect': redirect('/nowhere'),
      '/server-error': { status: 500, body: 'boom' },
      '/slow': { delayMs: 5_000, body: htmlPage({ title: 'Slow', paragraphs: ['Finally, an answer.'] }) },
      '/slow-body': { handle: stream(10 * 64 * 1024, { chunkDelayMs: 400 }) },
      '/huge': { handle: stream(3 * 1024 * 1024) },
      '/huge-declared': { handle: stream(3 * 1024 * 1024, { headers: { 'content-length': String(3 * 1024 * 1024) } }) },
      '/bomb': { headers: { 'content-encoding': 'gzip' }, body: gzipSync(Buffer.alloc(50 * 1024 * 1024, ' ')) },
      '/gzipped': {
        headers: { 'content-encoding': 'gzip' },
        body: gzipSync(
          htmlPage({
            title: 'Compressed',
            paragraphs: ['Sent compressed, as most sites send their pages, and read back just the same by the fetcher.'],
          }),
        ),
      },
      '/not-gzip': { headers: { 'content-encoding': 'gzip' }, body: 'this was never compressed' },
      '/not-http': { handle: (req) => req.socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n') },
      '/notes.txt': { type: 'text/plain; charset=utf-8', body: 'Opening hours: 9 to 5.\r\nClosed on Sundays.\r\n' },
      '/guide.md': { type: 'text/markdown', body: '# Robot guide\n\nClean the blades monthly.\n' },
      '/latin1': {
        type: 'text/html; charset=iso-8859-1',
        body: Buffer.from(
          htmlPage({
            title: 'Café',
            paragraphs: ['Crème brûlée à volonté, et un café offert à chaque client qui vient chercher son robot au comptoir.'],
          }),
          'latin1',
        ),
      },
      '/picture': { type: 'image/png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
      '/empty': {
        body: '<!doctype html><html><head><title>Empty</title></head><body><div id="app"></div><script>render()</script></body></html>',
      },
    };
    if (sitemap) {
      routes['/sitemap-index.xml'] = {
        type: 'application/xml',
        body: `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/sitemap-pages.xml</loc></sitemap></sitemapindex>`,
      };
      routes['/sitemap-pages.xml'] = {
        type: 'application/xml',
        body: `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${listed.map((path) => `<url><loc>${origin}${path}</loc><lastmod>2026-01-01</lastmod></url>`).join('\n')}
<url><loc>${origin}/pricing?b=2&amp;a=1&amp;utm_medium=x</loc></url>
<url><loc>https://elsewhere.example/page</loc></url>
<url><loc>${origin}/brochure.pdf</loc></url>
</urlset>`,
      };
    }
    return routes;
  };
}

/** The facts page k of a generated site states (so tests can ask about them). */
export const pageFact = (k: number) => `Widget ${k} weighs ${k * 3} grams and comes in ${['red', 'green', 'blue', 'amber'][k % 4]}.`;

/**
 * A site of `pages` pages (the home page included): / links to /page/1 … /page/10, and /page/k to
 * /page/10k+1 … /page/10k+10, so a crawl must follow links past the home page. With `sitemap`,
 * /sitemap.xml lists every page and no link needs following.
 */
export function generatedSite(pages: number, { sitemap = false } = {}): (origin: string) => Routes {
  return (origin) => {
    const count = pages - 1;
    const menu = ['/', '/page/1', '/page/2'];
    const children = (k: number) =>
      Array.from({ length: 10 }, (_, i) => 10 * k + i + 1)
        .filter((c) => c <= count)
        .map((c) => `/page/${c}`);
    const routes: Routes = {
      '/': page(
        'Widget catalogue',
        ['Every widget we make, one page each, with its weight, its colour and where it is made.'],
        children(0),
        menu,
      ),
      '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /admin/\n' },
    };
    for (let k = 1; k <= count; k++) {
      routes[`/page/${k}`] = page(
        `Widget ${k}`,
        [pageFact(k), `Widget ${k} is made in workshop ${k % 7} and ships within ${(k % 5) + 1} days.`],
        children(k),
        menu,
      );
    }
    if (sitemap) {
      const paths = ['/', ...Array.from({ length: count }, (_, i) => `/page/${i + 1}`)];
      routes['/sitemap.xml'] = {
        type: 'application/xml',
        body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>${origin}${p}</loc></url>`).join('')}</urlset>`,
      };
    }
    return routes;
  };
}

/** The addresses of a generated site's pages, home first, in link order. */
export const generatedSitePages = (origin: string, pages: number): string[] => [
  `${origin}/`,
  ...Array.from({ length: pages - 1 }, (_, i) => `${origin}/page/${i + 1}`),
];
