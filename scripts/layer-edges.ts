// Lists, per service, which folder of its src/ imports which, with how many imports (type-only ones
// included, tests' apart): what to read before placing a folder in tools/lint/config.js's `layers`
// (docs/adr/0024-layers-in-a-service.md). Usage: node scripts/layer-edges.ts [-v] (-v: each import).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const verbose = process.argv.includes('-v');

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : sources(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
const specifier = /(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\s+from\s+)?['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

for (const service of readdirSync(join(root, 'services')).filter((name) => name !== 'common')) {
  const src = join(root, 'services', service, 'src');
  if (!existsSync(src)) continue;
  // A file at the top of src/ (rpc.ts, service.ts, config.ts) counts as "(top)".
  const folderOf = (file: string) => {
    const parts = relative(src, file).split('/');
    return parts.length === 1 ? '(top)' : parts[0];
  };
  const edges = new Map<string, string[]>();
  for (const file of sources(src)) {
    for (const m of readFileSync(file, 'utf8').matchAll(specifier)) {
      const target = resolve(dirname(file), m[1] ?? m[2]);
      if (!target.startsWith(src + '/')) continue;
      const [from, to] = [folderOf(file), folderOf(target)];
      if (from === to || from === '(top)') continue;
      // Tests may compose capabilities (the lint rule lets them), so their imports are listed apart.
      const key = `${from} → ${to}${/\/__tests__\/|\.test\.tsx?$/.test(file) ? ' (tests)' : ''}`;
      edges.set(key, [...(edges.get(key) ?? []), `${relative(src, file)} → ${relative(src, target)}`]);
    }
  }
  console.log(`\n${service}`);
  for (const [edge, imports] of [...edges].sort(([a], [b]) => a.localeCompare(b))) {
    console.log(`  ${edge} (${imports.length})`);
    if (verbose) for (const line of imports) console.log(`      ${line}`);
  }
}
