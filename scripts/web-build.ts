// Builds web/dist with Vite when the web app's sources changed since the last build.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gatewaySchemaFiles } from './gateway-schema.ts';
import { root } from './stack.ts';

/**
 * Every file the build reads, as paths from the repository root: web/ holds the app and the public
 * chat page's package (web/chat-page: its sources, its configs, and its lockfile, since its React is
 * an install of its own), and the gateway's schema gives the app's GraphQL types. Installs and
 * builds are left out.
 */
export function webSourceFiles(): string[] {
  const files: string[] = [];
  const walk = (p: string) => {
    if (!existsSync(p)) return;
    if (statSync(p).isDirectory()) {
      for (const f of readdirSync(p).sort()) if (f !== 'node_modules' && f !== 'dist') walk(join(p, f));
    } else files.push(relative(root, p));
  };
  walk(join(root, 'web'));
  for (const file of gatewaySchemaFiles()) walk(join(root, file));
  return files;
}

function sourcesHash(): string {
  const h = createHash('sha256');
  for (const file of webSourceFiles()) h.update(join(root, file)).update(readFileSync(join(root, file)));
  return h.digest('hex');
}

export function buildWebIfStale(): void {
  const stamp = join(root, 'web/dist/.stamp');
  const hash = sourcesHash();
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;
  console.error('› building the web app and the public chat page');
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: join(root, 'web'), stdio: 'inherit' });
  writeFileSync(stamp, hash);
}
