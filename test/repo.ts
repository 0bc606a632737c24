import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;

export const read = (p: string) => readFileSync(join(root, p), 'utf8');
export const exists = (p: string) => existsSync(join(root, p));

/** The deployables: each has src/config.ts, src/main.ts and a Dockerfile. */
export const DEPLOYABLES = ['services/auth', 'services/billing', 'services/chatbot', 'services/chat', 'gateway'].filter((d) =>
  exists(`${d}/src/main.ts`),
);

/**
 * The environment variables a deployable reads: the keys of the specs in its src/config.ts, plus the
 * kit's common ones when it spreads `commonVars`.
 */
export function envVarsRead(dir: string): Set<string> {
  const source = read(`${dir}/src/config.ts`);
  const vars = new Set([...source.matchAll(/^\s+([A-Z][A-Z0-9_]+):\s*[{a-z]/gm)].map((m) => m[1]));
  if (/\.\.\.commonVars/.test(source)) {
    const common = read('services/common/src/config.ts');
    const block = common.slice(common.indexOf('export const commonVars'), common.indexOf('} satisfies Spec'));
    for (const m of block.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)) vars.add(m[1]);
  }
  return vars;
}
