// Builds web/dist with Vite when the web app's sources changed since the last build.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './stack.ts';

function sourcesHash(): string {
  const h = createHash('sha256');
  const walk = (p: string) => {
    if (!existsSync(p)) return;
    if (statSync(p).isDirectory()) {
      for (const f of readdirSync(p).sort()) if (f !== 'node_modules' && f !== 'dist') walk(join(p, f));
    } else h.update(p).update(readFileSync(p));
  };
  walk(join(root, 'web'));
  walk(join(root, 'gateway/src/schema'));
  return h.digest('hex');
}

export function buildWebIfStale(): void {
  const stamp = join(root, 'web/dist/.stamp');
  const hash = sourcesHash();
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;
  console.error('› building the web app');
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: join(root, 'web'), stdio: 'inherit' });
  writeFileSync(stamp, hash);
}
