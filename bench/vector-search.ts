// Vector search benchmark for ADR 0015 (a script that prints figures, not a test): for 10k and 100k
// chunks of 256 and 1536 dimensions, the memory a chatbot's matrix takes, the time to load it from
// PostgreSQL (real[], read as array_send) and the time of a search, over random unit vectors
// written straight into a fresh schema (their meaning does not matter to the cost).
//
//   node bench/vector-search.ts                    (all four sizes)
//   BENCH_SIZES=10000x256,100000x256 node bench/vector-search.ts
//
// DATABASE_URL defaults to postgresql://postgres@127.0.0.1:5432/parley_bench; the schema is dropped
// at the end. The machine's other work shows in the percentiles; the minimum is the uncontended cost.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { cpus } from 'node:os';
import pg from 'pg';
import { prismaAdapter } from '../services/common/src/database.ts';
import { ensureDatabase, migrate } from '../services/common/src/migrations.ts';
import { PrismaClient } from '../services/chatbot/src/generated/prisma/client.ts';
import { SEARCH_SESSION_SETTINGS } from '../services/chatbot/src/knowledge/retrieve.ts';
import { fakeEmbedding } from '../services/common/src/testing/fake-embedding.ts';
import { openAiEmbedder } from '../services/chatbot/src/knowledge/embeddings/embedder.ts';
import { loadVectors, nearest, normalise, vectorIndex } from '../services/chatbot/src/knowledge/embeddings/vector-index.ts';
import { mulberry32, percentile } from './stats.ts';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_bench';
const sizes = (process.env.BENCH_SIZES ?? '10000x256,10000x1536,100000x256,100000x1536').split(',').map((s) => {
  const [chunks, dims] = s.split('x').map(Number);
  return { chunks, dims };
});
// Not imported from service.ts, which would load the whole service.
const MIGRATIONS_DIR = fileURLToPath(new URL('../services/chatbot/prisma/migrations', import.meta.url));
const CHUNKS_PER_ENTRY = 10;
const QUERIES = 200;
const MODEL = 'bench';

await ensureDatabase(databaseUrl);
const schema = `bench_vectors_${randomBytes(4).toString('hex')}`;
await migrate({ databaseUrl, schema, migrationsDir: MIGRATIONS_DIR });
const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
await admin.query(`SET search_path = "${schema}"`);
const db = new PrismaClient({ adapter: prismaAdapter({ databaseUrl, schema }) });
const search = new PrismaClient({ adapter: prismaAdapter({ databaseUrl, schema, poolSize: 2, settings: SEARCH_SESSION_SETTINGS }) });

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));

async function seed(chunks: number, dims: number): Promise<string> {
  const {
    rows: [bot],
  } = await admin.query<{ id: string }>(
    `INSERT INTO "Chatbot" ("id", "uniqueId", "ownerId", "name", "updatedAt") VALUES (gen_random_uuid(), $1, 'bench', 'bench', now()) RETURNING "id"`,
    [randomBytes(8).toString('hex')],
  );
  const entries = chunks / CHUNKS_PER_ENTRY;
  await admin.query(
    `INSERT INTO "KnowledgeEntry" ("id", "chatbotId", "title", "content") SELECT gen_random_uuid(), $1, 'e', 'e' FROM generate_series(1, $2)`,
    [bot.id, entries],
  );
  // In slices, so one statement does not hold hundreds of megabytes.
  const { rows: entryIds } = await admin.query<{ id: string }>(`SELECT "id" FROM "KnowledgeEntry" WHERE "chatbotId" = $1`, [bot.id]);
  const SLICE = 500;
  for (let i = 0; i < entryIds.length; i += SLICE) {
    await admin.query(
      `INSERT INTO "KnowledgeChunk" ("id", "entryId", "chatbotId", "position", "content", "searchConfig", "embedding", "embeddingModel")
       SELECT gen_random_uuid(), e.id, $1, p, 'chunk', 'simple',
              ARRAY(SELECT (random() - 0.5)::real FROM generate_series(1, $3) WHERE p >= 0), $4
         FROM unnest($2::uuid[]) AS e(id), generate_series(0, ${CHUNKS_PER_ENTRY - 1}) AS p`,
      [bot.id, entryIds.slice(i, i + SLICE).map((e) => e.id), dims, MODEL],
    );
  }
  await admin.query(`VACUUM ANALYZE "KnowledgeChunk"`);
  return bot.id;
}

console.log(
  `vector search benchmark, ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
);
// The query's embedding, one call per message: the SDK and HTTP round trip to a local endpoint that
// answers at once (a real model adds its own time: see ADR 0015).
{
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { input } = JSON.parse(body) as { input: string[] };
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text) }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: 'fake', usage: {} }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const embedder = openAiEmbedder({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, model: 'fake' });
  const times: number[] = [];
  for (let i = 0; i < 220; i++) {
    const t = process.hrtime.bigint();
    await embedder.embed([`how do I reset my password ${i}`]);
    if (i >= 20) times.push(ms(t));
  }
  times.sort((a, b) => a - b);
  console.log(
    `query embedding round trip (local endpoint, 256 dims): p50 ${fmt(percentile(times, 50))} ms, p95 ${fmt(percentile(times, 95))} ms`,
  );
  server.close();
}
console.log('chunks × dims | matrix MB | held bytes/chunk | load s (cold / warm) | scan min / p50 / p95 ms | search min / p50 / p95 ms');
try {
  for (const { chunks, dims } of sizes) {
    const t0 = process.hrtime.bigint();
    const chatbotId = await seed(chunks, dims);
    const seedS = ms(t0) / 1000;

    let t = process.hrtime.bigint();
    const vectors = await loadVectors(db, chatbotId, MODEL);
    const cold = ms(t);
    t = process.hrtime.bigint();
    await loadVectors(db, chatbotId, MODEL);
    const warm = ms(t);

    const rng = mulberry32(chunks + dims);
    const queries = Array.from({ length: QUERIES }, () => {
      const q = Float32Array.from({ length: dims }, () => rng() - 0.5);
      normalise(q);
      return q;
    });
    const scans: number[] = [];
    for (const q of queries) {
      t = process.hrtime.bigint();
      nearest(vectors, q, 20);
      scans.push(ms(t));
    }
    // Through the index: the version read, the held matrix, the chunks read back.
    const index = vectorIndex({ db, search, model: MODEL, maxBytes: 2 * 1024 ** 3, loadWaitMs: 3_600_000 });
    await index.search(chatbotId, Array.from(queries[0]), 20);
    const searches: number[] = [];
    for (const q of queries.slice(0, 100)) {
      t = process.hrtime.bigint();
      await index.search(chatbotId, Array.from(q), 20);
      searches.push(ms(t));
    }
    scans.sort((a, b) => a - b);
    searches.sort((a, b) => a - b);
    console.log(
      `${chunks} × ${dims} | ${fmt(vectors.matrix.byteLength / 1024 ** 2)} | ${Math.round(index.held.bytes / chunks)} | ` +
        `${fmt(cold / 1000)} / ${fmt(warm / 1000)} | ${fmt(scans[0])} / ${fmt(percentile(scans, 50))} / ${fmt(percentile(scans, 95))} | ` +
        `${fmt(searches[0])} / ${fmt(percentile(searches, 50))} / ${fmt(percentile(searches, 95))}   (seeded in ${fmt(seedS)} s)`,
    );
    await admin.query(`DELETE FROM "Chatbot" WHERE "id" = $1`, [chatbotId]);
  }
} finally {
  await db.$disconnect();
  await search.$disconnect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}
