// Generates what is not committed: each service's Prisma client and the GraphQL types of the
// gateway and the web app. Skips a step whose inputs have not changed since it last ran.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeQueryCompilerFile } from './prisma-wasm-file.ts';
import { gatewaySchemaFiles } from './gateway-schema.ts';

const root = new URL('..', import.meta.url).pathname;

/** The inputs' contents; `skip` (a step's output, which may sit inside an input folder) is left out. */
function hashOf(paths: string[], skip: string): string {
  const h = createHash('sha256');
  const walk = (p: string) => {
    if (!existsSync(p) || p === skip) return;
    if (statSync(p).isDirectory()) for (const f of readdirSync(p).sort()) walk(join(p, f));
    else h.update(p).update(readFileSync(p));
  };
  paths.forEach((p) => walk(join(root, p)));
  return h.digest('hex');
}

function step(name: string, inputs: string[], output: string, cwd: string, cmd: string[], env: Record<string, string> = {}) {
  const stampFile = join(root, output, '.stamp');
  const hash = hashOf(inputs, join(root, output));
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

// Each Prisma client reads its query compiler's wasm from a file (scripts/prisma-wasm-file.ts).
for (const service of ['auth', 'billing', 'chatbot', 'chat']) await writeQueryCompilerFile(service);

for (const pkg of ['gateway', 'web']) {
  if (!existsSync(join(root, pkg, 'codegen.ts'))) continue;
  const out = pkg === 'web' ? 'web/src/gql' : 'gateway/src/generated';
  step(`${pkg} GraphQL types`, [...gatewaySchemaFiles(), `${pkg}/codegen.ts`, ...(pkg === 'web' ? ['web/src'] : [])], out, pkg, [
    'npx',
    'graphql-codegen',
    '--config',
    'codegen.ts',
    '--silent',
  ]);
}
