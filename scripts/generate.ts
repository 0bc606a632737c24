// Generates what is not committed: each service's Prisma client and the GraphQL types of the
// gateway and the web app. Skips a step whose inputs have not changed since it last ran.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;

function hashOf(paths: string[]): string {
  const h = createHash('sha256');
  const walk = (p: string) => {
    if (!existsSync(p)) return;
    if (statSync(p).isDirectory()) for (const f of readdirSync(p).sort()) walk(join(p, f));
    else h.update(p).update(readFileSync(p));
  };
  paths.forEach((p) => walk(join(root, p)));
  return h.digest('hex');
}

function step(name: string, inputs: string[], output: string, cwd: string, cmd: string[], env: Record<string, string> = {}) {
  const stampFile = join(root, output, '.stamp');
  const hash = hashOf(inputs);
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash) return;
  console.error(`› generating ${name}`);
  execFileSync(cmd[0], cmd.slice(1), { cwd: join(root, cwd), stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });
  writeFileSync(stampFile, hash);
}

const prismaEnv = { PRISMA_SCHEMA_ENGINE_BINARY: '/bin/false', CHECKPOINT_DISABLE: '1' };
for (const service of ['auth', 'billing', 'chatbot', 'chat']) {
  const dir = `services/${service}`;
  if (!existsSync(join(root, dir, 'prisma/schema.prisma'))) continue;
  step(
    `${service} Prisma client`,
    [`${dir}/prisma/schema.prisma`],
    `${dir}/src/generated/prisma`,
    dir,
    ['npx', 'prisma', 'generate', '--schema', 'prisma/schema.prisma'],
    prismaEnv,
  );
}

// Prisma's generated client imports its query compiler as a module holding the wasm in base64: that
// module stays loaded, and with it its source and the string it exports, twice the wasm's size in
// every service's heap for the life of the process (≈ 4.6 MB with the small build). The client reads
// the wasm from a file written next to it instead, and nothing of it stays in the heap once compiled.
const BASE64_IMPORT =
  /const \{ wasm \} = await import\("(@prisma\/client\/runtime\/query_compiler_\w+\.\w+\.wasm-base64\.mjs)"\)\n\s*return await decodeBase64AsWasm\(wasm\)/;
const WASM_FILE = 'query_compiler_bg.wasm';
for (const service of ['auth', 'billing', 'chatbot', 'chat']) {
  const internal = join(root, `services/${service}/src/generated/prisma/internal`);
  const classFile = join(internal, 'class.ts');
  if (!existsSync(classFile)) continue;
  const source = readFileSync(classFile, 'utf8');
  const found = BASE64_IMPORT.exec(source);
  if (!found) {
    if (source.includes(WASM_FILE) && existsSync(join(internal, WASM_FILE))) continue;
    throw new Error(`${classFile}: the query compiler's import is not the one scripts/generate.ts expects; see its comment`);
  }
  // Resolved as the service resolves it, so the bytes are those of the runtime it runs.
  const resolved = createRequire(join(root, `services/${service}/package.json`)).resolve(found[1]);
  const { wasm } = (await import(pathToFileURL(resolved).href)) as { wasm: string };
  writeFileSync(join(internal, WASM_FILE), Buffer.from(wasm, 'base64'));
  writeFileSync(
    classFile,
    source.replace(
      found[0],
      `const { readFile } = await import('node:fs/promises')\n    return new WebAssembly.Module(await readFile(new URL('./${WASM_FILE}', import.meta.url)))`,
    ),
  );
}

for (const pkg of ['gateway', 'web']) {
  if (!existsSync(join(root, pkg, 'codegen.ts'))) continue;
  const out = pkg === 'web' ? 'web/src/gql' : 'gateway/src/generated';
  step(`${pkg} GraphQL types`, ['gateway/src/schema', `${pkg}/codegen.ts`, ...(pkg === 'web' ? ['web/src'] : [])], out, pkg, [
    'npx',
    'graphql-codegen',
    '--config',
    'codegen.ts',
    '--silent',
  ]);
}
