// `npm run lint` checks formatting (Prettier, .prettierrc.json) and lint rules (ESLint,
// tools/lint/config.js); `npm run format` rewrites formatting only. Both tools come from tools/lint,
// a separate install (its package.json says why). Usage: node scripts/lint.ts [--write] [paths…].
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = (name: string) => join(root, 'tools/lint/node_modules/.bin', name);

const write = process.argv.includes('--write');
const args = process.argv.slice(2).filter((a) => a !== '--write');
const paths = args.length ? args : ['.'];
// Prettier's cache is keyed by file content, its version and its options, so it is never stale.
const prettierArgs = ['--cache', '--cache-strategy', 'content', '--log-level', 'warn'];

if (write) {
  const r = spawnSync(bin('prettier'), ['--write', ...prettierArgs, ...paths], { cwd: root, stdio: 'inherit' });
  process.exit(r.status === 0 ? 0 : 1);
}

/** Runs a tool with its output held back, so the two tools can run side by side (one per core). */
function run(cmd: string, cmdArgs: string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, cmdArgs, { cwd: root });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (e) => resolve({ ok: false, output: `${cmd}: ${e.message} (\`npm run lint\` installs tools/lint)\n` }));
    child.on('close', (code) => resolve({ ok: code === 0, output }));
  });
}

const color = process.stdout.isTTY ? ['--color'] : [];
const [formatting, rules] = await Promise.all([
  run(bin('prettier'), ['--check', ...prettierArgs, ...paths]),
  run(bin('eslint'), ['--max-warnings', '0', ...color, ...paths]),
]);
process.stdout.write(formatting.output);
if (!formatting.ok) console.log('Formatting differs in the files above: `npm run format` rewrites them.');
process.stdout.write(rules.output);
console.log(`prettier: ${formatting.ok ? 'ok' : 'FAILED'}, eslint: ${rules.ok ? 'ok' : 'FAILED'}`);
process.exit(formatting.ok && rules.ok ? 0 : 1);
