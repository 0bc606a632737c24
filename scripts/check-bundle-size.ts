// The size budgets of what visitors download (ADR 21), checked on the built web/dist:
//   - the public chat page (chat.html): its entry script, every module it imports statically and
//     every modulepreload link, gzip-compressed; what it loads later with import() (the Markdown
//     renderer, the proof-of-work solver) is not counted, since most visitors never load it;
//   - widget.js, the loader owners paste into their sites.
// And that the chat page, built on preact/compat (ADR 38), calls none of the hooks and APIs React 19
// added, which preact/compat lacks: a named import of one fails the build, but a call through
// `React.` or the default export would fail only when the page ran.
// Prints each file and the totals; exits 1 when a total is past its budget or the page calls an API
// its runtime lacks.
// `--build` first builds web/dist when its sources changed (as the test command does for Playwright);
// WEB_DIST_DIR measures another build folder.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const KIB = 1024;
// The product's targets (docs/product.md, The widget), in KB of 1,000 bytes as it counts them.
const CHAT_PAGE_BUDGET = 60_000;
const WIDGET_BUDGET = 10_000;

/** What React 19 added that the page's code could call (preact/compat, like React 18.3, has none of them). */
const REACT_19_ONLY = ['useActionState', 'useOptimistic', 'useEffectEvent', 'useFormStatus', 'requestFormReset', 'captureOwnerStack'];

const root = new URL('..', import.meta.url).pathname;
const dist = process.env.WEB_DIST_DIR ?? join(root, 'web/dist');

function gzipSize(path: string): number {
  return gzipSync(readFileSync(path), { level: 9 }).length;
}

/** The modules an ES module imports statically (`import x from "./a.js"`, `import "./a.js"`, `export … from`), not `import()`. */
export function staticImports(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(/(?:\bimport|\bexport)\s*(?:[\w*{}\s,$]+?\s*from\s*)?["']([^"']+\.js)["']/g)) found.add(match[1]);
  return [...found];
}

/** The modules an ES module loads later with `import("./a.js")` (the build quotes them with backticks). */
export function dynamicImports(code: string): string[] {
  return [...new Set([...code.matchAll(/\bimport\(\s*["'`]([^"'`]+\.js)["'`]\s*\)/g)].map((m) => m[1]))];
}

/** chat.html's scripts: the module entries and modulepreload links, as paths inside dist. */
export function pageScripts(html: string): string[] {
  const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+\.js)"/g)].map((m) => m[1]);
  const preloads = [...html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+\.js)"/g)].map((m) => m[1]);
  return [...scripts, ...preloads].map((src) => src.replace(/^\//, ''));
}

/** Every file of the page's initial script graph (entries, their static imports, preloads); with `later`, what they import() too. */
function chatPageGraph(dir: string, later = false): string[] {
  const files = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const folder = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';
    const code = readFileSync(join(dir, file), 'utf8');
    for (const imported of [...staticImports(code), ...(later ? dynamicImports(code) : [])]) visit(join(folder, imported));
  };
  for (const file of pageScripts(readFileSync(join(dir, 'chat.html'), 'utf8'))) visit(file);
  return [...files];
}

/** The React 19 APIs the chat page's code (all of it, loaded at once or later) calls: `file: name` each. */
export function react19Calls(dir = dist): string[] {
  const found: string[] = [];
  const names = new RegExp(`\\.(${REACT_19_ONLY.join('|')})\\b`, 'g');
  for (const file of chatPageGraph(dir, true)) {
    for (const [, name] of readFileSync(join(dir, file), 'utf8').matchAll(names)) found.push(`${file}: ${name}`);
  }
  return [...new Set(found)];
}

export function kib(bytes: number): string {
  return `${(bytes / KIB).toFixed(1)} KiB`;
}

export interface BundleSize {
  label: string;
  files: Array<{ file: string; gzip: number }>;
  total: number;
  budget: number;
}

/** The gzip sizes of the chat page's initial JavaScript and of widget.js in a built web/dist. */
export function bundleSizes(dir = dist): BundleSize[] {
  const measure = (label: string, files: string[], budget: number): BundleSize => {
    const sized = files.map((file) => ({ file, gzip: gzipSize(join(dir, file)) }));
    return { label, files: sized, total: sized.reduce((sum, f) => sum + f.gzip, 0), budget };
  };
  return [measure('chat page JavaScript', chatPageGraph(dir), CHAT_PAGE_BUDGET), measure('widget.js', ['widget.js'], WIDGET_BUDGET)];
}

export function printBundleSizes(sizes: BundleSize[]): void {
  for (const { label, files, total, budget } of sizes) {
    for (const { file, gzip } of files) console.log(`  ${file.padEnd(44)} ${kib(gzip).padStart(10)}`);
    console.log(
      `${label}: ${kib(total)} gzip (${total.toLocaleString('en-US')} B), budget ${(budget / 1000).toFixed(0)} KB ` +
        `(${budget.toLocaleString('en-US')} B) ${total <= budget ? 'ok' : 'EXCEEDED'}`,
    );
  }
}

if (import.meta.main) {
  if (process.argv.includes('--build')) {
    const { buildWebIfStale } = await import('./web-build.ts');
    buildWebIfStale();
  }
  if (!existsSync(join(dist, 'chat.html')) || !existsSync(join(dist, 'widget.js'))) {
    console.error(`${dist} has no chat.html or widget.js: build the web app first (npm run build -w @parley/web)`);
    process.exit(1);
  }
  const sizes = bundleSizes();
  printBundleSizes(sizes);
  const calls = react19Calls();
  for (const call of calls) console.error(`the chat page calls ${call}, which preact/compat (its runtime, ADR 38) does not have`);
  process.exit(sizes.every(({ total, budget }) => total <= budget) && calls.length === 0 ? 0 : 1);
}
