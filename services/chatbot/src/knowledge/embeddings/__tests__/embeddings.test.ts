// The embed job, the vector search and hybrid retrieval against real PostgreSQL and Redis, with a
// tiny OpenAI-protocol /v1/embeddings server answering fakeEmbedding.
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@parley/common/config.ts';
import { prismaAdapter } from '@parley/common/database.ts';
import { createLogger } from '@parley/common/logger.ts';
import { createRedis, type Redis } from '@parley/common/redis.ts';
import { fakeEmbedding } from '@parley/common/testing/fake-embedding.ts';
import { createTestSchema, testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import { PrismaClient } from '../../../generated/prisma/client.ts';
import { readChatbotConfig } from '../../../config.ts';
import { createChatbot } from '../../../chatbots/create-chatbot.ts';
import { MIGRATIONS_DIR } from '../../../service.ts';
import { addTextEntry } from '../../add-text-entry.ts';
import { deleteTextEntry } from '../../delete-text-entry.ts';
import { SEARCH_SESSION_SETTINGS } from '../../retrieve.ts';
import { embedderFromConfig, MODEL_REQUIRED, openAiEmbedder, type Embedder } from '../embedder.ts';
import { embedEntry, entriesToEmbed } from '../embed-entry.ts';
import { knowledgeEmbeddings } from '../knowledge-embeddings.ts';
import { vectorIndex } from '../vector-index.ts';

const logger = createLogger('embeddings-test', 'silent');

/** A minimal OpenAI-compatible embeddings endpoint: fakeEmbedding, or failures on demand. */
const endpoint = { failing: false, dimensions: 256, requests: 0, inputs: 0 };
let server: Server;
let baseURL: string;
let db: PrismaClient;
let search: PrismaClient;
let redis: Redis;
let drop: () => Promise<void>;
let databaseUrl: string;
let schema: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      endpoint.requests++;
      if (endpoint.failing || req.url !== '/v1/embeddings') {
        res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'down' } }));
        return;
      }
      const { input, model } = JSON.parse(body) as { input: string[]; model: string };
      endpoint.inputs += input.length;
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text, endpoint.dimensions) }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model, usage: {} }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

  const created = await createTestSchema('embeddings', MIGRATIONS_DIR);
  ({ databaseUrl, schema, drop } = created);
  db = new PrismaClient({ adapter: prismaAdapter({ databaseUrl, schema }) });
  search = new PrismaClient({ adapter: prismaAdapter({ databaseUrl, schema, poolSize: 2, settings: SEARCH_SESSION_SETTINGS }) });
  redis = createRedis((await testInfra()).redisUrl);
});

afterAll(async () => {
  await db?.$disconnect();
  await search?.$disconnect();
  await redis?.quit();
  await drop?.();
  await new Promise((resolve) => server?.close(resolve));
});

const embedder = (model = 'fake-small'): Embedder => openAiEmbedder({ baseURL, model });
const deps = () => ({ db, maxEntryChars: 100_000, maxKnowledgeChars: 5_000_000 });

async function chatbotWith(texts: string[]) {
  const ownerId = randomUUID();
  const chatbot = await createChatbot({ db, ownerPlan: async () => 'pro' }, { ownerId, name: 'Bot' });
  const entryIds: string[] = [];
  for (const text of texts) entryIds.push((await addTextEntry(deps(), { ownerId, chatbotId: chatbot.id, text })).id);
  return { ownerId, chatbotId: chatbot.id, entryIds };
}

const TEXTS = [
  'Refunds are granted within thirty days of purchase when the item is returned unused.',
  'Passwords can be reset from the account settings page by following the emailed link.',
  'Our support team answers by chat on weekdays between nine and five.',
];

const embeddingsOf = (entryId: string) =>
  db.$queryRawUnsafe<{ dims: number; model: string | null }[]>(
    `SELECT cardinality("embedding") AS dims, "embeddingModel" AS model FROM "KnowledgeChunk" WHERE "entryId" = $1::uuid`,
    entryId,
  );

