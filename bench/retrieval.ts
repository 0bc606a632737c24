// Retrieval benchmark (a script that prints figures, not a test). Builds one chatbot with 10,000
// generated entries (about 100,000 chunks) and 5 other chatbots with 2,000 entries each beside it,
// ingested through the real AddTextEntry use case, then times 1,000 varied queries through the
// real Retrieve use case.
//
//   npm run bench retrieval            (or: node bench/retrieval.ts)
//
// DATABASE_URL defaults to postgresql://postgres@127.0.0.1:5432/parley_bench; a fresh schema is
// created and dropped at the end, also on an error or Ctrl-C (BENCH_KEEP=1 keeps it;
// BENCH_SCHEMA=<kept schema> then times the same queries again without re-ingesting).
// BENCH_SCALE=0.1 runs a tenth of the data (the targets apply to the full data set).
import { randomBytes } from 'node:crypto';
import { cpus, loadavg, totalmem } from 'node:os';
import pg from 'pg';
import { prismaAdapter } from '../services/common/src/database.ts';
import { ensureDatabase, migrate } from '../services/common/src/migrations.ts';
import { PrismaClient } from '../services/chatbot/src/generated/prisma/client.ts';
import { createChatbot } from '../services/chatbot/src/chatbots/create-chatbot.ts';
import { addTextEntry } from '../services/chatbot/src/knowledge/add-text-entry.ts';
import { retrieve, SEARCH_SESSION_SETTINGS } from '../services/chatbot/src/knowledge/retrieve.ts';
import { MIGRATIONS_DIR } from '../services/chatbot/src/service.ts';
import { mulberry32, percentile } from './stats.ts';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_bench';
const scale = Number(process.env.BENCH_SCALE ?? '1');
const MAIN_ENTRIES = Math.round(10_000 * scale);
const OTHER_BOTS = 5;
const OTHER_ENTRIES = Math.round(2_000 * scale);
const QUERIES = 1_000;
const WARMUP_QUERIES = 50;
const OTHER_QUERIES = 200;
const K = 5;
const POOL_SIZE = 10;
const CONCURRENCY = 8; // ≤ the pool size
const ENTRY_CHARS = 6_500; // about 10 chunks of 800 characters with 150 overlap
// From the product issue, for the full data set on the 2-core machine.
const TARGET_P95_MS = 20;
const TARGET_ENTRIES_PER_S = 200;

// Deterministic data: the same seed gives the same knowledge and queries on every run. Each use has
// its own stream, so a run on a kept schema (BENCH_SCHEMA) times the very same queries.
type Rng = () => number;
const SEED = 20250101;
const pick = <T>(rng: Rng, list: readonly T[]) => list[Math.floor(rng() * list.length)];

