// `npm test`: every check and test of the product, in one run, ending with "N passed, N failed".
//   1. local PostgreSQL, Redis and Chromium are present (started/installed when missing)
//   2. typecheck (server, web app, public chat page), lint (Prettier and ESLint, scripts/lint.ts), web build
//   3. vitest: unit, integration (real PostgreSQL and Redis), contract and repository tests
//   4. Playwright end-to-end in Debian's Chromium against the whole running stack
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildWebIfStale } from './web-build.ts';
import { ensureServices, ensureChromium } from './machine.ts';

const root = new URL('..', import.meta.url).pathname;
const reports = join(root, 'test-results');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

process.env.DATABASE_URL ||= 'postgresql://postgres@127.0.0.1:5432/parley_test';
process.env.REDIS_URL ||= 'redis://127.0.0.1:6379';
process.env.LOG_LEVEL ||= 'warn';

const onlyE2e = process.argv.includes('--e2e');
const skipE2e = process.argv.includes('--no-e2e');
const failedSteps: string[] = [];

function step(name: string, cmd: string, args: string[], cwd = root): boolean {
  console.log(`\n━━ ${name}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit', env: process.env });
  const ok = r.status === 0;
  console.log(`━━ ${name}: ${ok ? 'ok' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (!ok) failedSteps.push(name);
  return ok;
}

await ensureServices();
let passed = 0;
let failed = 0;

if (!onlyE2e) {
  // Each typecheck counts as one check in the closing tally.
  for (const [name, project] of [
    ['typecheck (server)', 'tsconfig.json'],
    ['typecheck (web)', 'web/tsconfig.json'],
    ['typecheck (public chat page)', 'web/chat-page/tsconfig.json'],
  ]) {
    if (step(name, 'npx', ['tsc', '-p', project])) passed += 1;
    else failed += 1;
  }
  // Lint counts as one check too: formatting, and the rules and import boundaries of tools/lint/config.js.
  if (step('lint (Prettier, ESLint)', 'node', ['scripts/lint.ts'])) passed += 1;
  else failed += 1;
  const vitestJson = join(reports, 'vitest.json');
  step('unit, integration and contract tests (vitest)', 'npx', [
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${vitestJson}`,
  ]);
  if (existsSync(vitestJson)) {
    const r = JSON.parse(readFileSync(vitestJson, 'utf8'));
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    if (r.numFailedTests === 0 && !r.success) failed += 1; // a file that failed to load
  }
}

if (!skipE2e) {
  console.log('\n━━ web build');
  buildWebIfStale();
  ensureChromium();
  const pwJson = join(reports, 'playwright.json');
  const ok = step('end-to-end tests (Playwright, Chromium)', 'npx', ['playwright', 'test', '--config', 'e2e/playwright.config.ts']);
  if (existsSync(pwJson)) {
    const r = JSON.parse(readFileSync(pwJson, 'utf8'));
    passed += r.stats.expected;
    failed += r.stats.unexpected + (r.stats.flaky ?? 0);
  } else if (!ok) failed += 1;
}

console.log('');
if (failedSteps.length) console.log(`Failed steps: ${failedSteps.join(', ')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failedSteps.length || failed ? 1 : 0);
