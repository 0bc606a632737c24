// `npm run migrate`: applies every service's migrations to its own schema (services also do this
// when they start).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './stack.ts';

for (const service of ['auth', 'billing', 'chatbot', 'chat']) {
  const entry = join(root, 'services', service, 'src/migrate.ts');
  if (existsSync(entry)) execFileSync(process.execPath, [entry], { stdio: 'inherit', env: process.env });
}
