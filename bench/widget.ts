// Widget benchmark (ADR 19; a script that prints figures, not a test): the time from a click on
// the launcher to a usable chat input (the field inside the iframe visible and enabled), in Debian's
// Chromium with the CPU throttled 4× (CDP Emulation.setCPUThrottlingRate), and the gzip sizes of
// what visitors download (scripts/check-bundle-size.ts).
// Starts the whole product (startStack, a local fake model it never calls) and a host page on
// another local origin (http://127.0.0.1:{port}, the product being on http://localhost:{port})
// with the snippet. Each run is a fresh browser context (nothing cached, nothing stored):
//   warm: the visitor clicks once the page is idle (the widget has created its hidden iframe then),
//         which is how a visitor meets it;
//   cold: the click comes as soon as the launcher shows, before the iframe exists.
// Both ends are measured inside the browser on one clock (performance.timeOrigin + now()): the
// click event on the host page, and the first animation frame of the embed page where the field is
// visible and enabled. Site isolation is off so the throttle covers the iframe as well.
//
//   node bench/widget.ts            (or: npm run bench widget)
//
// Own database (parley_bench_widget, dropped at the end), ports 500 above the defaults, own queue
// prefix. BENCH_RUNS (default 15) warm runs and a third as many cold ones; BENCH_LOGS=1 shows the
// services' logs.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { cpus } from 'node:os';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startFakeOpenAI } from '../services/common/src/testing/fake-openai.ts';
import { bundleSizes, printBundleSizes } from '../scripts/check-bundle-size.ts';
import { startStack, type RunningStack } from '../scripts/stack.ts';
import { buildWebIfStale } from '../scripts/web-build.ts';
import { freshDatabase, postJson } from './bench-stack.ts';
import { percentile } from './stats.ts';

const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
const DATABASE = 'parley_bench_widget';
const PORT_OFFSET = 500;
const RUNS = Math.max(3, Number(process.env.BENCH_RUNS ?? '15'));
const COLD_RUNS = Math.max(2, Math.round(RUNS / 3));
const CPU_THROTTLE = 4;
const TARGET_MS = 500;
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // The iframe (another origin) shares the page's process, so the CPU throttle applies to it too.
  '--disable-site-isolation-trials',
  '--disable-features=IsolateOrigins,site-per-process',
];

/** A page on another origin with nothing but some text and the snippet, as an owner's site would have. */
function hostPage(gateway: string, uniqueId: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme shop</title>
<style>body{font:16px/1.5 Georgia,serif;margin:40px} button{all:unset}</style></head>
<body><h1>Acme shop</h1><p>${'Our products are made to last. '.repeat(40)}</p>
<script src="${gateway}/widget.js" data-chatbot="${uniqueId}" defer></script></body></html>`;
}

function startHostSite(html: string): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/` })),
  );
}

/** Epoch milliseconds of the first frame where the chat field is visible and enabled (set up inside the iframe). */
function watchFieldUsable(): Promise<number> {
  return new Promise((resolve) => {
    const check = () => {
      const field = document.getElementById('chat-message') as HTMLTextAreaElement | null;
      // A hidden iframe (display: none) has no viewport: the field counts only once the panel shows.
      const shown = window.innerWidth > 0 && window.innerHeight > 0;
      if (shown && field && !field.disabled && field.checkVisibility() && field.getBoundingClientRect().height > 0) {
        resolve(performance.timeOrigin + performance.now());
      } else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  });
}

async function oneRun(browser: Browser, url: string, warm: boolean): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page: Page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_THROTTLE });
    await page.goto(url);
    const launcher = page.getByRole('button', { name: /^Chat with / });
    await launcher.waitFor();
    if (warm) {
      // Idle: the widget's iframe exists and its page has rendered the chat.
      await page.frameLocator('iframe[title^="Chat with"]').locator('#chat-message').waitFor({ state: 'attached', timeout: 30_000 });
    }
    await page.evaluate(() => {
      const w = window as unknown as { clickedAt?: number };
      document.addEventListener('click', () => (w.clickedAt ??= performance.timeOrigin + performance.now()), { capture: true, once: true });
    });
    // The frame may not exist yet on a cold run: the watcher starts as soon as it does.
    const frameWatch = (async () => {
      const handle = await page.waitForSelector('iframe[src*="/embed/"]', { state: 'attached', timeout: 30_000 });
      const frame = await handle.contentFrame();
      if (!frame) throw new Error('the widget iframe has no frame');
      await frame.waitForLoadState('domcontentloaded');
      return frame.evaluate(watchFieldUsable);
    })();
    await launcher.click();
    const usableAt = await frameWatch;
    const clickedAt = await page.evaluate(() => (window as unknown as { clickedAt?: number }).clickedAt);
    if (clickedAt === undefined) throw new Error('the click was not seen');
    if (usableAt < clickedAt) throw new Error('the field counted as usable before the click');
    return usableAt - clickedAt;
  } finally {
    await context.close();
  }
}

function summary(label: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${label}: p50 ${percentile(sorted, 50).toFixed(0)} ms, p95 ${percentile(sorted, 95).toFixed(0)} ms, max ${sorted[sorted.length - 1].toFixed(0)} ms (${values.length} runs)`;
}

buildWebIfStale();
const { url: databaseUrl, admin } = await freshDatabase(BASE_DATABASE_URL, DATABASE);
const model = await startFakeOpenAI({ delayMs: 0, chunkDelayMs: 0 });
let stack: RunningStack | undefined;
let browser: Browser | undefined;
let host: Server | undefined;
try {
  console.log(`widget benchmark: ${cpus().length} CPUs, Node ${process.version}, Chromium with the CPU throttled ${CPU_THROTTLE}×`);
  stack = await startStack({
    portOffset: PORT_OFFSET,
    output: process.env.BENCH_LOGS ? 'inherit' : 'quiet',
    env: {
      DATABASE_URL: databaseUrl,
      QUEUE_PREFIX: `benchwidget${randomBytes(4).toString('hex')}`,
      LOG_LEVEL: 'warn',
      PORT: '',
      OPENAI_API_KEY: 'bench-key',
      OPENAI_BASE_URL: model.url,
    },
  });
  const gateway = stack.url;
  const { token } = await postJson<{ token: string }>(gateway, '/api/auth/register', {
    email: `bench-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench-password-2026',
    password2: 'bench-password-2026',
  });
  const bot = await postJson<{ uniqueId: string }>(gateway, '/api/chatbot', { name: 'Acme Support' }, token);
  const site = await startHostSite(hostPage(gateway, bot.uniqueId));
  host = site.server;
  console.log(`host page ${site.url}, product ${gateway}`);

  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_FLAGS });
  await oneRun(browser, site.url, true); // warm-up: the first browser start and the server's first answers
  const warm: number[] = [];
  for (let i = 0; i < RUNS; i++) warm.push(await oneRun(browser, site.url, true));
  const cold: number[] = [];
  for (let i = 0; i < COLD_RUNS; i++) cold.push(await oneRun(browser, site.url, false));

  console.log(`\nlauncher click → usable chat input (target ≤ ${TARGET_MS} ms at ${CPU_THROTTLE}× CPU throttle):`);
  console.log(`  ${summary('warm (clicked once the page is idle)', warm)}`);
  console.log(`  ${summary('cold (clicked before the iframe exists)', cold)}`);
  console.log('\nbundle sizes (gzip):');
  printBundleSizes(bundleSizes());
} finally {
  await browser?.close();
  host?.close();
  await stack?.stop();
  await model.close();
  if (!process.env.BENCH_KEEP) await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.end();
}