describe('configuration', () => {
  it('needs no embedder without EMBEDDINGS_URL, and refuses a URL without a model', () => {
    const config = readChatbotConfig({ DATABASE_URL: 'postgresql://x/y', REDIS_URL: 'redis://x', SERVICE_SECRET: 's'.repeat(32) });
    expect(embedderFromConfig(config)).toBeNull();
    expect(() => embedderFromConfig({ ...config, EMBEDDINGS_URL: baseURL })).toThrow(new ConfigError(MODEL_REQUIRED));
    expect(embedderFromConfig({ ...config, EMBEDDINGS_URL: baseURL, EMBEDDINGS_MODEL: 'm' })?.model).toBe('m');
  });

  it('sends at most 64 inputs per request, and keeps their order', async () => {
    const before = endpoint.requests;
    const texts = Array.from({ length: 130 }, (_, i) => `text number ${i}`);
    const vectors = await embedder().embed(texts);
    expect(endpoint.requests - before).toBe(3);
    expect(vectors[129]).toEqual(fakeEmbedding('text number 129'));
  });
});

describe('the embed job', () => {
  it('writes every chunk, is idempotent, and embeds again under another model', async () => {
    const long = Array.from({ length: 40 }, (_, i) => `Sentence ${i} talks about shipping parcels abroad.`).join(' ');
    const { chatbotId, entryIds } = await chatbotWith([long]);
    const chunks = await db.knowledgeChunk.count({ where: { entryId: entryIds[0] } });
    expect(chunks).toBeGreaterThan(1);

    expect(await embedEntry({ db, embedder: embedder() }, { chatbotId, entryId: entryIds[0] })).toBe(chunks);
    expect(await embeddingsOf(entryIds[0])).toEqual(Array.from({ length: chunks }, () => ({ dims: 256, model: 'fake-small' })));
    const [first] = await db.$queryRawUnsafe<{ e: number[] }[]>(
      `SELECT "embedding" AS e FROM "KnowledgeChunk" WHERE "entryId" = $1::uuid AND "position" = 0`,
      entryIds[0],
    );
    const chunk0 = await db.knowledgeChunk.findFirstOrThrow({ where: { entryId: entryIds[0], position: 0 } });
    fakeEmbedding(chunk0.content).forEach((x, i) => expect(first.e[i]).toBeCloseTo(x, 6));

    const inputs = endpoint.inputs;
    expect(await embedEntry({ db, embedder: embedder() }, { chatbotId, entryId: entryIds[0] })).toBe(0);
    expect(endpoint.inputs).toBe(inputs);

    endpoint.dimensions = 64;
    try {
      expect(await embedEntry({ db, embedder: embedder('fake-other') }, { chatbotId, entryId: entryIds[0] })).toBe(chunks);
    } finally {
      endpoint.dimensions = 256;
    }
    expect(await embeddingsOf(entryIds[0])).toEqual(Array.from({ length: chunks }, () => ({ dims: 64, model: 'fake-other' })));
  });

  it('does nothing for a deleted entry, and the sweep lists entries not embedded with the model', async () => {
    const { ownerId, chatbotId, entryIds } = await chatbotWith([TEXTS[0], TEXTS[1]]);
    const listed = await entriesToEmbed(db, 'fake-small', 100_000);
    expect(listed).toEqual(expect.arrayContaining(entryIds.map((entryId) => ({ chatbotId, entryId }))));
    await deleteTextEntry(db, { ownerId, chatbotId, entryId: entryIds[0] });
    expect(await embedEntry({ db, embedder: embedder() }, { chatbotId, entryId: entryIds[0] })).toBe(0);
    await embedEntry({ db, embedder: embedder() }, { chatbotId, entryId: entryIds[1] });
    const after = await entriesToEmbed(db, 'fake-small', 100_000);
    expect(after.map((e) => e.entryId)).not.toContain(entryIds[1]);
  });
});

