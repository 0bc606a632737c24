// Prisma's generated client imports its query compiler as a module holding the wasm in base64: that
// module stays loaded, and with it its source and the string it exports, twice the wasm's size in
// every service's heap for the life of the process (≈ 4.6 MB with the small build). After `prisma
// generate`, this writes the wasm next to the client and makes the client read it from there: nothing
// of it stays in the heap once compiled (docs/adr/0020-process-memory.md). Run by scripts/generate.ts,
// and by each service's Dockerfile: `node scripts/prisma-wasm-file.ts <service>...`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;

const BASE64_IMPORT =
  /const \{ wasm \} = await import\("(@prisma\/client\/runtime\/query_compiler_\w+\.\w+\.wasm-base64\.mjs)"\)\n\s*return await decodeBase64AsWasm\(wasm\)/;
const WASM_FILE = 'query_compiler_bg.wasm';

/** Rewrites one service's generated client (idempotent); fails if Prisma's output is not the expected one. */
export async function writeQueryCompilerFile(service: string): Promise<void> {
  const internal = join(root, `services/${service}/src/generated/prisma/internal`);
  const classFile = join(internal, 'class.ts');
  if (!existsSync(classFile)) return;
  const source = readFileSync(classFile, 'utf8');
  const found = BASE64_IMPORT.exec(source);
  if (!found) {
    if (source.includes(WASM_FILE) && existsSync(join(internal, WASM_FILE))) return;
    throw new Error(`${classFile}: the query compiler's import is not the one scripts/prisma-wasm-file.ts expects`);
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

if (import.meta.main) for (const service of process.argv.slice(2)) await writeQueryCompilerFile(service);