// A vocabulary of 4,000 made-up words used with Zipf frequencies (a handful of words everywhere, a
// long tail of rare ones), plus real English function words the english configuration drops.
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ren',
  'tas',
  'vel',
  'dor',
  'pin',
  'sul',
  'gra',
  'ne',
  'to',
  'bri',
  'man',
  'cor',
  'fi',
  'lu',
  'sen',
  'tar',
  'zo',
  'qui',
  'ham',
  'ber',
  'lin',
  'ost',
  'ra',
  'del',
  'nu',
  'pe',
  'shi',
];
const SUFFIXES = ['', '', '', 's', 'ing', 'ed', 'er', 'ion', 'ly', 'ment'];
const VOCABULARY_SIZE = 4_000;
const vocabulary: string[] = [];
{
  const rng = mulberry32(SEED);
  const seen = new Set<string>();
  while (vocabulary.length < VOCABULARY_SIZE) {
    const n = 1 + Math.floor(rng() * 3);
    let word = '';
    for (let i = 0; i < n; i++) word += pick(rng, SYLLABLES);
    word += pick(rng, SUFFIXES);
    if (word.length >= 3 && !seen.has(word)) {
      seen.add(word);
      vocabulary.push(word);
    }
  }
}
const FUNCTION_WORDS = ['the', 'and', 'of', 'to', 'a', 'in', 'is', 'for', 'with', 'on', 'that', 'by', 'this', 'are', 'from'];
const zipfCumulative: number[] = [];
{
  let sum = 0;
  for (let r = 1; r <= vocabulary.length; r++) zipfCumulative.push((sum += 1 / r));
  for (let i = 0; i < zipfCumulative.length; i++) zipfCumulative[i] /= sum;
}
function zipfWord(rng: Rng): string {
  const x = rng();
  let lo = 0;
  let hi = zipfCumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (zipfCumulative[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return vocabulary[lo];
}
function sentence(rng: Rng): string {
  const words: string[] = [];
  const n = 8 + Math.floor(rng() * 13);
  for (let i = 0; i < n; i++) words.push(rng() < 0.3 ? pick(rng, FUNCTION_WORDS) : zipfWord(rng));
  const s = words.join(' ');
  return `${s[0].toUpperCase()}${s.slice(1)}${rng() < 0.1 ? '?' : '.'}`;
}
function entryText(rng: Rng): string {
  const parts: string[] = [];
  let length = 0;
  const target = ENTRY_CHARS * (0.8 + rng() * 0.4);
  while (length < target) {
    const s = sentence(rng);
    parts.push(s);
    length += s.length + 1;
    if (rng() < 0.08) parts.push('\n\n');
  }
  return parts.join(' ').replace(/ \n\n /g, '\n\n');
}
function queryText(rng: Rng): string {
  const n = 2 + Math.floor(rng() * 5); // 2–6 words
  const words: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = rng();
    if (r < 0.35)
      words.push(vocabulary[Math.floor(rng() * 100)]); // common
    else if (r < 0.75)
      words.push(vocabulary[1_000 + Math.floor(rng() * 3_000)]); // rare
    else if (r < 0.9)
      words.push(zipfWord(rng)); // as written
    else words.push(pick(rng, FUNCTION_WORDS)); // dropped as a stop word
  }
  if (rng() < 0.05) words.push('zzyzxq'); // a word in no chunk
  return words.join(' ');
}

const ms = (n: number) => n.toFixed(2);
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const verdict = (met: boolean) => (scale === 1 ? (met ? 'met' : 'NOT met') : 'not comparable at this scale');

function latencies(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    max: sorted[sorted.length - 1],
  };
}
const describe = (l: ReturnType<typeof latencies>) =>
  `p50 ${ms(l.p50)} ms, p95 ${ms(l.p95)} ms, p99 ${ms(l.p99)} ms, mean ${ms(l.mean)} ms, max ${ms(l.max)} ms`;

// Ctrl-C (or SIGTERM) stops the work in progress; the schema is then dropped as after a normal run.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(130); // a second signal: leave at once
    stopping = true;
    console.log(`\n${signal}: stopping, then cleaning up (again to quit at once)`);
  });
}
function checkStop() {
  if (stopping) throw new Error('interrupted');
}

async function runPool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        checkStop();
        await work(items[next++]);
      }
    }),
  );
}