describe('vector search', () => {
  it('ranks the chunk that answers a paraphrase first, and forgets a deleted entry', async () => {
    const { ownerId, chatbotId, entryIds } = await chatbotWith(TEXTS);
    for (const entryId of entryIds) await embedEntry({ db, embedder: embedder() }, { chatbotId, entryId });
    const index = vectorIndex({ db, search, model: 'fake-small', loadWaitMs: 30_000 });

    const hits = await index.search(chatbotId, fakeEmbedding('How do I reset my password?'), 3);
    expect(hits!.map((h) => h.entryId)).toEqual([entryIds[1], expect.any(String), expect.any(String)]);
    expect(hits![0].content).toBe(TEXTS[1]);
    expect(hits![0].score).toBeGreaterThan(hits![1].score);
    expect(index.held.count).toBe(1);

    await deleteTextEntry(db, { ownerId, chatbotId, entryId: entryIds[1] });
    const after = await index.search(chatbotId, fakeEmbedding('How do I reset my password?'), 3);
    expect(after!.map((h) => h.entryId)).not.toContain(entryIds[1]);
    expect(after).toHaveLength(2);
  });

  it('sees chunks embedded after the matrix was loaded, once the incomplete matrix is old enough', async () => {
    let t = 1_000_000;
    const { chatbotId, entryIds } = await chatbotWith(TEXTS);
    const index = vectorIndex({ db, search, model: 'fake-small', loadWaitMs: 30_000, now: () => t });
    await embedEntry({ db, embedder: embedder() }, { chatbotId, entryId: entryIds[0] });
    expect((await index.search(chatbotId, fakeEmbedding('weekday chat support hours'), 3))!.map((h) => h.entryId)).toEqual([entryIds[0]]);
    await embedEntry({ db, embedder: embedder() }, { chatbotId, entryId: entryIds[2] });
    t += 10_000;
    // The incomplete matrix is still served while its successor loads in the background.
    await expect
      .poll(async () => (await index.search(chatbotId, fakeEmbedding('weekday chat support hours'), 3))?.[0]?.entryId)
      .toBe(entryIds[2]);
  });
});

describe('a matrix too large to hold', () => {
  it('serves only the search that loaded it, then full-text alone until the knowledge changes', async () => {
    const { chatbotId, entryIds } = await chatbotWith(TEXTS);
    for (const entryId of entryIds) await embedEntry({ db, embedder: embedder() }, { chatbotId, entryId });
    const index = vectorIndex({ db, search, model: 'fake-small', maxBytes: 1000, loadWaitMs: 30_000 });
    expect(await index.search(chatbotId, fakeEmbedding('refunds'), 3)).toHaveLength(3);
    expect(await index.search(chatbotId, fakeEmbedding('refunds'), 3)).toBeNull();
    expect(index.held.count).toBe(0);
    await addTextEntry(deps(), { ownerId: randomUUID(), chatbotId, text: 'x' }).catch(() => {}); // not the owner: nothing changes
    expect(await index.search(chatbotId, fakeEmbedding('refunds'), 3)).toBeNull();
  });
});

describe('knowledgeEmbeddings', () => {
  it('embeds an indexed entry in the background, then retrieves by meaning as well as by words', async () => {
    const config = readChatbotConfig({
      DATABASE_URL: databaseUrl,
      REDIS_URL: 'redis://127.0.0.1:6379',
      SERVICE_SECRET: 's'.repeat(32),
      QUEUE_PREFIX: uniqueName('test'),
      EMBEDDINGS_URL: baseURL,
      EMBEDDINGS_MODEL: 'fake-small',
    });
    const embeddings = knowledgeEmbeddings(config, { db, search, redis, logger, workers: true });
    try {
      const { chatbotId, entryIds } = await chatbotWith(TEXTS);
      for (const entryId of entryIds) await embeddings.entryIndexed({ chatbotId, entryId });
      await expect
        .poll(async () => (await Promise.all(entryIds.map(embeddingsOf))).flat().every((c) => c.model === 'fake-small'), {
          timeout: 10_000,
        })
        .toBe(true);

      const hits = await embeddings.retrieve({ chatbotId, query: 'I forgot my login password', k: 2 });
      expect(hits[0].entryId).toBe(entryIds[1]);

      endpoint.failing = true;
      const fallback = await embeddings.retrieve({ chatbotId, query: 'refunds', k: 2 });
      expect(fallback.map((h) => h.entryId)).toEqual([entryIds[0]]);
    } finally {
      endpoint.failing = false;
      await embeddings.close();
    }
  });
});
