// Retrieval evaluation (a script that prints figures, not a test): the hand-written questions of
// bench/eval/questions.json, each with the passage of bench/eval/docs/ that answers it, asked of a
// chatbot holding those documents as text entries, through the real use cases. Prints recall@5 (a
// retrieved chunk holds the passage, or at least half of it) and MRR (of the first such chunk in
// the top 5) for full-text retrieval alone, vector search alone and hybrid (both, fused).
//
//   node bench/retrieval-eval.ts                      (fake embedding model, in process)
//   EMBEDDINGS_URL=http://localhost:11434/v1 EMBEDDINGS_MODEL=nomic-embed-text node bench/retrieval-eval.ts
//
// DATABASE_URL defaults to postgresql://postgres@127.0.0.1:5432/parley_bench; a fresh schema is
// created and dropped at the end. See bench/eval/README.md.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { prismaAdapter } from '../services/common/src/database.ts';
import { createLogger } from '../services/common/src/logger.ts';
import { ensureDatabase, migrate } from '../services/common/src/migrations.ts';
import { fakeEmbedding } from '../services/common/src/testing/fake-embedding.ts';
import { PrismaClient } from '../services/chatbot/src/generated/prisma/client.ts';
import { createChatbot } from '../services/chatbot/src/chatbots/create-chatbot.ts';
import { addTextEntry } from '../services/chatbot/src/knowledge/add-text-entry.ts';
import { retrieve, SEARCH_SESSION_SETTINGS, type RetrievedChunk } from '../services/chatbot/src/knowledge/retrieve.ts';
import { embedEntry } from '../services/chatbot/src/knowledge/embeddings/embed-entry.ts';
import { openAiEmbedder, type Embedder } from '../services/chatbot/src/knowledge/embeddings/embedder.ts';
import { hybridRetrieve } from '../services/chatbot/src/knowledge/embeddings/hybrid-retrieve.ts';
import { vectorIndex } from '../services/chatbot/src/knowledge/embeddings/vector-index.ts';

const K = 5;
const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_bench';
const evalDir = fileURLToPath(new URL('./eval/', import.meta.url));
// Not imported from service.ts, which would load the whole service.
const MIGRATIONS_DIR = fileURLToPath(new URL('../services/chatbot/prisma/migrations', import.meta.url));

interface Question {
  question: string;
  doc: string;
  passage: string;
}

/** Whitespace collapsed: the documents are hard-wrapped, the passages are written on one line. */
const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Whether a retrieved chunk of `doc` holds the passage, or at least half of it (both as spans of the document). */
function answers(chunk: string, docText: string, passage: string): boolean {
  const c = normalise(chunk);
  const p = normalise(passage);
  if (c.includes(p)) return true;
  const pStart = docText.indexOf(p);
  const cStart = docText.indexOf(c);
  if (pStart < 0 || cStart < 0) return false;
  const overlap = Math.min(pStart + p.length, cStart + c.length) - Math.max(pStart, cStart);
  return overlap >= p.length / 2;
}

const fakeEmbedder: Embedder = { model: 'fake-embedding-256', embed: async (texts) => texts.map((t) => fakeEmbedding(t)) };
const embedder =
  process.env.EMBEDDINGS_URL && process.env.EMBEDDINGS_MODEL
    ? openAiEmbedder({ baseURL: process.env.EMBEDDINGS_URL, apiKey: process.env.EMBEDDINGS_API_KEY, model: process.env.EMBEDDINGS_MODEL })
    : fakeEmbedder;

const questions = JSON.parse(readFileSync(`${evalDir}questions.json`, 'utf8')) as Question[];
const docNames = [...new Set(questions.map((q) => q.doc))];
const docs = new Map(docNames.map((name) => [name, readFileSync(`${evalDir}docs/${name}`, 'utf8')]));
const normalisedDocs = new Map([...docs].map(([name, text]) => [name, normalise(text)]));
for (const q of questions) {
  if (!normalisedDocs.get(q.doc)?.includes(normalise(q.passage))) throw new Error(`passage not in ${q.doc}: ${q.passage}`);
}

await ensureDatabase(databaseUrl);
const schema = `bench_eval_${randomBytes(4).toString('hex')}`;
await migrate({ databaseUrl, schema, migrationsDir: MIGRATIONS_DIR });
const db = new PrismaClient({ adapter: prismaAdapter({ databaseUrl, schema }) });
const search = new PrismaClient({ adapter: prismaAdapter({ databaseUrl, schema, poolSize: 2, settings: SEARCH_SESSION_SETTINGS }) });

try {
  const ownerId = randomBytes(8).toString('hex');
  const chatbot = await createChatbot({ db, ownerPlan: async () => 'pro' }, { ownerId, name: 'Evaluation' });
  const docOfEntry = new Map<string, string>();
  for (const [name, text] of docs) {
    const entry = await addTextEntry(
      { db, maxEntryChars: 1_000_000, maxKnowledgeChars: 100_000_000 },
      { ownerId, chatbotId: chatbot.id, text },
    );
    docOfEntry.set(entry.id, name);
  }
  const t0 = performance.now();
  let embedded = 0;
  for (const entryId of docOfEntry.keys()) embedded += await embedEntry({ db, embedder }, { chatbotId: chatbot.id, entryId });
  const embedMs = performance.now() - t0;

  const vectors = vectorIndex({ db, search, model: embedder.model, loadWaitMs: 3_600_000 });
  const embedQuery = async (query: string) => (await embedder.embed([query]))[0];
  const hybrid = hybridRetrieve({
    fullText: (input) => retrieve(search, input),
    embedQuery,
    vectorSearch: (chatbotId, query, n) => vectors.search(chatbotId, query, n),
    logger: createLogger('retrieval-eval', 'warn'),
  });
  const methods: Record<string, (query: string) => Promise<RetrievedChunk[]>> = {
    'full-text': (query) => retrieve(search, { chatbotId: chatbot.id, query, k: K }),
    vector: async (query) => (await vectors.search(chatbot.id, await embedQuery(query), K)) ?? [],
    hybrid: (query) => hybrid({ chatbotId: chatbot.id, query, k: K }),
  };

  console.log(`retrieval evaluation, ${new Date().toISOString()}`);
  console.log(
    `${questions.length} questions over ${docs.size} documents (${await db.knowledgeChunk.count()} chunks); ` +
      `model ${embedder.model}, ${embedded} chunks embedded in ${Math.round(embedMs)} ms`,
  );
  console.log('method    | recall@5 | MRR@5 | mean ms');
  for (const [name, run] of Object.entries(methods)) {
    let found = 0;
    let reciprocal = 0;
    const started = performance.now();
    for (const q of questions) {
      const chunks = await run(q.question);
      const rank = chunks.findIndex(
        (c) => docOfEntry.get(c.entryId) === q.doc && answers(c.content, normalisedDocs.get(q.doc)!, q.passage),
      );
      if (rank >= 0) {
        found++;
        reciprocal += 1 / (rank + 1);
      } else if (process.env.EVAL_VERBOSE) {
        console.log(`  ${name} missed: ${q.question}`);
      }
    }
    const mean = (performance.now() - started) / questions.length;
    console.log(
      `${name.padEnd(9)} | ${(found / questions.length).toFixed(3)}    | ${(reciprocal / questions.length).toFixed(3)} | ${mean.toFixed(1)}`,
    );
  }
} finally {
  await db.$disconnect();
  await search.$disconnect();
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}