async function ingest() {
  const proOwner = async () => 'pro' as const;
  const main = await createChatbot({ db, ownerPlan: proOwner }, { ownerId: 'bench-main', name: 'Main' });
  const others = [];
  for (let i = 0; i < OTHER_BOTS; i++)
    others.push(await createChatbot({ db, ownerPlan: proOwner }, { ownerId: `bench-other-${i}`, name: `Other ${i}` }));

  // Entries of all chatbots, interleaved as they would arrive from many owners.
  const textRng = mulberry32(SEED + 1);
  const jobs: { ownerId: string; chatbotId: string; text: string }[] = [];
  for (let i = 0; i < MAIN_ENTRIES; i++) jobs.push({ ownerId: main.ownerId, chatbotId: main.id, text: entryText(textRng) });
  for (const bot of others)
    for (let i = 0; i < OTHER_ENTRIES; i++) jobs.push({ ownerId: bot.ownerId, chatbotId: bot.id, text: entryText(textRng) });
  const shuffleRng = mulberry32(SEED + 2);
  for (let i = jobs.length - 1; i > 0; i--) {
    const j = Math.floor(shuffleRng() * (i + 1));
    [jobs[i], jobs[j]] = [jobs[j], jobs[i]];
  }
  const deps = { db, maxEntryChars: 100_000, maxKnowledgeChars: 2_000_000_000 };

  console.log(`ingesting ${int(jobs.length)} entries through AddTextEntry, ${CONCURRENCY} at a time (load average ${load()})`);
  let done = 0;
  const started = performance.now();
  let lastReport = started;
  await runPool(jobs, CONCURRENCY, async (job) => {
    await addTextEntry(deps, job);
    done++;
    if (performance.now() - lastReport > 10_000) {
      lastReport = performance.now();
      console.log(`  … ${int(done)}/${int(jobs.length)} entries, ${(done / ((lastReport - started) / 1000)).toFixed(0)} entries/s`);
    }
  });
  const seconds = (performance.now() - started) / 1000;
  const { rows: counts } = await admin.query<{ chunks: number }>(`SELECT count(*)::int AS chunks FROM "${schema}"."KnowledgeChunk"`);
  const entriesPerSecond = jobs.length / seconds;
  console.log(
    `ingestion: ${int(jobs.length)} entries (${int(counts[0].chunks)} chunks) in ${seconds.toFixed(1)} s = ` +
      `${entriesPerSecond.toFixed(0)} entries/s, ${(counts[0].chunks / seconds).toFixed(0)} chunks/s ` +
      `(concurrency ${CONCURRENCY}, pool ${POOL_SIZE}; load average ${load()}) — target ≥ ${TARGET_ENTRIES_PER_S} entries/s: ${verdict(entriesPerSecond >= TARGET_ENTRIES_PER_S)}`,
  );

  // What autovacuum does shortly after a bulk load: flush the GIN pending list, refresh statistics.
  const vacuumStarted = performance.now();
  await admin.query(`VACUUM (ANALYZE) "${schema}"."KnowledgeChunk"`);
  console.log(`vacuum (analyze) after ingestion: ${((performance.now() - vacuumStarted) / 1000).toFixed(1)} s`);
  return { main, others };
}

async function dataSizes(mainId: string) {
  const { rows } = await admin.query(
    `SELECT (SELECT count(*) FROM "${schema}"."KnowledgeEntry")::int AS entries,
            (SELECT count(*) FROM "${schema}"."KnowledgeEntry" WHERE "chatbotId" = $1)::int AS main_entries,
            (SELECT coalesce(sum(length("content")), 0) FROM "${schema}"."KnowledgeEntry")::float8 AS chars,
            (SELECT count(*) FROM "${schema}"."KnowledgeChunk")::int AS chunks,
            (SELECT count(*) FROM "${schema}"."KnowledgeChunk" WHERE "chatbotId" = $1)::int AS main_chunks,
            pg_table_size('"${schema}"."KnowledgeChunk"')::float8 AS chunk_table,
            pg_relation_size('"${schema}"."KnowledgeChunk_chatbotId_searchVector_idx"')::float8 AS gin,
            pg_total_relation_size('"${schema}"."KnowledgeEntry"')::float8 AS entry_total`,
    [mainId],
  );
  const d = rows[0];
  console.log(
    `data: ${int(d.entries)} entries, ${(d.chars / 1e6).toFixed(0)} M characters, ${int(d.chunks)} chunks ` +
      `(main chatbot ${int(d.main_entries)} entries, ${int(d.main_chunks)} chunks; ${OTHER_BOTS} other chatbots ${int(OTHER_ENTRIES)} entries each); ` +
      `KnowledgeChunk ${mb(d.chunk_table)} + GIN index ${mb(d.gin)}, KnowledgeEntry ${mb(d.entry_total)}`,
  );
}

