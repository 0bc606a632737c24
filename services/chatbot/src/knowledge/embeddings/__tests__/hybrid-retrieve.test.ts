import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '@parley/common/logger.ts';
import { fakeEmbedding } from '@parley/common/testing/fake-embedding.ts';
import type { RetrievedChunk } from '../../retrieve.ts';
import { fuseByRank, hybridRetrieve, RETRY_VECTOR_AFTER_MS, RRF_K } from '../hybrid-retrieve.ts';
import { decodeRealArrays, nearest, normalise } from '../vector-index.ts';

const chunk = (id: string, score = 0): RetrievedChunk => ({ chunkId: id, entryId: `e-${id}`, content: `text ${id}`, score });
const BOT = '6f1f7a52-8a8e-4a3c-9d2e-3b1f0b0c0d01';

describe('fuseByRank', () => {
  it('adds 1 / (60 + rank) over the lists, so a chunk both lists rank well comes first', () => {
    const text = [chunk('a'), chunk('b'), chunk('c')];
    const vector = [chunk('c'), chunk('d'), chunk('a')];
    const fused = fuseByRank([text, vector], 3);
    expect(fused.map((c) => c.chunkId)).toEqual(['a', 'c', 'b']);
    expect(fused[0].score).toBeCloseTo(1 / (RRF_K + 1) + 1 / (RRF_K + 3));
    expect(fused[2].score).toBeCloseTo(1 / (RRF_K + 2));
  });

  it('keeps the chunk as the lists gave it, and breaks ties by chunk id', () => {
    const fused = fuseByRank([[chunk('y')], [chunk('x')]], 5);
    expect(fused).toEqual([
      { ...chunk('x'), score: 1 / (RRF_K + 1) },
      { ...chunk('y'), score: 1 / (RRF_K + 1) },
    ]);
  });
});

describe('hybridRetrieve', () => {
  const logger = createLogger('test', 'silent');

  it('asks both searches for max(k, 20) and fuses them down to k', async () => {
    const fullText = vi.fn(async () => [chunk('a'), chunk('b')]);
    const vectorSearch = vi.fn(async (_chatbotId: string, _query: number[], _n: number) => [chunk('b'), chunk('c')]);
    const retrieve = hybridRetrieve({ fullText, embedQuery: async (q) => fakeEmbedding(q), vectorSearch, logger });
    const got = await retrieve({ chatbotId: BOT, query: 'refund policy', k: 2 });
    expect(got.map((c) => c.chunkId)).toEqual(['b', 'a']);
    expect(fullText).toHaveBeenCalledWith({ chatbotId: BOT, query: 'refund policy', k: 20 });
    expect(vectorSearch.mock.calls[0][2]).toBe(20);
  });

  it('falls back to full-text alone when the endpoint fails, warns once a minute, and leaves the endpoint alone a while', async () => {
    let t = 0;
    const warn = vi.fn();
    const embedQuery = vi.fn(async () => {
      throw new Error('connect ECONNREFUSED');
    });
    const retrieve = hybridRetrieve({
      fullText: async (input) => [chunk('a'), chunk('b'), chunk('c')].slice(0, input.k),
      embedQuery,
      vectorSearch: async () => [],
      logger: { ...logger, warn } as never,
      now: () => t,
    });
    expect((await retrieve({ chatbotId: BOT, query: 'q', k: 2 })).map((c) => c.chunkId)).toEqual(['a', 'b']);
    expect(await retrieve({ chatbotId: BOT, query: 'q', k: 2 })).toHaveLength(2);
    expect(embedQuery).toHaveBeenCalledTimes(1);
    t += RETRY_VECTOR_AFTER_MS;
    await retrieve({ chatbotId: BOT, query: 'q', k: 2 });
    expect(embedQuery).toHaveBeenCalledTimes(2);
    expect(warn).toHaveBeenCalledTimes(1);
    t += 60_000;
    await retrieve({ chatbotId: BOT, query: 'q', k: 2 });
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it('leaves bad input to the full-text search and its errors, without embedding it', async () => {
    const embedQuery = vi.fn(async () => [1]);
    const retrieve = hybridRetrieve({
      fullText: async () => {
        throw new Error('Query is required');
      },
      embedQuery,
      vectorSearch: async () => [],
      logger,
    });
    await expect(retrieve({ chatbotId: BOT, query: '  ', k: 5 })).rejects.toThrow('Query is required');
    await expect(retrieve({ chatbotId: 'nope', query: 'x', k: 5 })).rejects.toThrow('Query is required');
    expect(embedQuery).not.toHaveBeenCalled();
  });
});

describe('nearest', () => {
  it('ranks rows by cosine, best first, keeping n', () => {
    const rows = [
      [1, 0, 0, 0, 0],
      [0.6, 0.8, 0, 0, 0],
      [0, 0, 1, 0, 0],
      [0.9, 0.1, 0, 0, 0.1],
    ].map((r) => Float32Array.from(r));
    rows.forEach((r) => normalise(r));
    const matrix = new Float32Array(rows.length * 5);
    rows.forEach((r, i) => matrix.set(r, i * 5));
    const best = nearest({ dims: 5, matrix }, Float32Array.from([1, 0, 0, 0, 0]), 3);
    expect(best.map((b) => b.row)).toEqual([0, 3, 1]);
    expect(best[0].score).toBeCloseTo(1);
  });
});

describe('decodeRealArrays', () => {
  it("reads PostgreSQL's binary form of a real[]", () => {
    const values = [0.5, -1.25, 3];
    const buf = Buffer.alloc(20 + values.length * 8);
    buf.writeInt32BE(1, 0);
    buf.writeInt32BE(0, 4);
    buf.writeInt32BE(700, 8);
    buf.writeInt32BE(values.length, 12);
    buf.writeInt32BE(1, 16);
    values.forEach((v, i) => {
      buf.writeInt32BE(4, 20 + i * 8);
      buf.writeFloatBE(v, 24 + i * 8);
    });
    const [a, b] = decodeRealArrays(Buffer.concat([buf, buf]));
    expect(Array.from(a)).toEqual(values);
    expect(Array.from(b)).toEqual(values);
    expect(decodeRealArrays(buf.subarray(0, 30))).toEqual([]);
  });
});

describe('fakeEmbedding', () => {
  const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

  it('is deterministic, unit length and 256 wide', () => {
    const v = fakeEmbedding('How do I reset my password?');
    expect(v).toHaveLength(256);
    expect(v).toEqual(fakeEmbedding('How do I reset my password?'));
    expect(cos(v, v)).toBeCloseTo(1);
    expect(cos(fakeEmbedding(''), fakeEmbedding(''))).toBeCloseTo(1);
  });

  it('puts a paraphrase nearer its source than an unrelated text', () => {
    const source = fakeEmbedding('Passwords can be reset from the account settings page.');
    const paraphrase = fakeEmbedding('How do I reset my password in settings?');
    const other = fakeEmbedding('Invoices are emailed at the start of every billing month.');
    expect(cos(source, paraphrase)).toBeGreaterThan(cos(source, other) + 0.2);
  });
});