const reuse = process.env.BENCH_SCHEMA;
const schema = reuse ?? `bench_retrieval_${randomBytes(4).toString('hex')}`;
await ensureDatabase(databaseUrl);
await migrate({ databaseUrl, schema, migrationsDir: MIGRATIONS_DIR });

const db = new PrismaClient({ adapter: prismaAdapter({ databaseUrl, schema, poolSize: POOL_SIZE }) });
// Searches run on sessions set up for them, as in the chatbot service.
const search = new PrismaClient({ adapter: prismaAdapter({ databaseUrl, schema, poolSize: 2, settings: SEARCH_SESSION_SETTINGS }) });
const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();

try {
  const { rows: version } = await admin.query<{ server_version: string }>('SHOW server_version');
  console.log(`retrieval benchmark, ${new Date().toISOString()}, schema ${schema}${scale !== 1 ? `, BENCH_SCALE=${scale}` : ''}`);
  console.log(
    `machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
      `load average ${load()}; PostgreSQL ${version[0].server_version}; Node ${process.version}`,
  );
  let main: { id: string; ownerId: string };
  let others: { id: string; ownerId: string }[];
  if (reuse) {
    const bots = await db.chatbot.findMany({ orderBy: { ownerId: 'asc' } });
    main = bots.find((b) => b.ownerId === 'bench-main')!;
    others = bots.filter((b) => b !== main);
    console.log(`reusing the data in ${schema}`);
  } else {
    ({ main, others } = await ingest());
  }
  await dataSizes(main.id);

  const queryRng = mulberry32(SEED + 3);
  const queries = Array.from({ length: QUERIES }, () => queryText(queryRng));
  for (let i = 0; i < WARMUP_QUERIES; i++) await retrieve(search, { chatbotId: main.id, query: queryText(queryRng), k: K });
  const samples: number[] = [];
  let empty = 0;
  let hits = 0;
  for (const query of queries) {
    checkStop();
    const t0 = performance.now();
    const chunks = await retrieve(search, { chatbotId: main.id, query, k: K });
    samples.push(performance.now() - t0);
    if (chunks.length === 0) empty++;
    hits += chunks.length;
  }
  const mainLatency = latencies(samples);
  console.log(
    `retrieval, main chatbot (k=${K}, ${int(QUERIES)} queries of 2–6 words, one at a time after ${WARMUP_QUERIES} warm-up): ${describe(mainLatency)}; ` +
      `${(hits / QUERIES).toFixed(1)} chunks per query, ${empty} queries with no match (load average ${load()}) — ` +
      `target p95 ≤ ${TARGET_P95_MS} ms: ${verdict(mainLatency.p95 <= TARGET_P95_MS)}`,
  );

  // A small chatbot beside the large one: its searches must not pay for the large one's data.
  const small: number[] = [];
  for (let i = 0; i < OTHER_QUERIES; i++) {
    checkStop();
    const t0 = performance.now();
    await retrieve(search, { chatbotId: others[i % OTHER_BOTS].id, query: queries[i], k: K });
    small.push(performance.now() - t0);
  }
  console.log(`retrieval, other chatbots (${OTHER_QUERIES} queries): ${describe(latencies(small))}`);
} catch (error) {
  if (!stopping) throw error;
  process.exitCode = 130;
} finally {
  await db.$disconnect();
  await search.$disconnect();
  if (process.env.BENCH_KEEP !== '1') {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    console.log(`dropped schema ${schema}`);
  } else console.log(`kept schema ${schema} (BENCH_SCHEMA=${schema} times the queries again)`);
  await admin.end();
}
