// Retrieval over the knowledge base: chunking of long entries, ranking, stemming per language,
// Chinese text without spaces, re-indexing on a language change and the bounds of a request.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from './harness.ts';

let svc: TestChatbotService;
beforeAll(async () => {
  svc = await startChatbotService();
});
afterAll(async () => {
  await svc?.stop();
});

async function chatbotWith(texts: string[], language?: string) {
  const owner = newOwner();
  const chatbot = await svc.createChatbot(owner);
  if (language) await svc.client.updateChatbot({ ownerId: owner, chatbotId: chatbot.id, language });
  const entryIds: string[] = [];
  for (const text of texts) {
    const { knowledgeBase } = await svc.client.addTextEntry({ ownerId: owner, chatbotId: chatbot.id, text });
    entryIds.push(knowledgeBase!.textEntries.at(-1)!.id);
  }
  return { owner, chatbotId: chatbot.id, entryIds };
}

const search = async (chatbotId: string, query: string, k = 0) => (await svc.client.retrieve({ chatbotId, query, k })).chunks;

/** Filler that shares no word with the queries below. */
const filler = (n: number, seed: string) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${seed}${i} describes ordinary matters about gardens, weather and cooking.`).join(' ');

describe('chunking and ranking', () => {
  it('splits a long entry into overlapping chunks, in order', async () => {
    const text = filler(60, 'p');
    const { chatbotId, entryIds } = await chatbotWith([text]);
    const chunks = await svc.db.knowledgeChunk.findMany({ where: { entryId: entryIds[0] }, orderBy: { position: 'asc' } });

    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(text.length / 800));
    expect(chunks.map((c) => c.position)).toEqual(chunks.map((_, i) => i));
    for (const c of chunks) {
      expect(c.chatbotId).toBe(chatbotId);
      expect(c.searchConfig).toBe('english');
      expect(c.content.length).toBeLessThanOrEqual(800);
      expect(text).toContain(c.content);
    }
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1].content;
      const head = chunks[i].content.slice(0, 20);
      // The next chunk starts inside the end of the previous one.
      expect(prev.slice(-150)).toContain(head);
    }
    expect(chunks[0].content.startsWith(text.slice(0, 50))).toBe(true);
    expect(text.endsWith(chunks.at(-1)!.content)).toBe(true);
  });

  it('ranks the passage holding more of the query terms first', async () => {
    const text = [
      filler(12, 'a'),
      'Refunds are granted within thirty days of purchase.',
      filler(12, 'b'),
      'Our warranty covers refunds for faulty devices for two years.',
      filler(12, 'c'),
    ].join(' ');
    const { chatbotId, entryIds } = await chatbotWith([text]);
    expect(await svc.db.knowledgeChunk.count({ where: { entryId: entryIds[0] } })).toBeGreaterThan(3);

    const chunks = await search(chatbotId, 'warranty refund');
    // Overlap may repeat a sentence in a neighbouring chunk; every chunk holding one returns.
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks[0].content).toContain('Our warranty covers refunds');
    expect(chunks.some((c) => c.content.includes('Refunds are granted') && !c.content.includes('warranty'))).toBe(true);
    for (const c of chunks) {
      // The whole part of the score is the number of distinct query terms the chunk holds.
      const terms = Number(/warranty/i.test(c.content)) + Number(/refund/i.test(c.content));
      expect(Math.floor(c.score)).toBe(terms);
      expect(c.entryId).toBe(entryIds[0]);
      expect(c.chunkId).toMatch(/^[0-9a-f-]{36}$/);
    }
    const scores = chunks.map((c) => c.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(chunks.some((c) => c.content.includes('gardens') && !/refund|warranty/i.test(c.content))).toBe(false);
  });

  it('finds text as soon as AddTextEntry has answered', async () => {
    const owner = newOwner();
    const chatbot = await svc.createChatbot(owner);
    const { knowledgeBase } = await svc.client.addTextEntry({
      ownerId: owner,
      chatbotId: chatbot.id,
      text: 'Parking is free behind the library.',
    });
    const chunks = await search(chatbot.id, 'Where can I park?');
    expect(chunks.map((c) => c.entryId)).toEqual([knowledgeBase!.textEntries[0].id]);
  });

  it("never returns another chatbot's chunks", async () => {
    const text = 'Our helpdesk answers the phone around the clock.';
    const mine = await chatbotWith([text]);
    const theirs = await chatbotWith([text, 'The helpdesk is in building seven.']);
    const chunks = await search(mine.chatbotId, 'helpdesk phone building', 50);
    expect(chunks).toHaveLength(1);
    expect(chunks[0].entryId).toBe(mine.entryIds[0]);
    expect(await search((await chatbotWith([])).chatbotId, 'helpdesk')).toEqual([]);
    expect((await search(theirs.chatbotId, 'helpdesk', 50)).map((c) => c.entryId).sort()).toEqual([...theirs.entryIds].sort());
  });
});

describe('languages', () => {
  it('stems English: "running" finds "runs"', async () => {
    const { chatbotId } = await chatbotWith(['The shuttle runs every morning from the station.']);
    const chunks = await search(chatbotId, 'running');
    expect(chunks).toHaveLength(1);
    expect(chunks[0].content).toContain('runs');
  });

  it('stems French for a French chatbot, and not for an English one', async () => {
    const text = 'La boutique est fermée le dimanche.';
    const french = await chatbotWith([text], 'french');
    expect(await svc.db.knowledgeChunk.findFirst({ where: { chatbotId: french.chatbotId }, select: { searchConfig: true } })).toEqual({
      searchConfig: 'french',
    });
    expect((await search(french.chatbotId, 'fermer')).map((c) => c.content)).toEqual([text]);

    const english = await chatbotWith([text]);
    expect(await search(english.chatbotId, 'fermer')).toEqual([]);
  });

  it("finds a Chinese chatbot's Chinese text with a Chinese query without spaces", async () => {
    const text = '我们的营业时间是周一至周五上午九点到下午五点。';
    const { chatbotId, entryIds } = await chatbotWith(['我们提供免费停车。', text], 'chinese');
    const chunks = await search(chatbotId, '营业时间');
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ entryId: entryIds[1], content: text });
    expect(Math.floor(chunks[0].score)).toBe(3); // 营业, 业时, 时间
    expect((await search(chatbotId, '你们几点开门？营业时间是什么？'))[0].content).toBe(text);
    expect(await search(chatbotId, '退款政策')).toEqual([]);
  });

  it('finds Chinese text in an English chatbot too, and Latin words in mixed text', async () => {
    const { chatbotId } = await chatbotWith(['Our 营业时间 (opening hours) are 9am to 5pm.']);
    expect(await search(chatbotId, '营业时间')).toHaveLength(1);
    expect(await search(chatbotId, 'hour')).toHaveLength(1);
  });

  it('re-indexes every chunk when the language changes', async () => {
    const text = `The shuttle runs every morning. ${filler(20, 'r')}`;
    const { owner, chatbotId } = await chatbotWith([text]);
    expect(await search(chatbotId, 'running')).toHaveLength(1);
    // "the" is an English stop word: a query of it alone finds nothing.
    expect(await search(chatbotId, 'the')).toEqual([]);

    await svc.client.updateChatbot({ ownerId: owner, chatbotId, language: 'chinese' });
    const configs = await svc.db.knowledgeChunk.findMany({ where: { chatbotId }, select: { searchConfig: true } });
    expect(configs.length).toBeGreaterThan(1);
    expect(new Set(configs.map((c) => c.searchConfig))).toEqual(new Set(['simple']));
    // Words are now matched as written: no stemming, no stop words.
    expect(await search(chatbotId, 'running')).toEqual([]);
    expect(await search(chatbotId, 'runs')).toHaveLength(1);
    expect((await search(chatbotId, 'the')).length).toBeGreaterThan(0);

    await svc.client.updateChatbot({ ownerId: owner, chatbotId, language: 'french' });
    expect(new Set((await svc.db.knowledgeChunk.findMany({ where: { chatbotId } })).map((c) => c.searchConfig))).toEqual(
      new Set(['french']),
    );
    await svc.client.updateChatbot({ ownerId: owner, chatbotId, language: 'english' });
    expect(await search(chatbotId, 'running')).toHaveLength(1);
    expect(await search(chatbotId, 'the')).toEqual([]);
  });

  it('indexes entries added after a language change with the new language', async () => {
    const { owner, chatbotId } = await chatbotWith([], 'french');
    await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'Les livraisons continueront demain.' });
    expect(await search(chatbotId, 'continuer')).toHaveLength(1);
  });
});

describe('request bounds', () => {
  let chatbotId: string;
  beforeAll(async () => {
    // Eight separate entries all mentioning the same word.
    ({ chatbotId } = await chatbotWith(Array.from({ length: 8 }, (_, i) => `Delivery option ${i} costs ${i + 1} euros.`)));
  });

  it('returns 5 chunks when k is 0, and up to k otherwise', async () => {
    expect(await search(chatbotId, 'delivery', 0)).toHaveLength(5);
    expect(await search(chatbotId, 'delivery', 1)).toHaveLength(1);
    expect(await search(chatbotId, 'delivery', 50)).toHaveLength(8);
  });

  it.each([51, -1, 1000])('refuses k = %i', async (k) => {
    await expectRpcError(svc.client.retrieve({ chatbotId, query: 'delivery', k }), Code.InvalidArgument, 'k must be between 1 and 50');
  });

  it('refuses an empty query', async () => {
    await expectRpcError(svc.client.retrieve({ chatbotId, query: '  ', k: 0 }), Code.InvalidArgument, 'Query is required');
  });

  it('returns nothing for a query of only stop words or punctuation', async () => {
    expect(await search(chatbotId, 'what is the of and')).toEqual([]);
    expect(await search(chatbotId, '?!...')).toEqual([]);
  });

  it('takes quotes and tsquery operators in a query literally', async () => {
    expect(await search(chatbotId, "delivery's & | ! (costs) :* 'euros'")).toHaveLength(5);
    expect(await search(chatbotId, '\'; DROP TABLE "KnowledgeChunk"; --')).toEqual([]);
    expect(await svc.db.knowledgeChunk.count({ where: { chatbotId } })).toBe(8);
  });

  it('cuts a very long question instead of failing, even inside an emoji', async () => {
    // 9 + 2 × 1200 UTF-16 units: the cut at 2,000 falls between the halves of an emoji.
    expect(await search(chatbotId, `delivery ${'😀'.repeat(1200)}`)).toHaveLength(5);
    expect(await search(chatbotId, `${'lorem '.repeat(400)}delivery`)).toEqual([]);
  });

  it('answers NotFound for an unknown chatbot', async () => {
    await expectRpcError(
      svc.client.retrieve({ chatbotId: '00000000-0000-4000-8000-000000000000', query: 'delivery', k: 0 }),
      Code.NotFound,
      'Chatbot not found',
    );
  });
});

describe('the search pool', () => {
  it('runs searches on sessions set up for them, apart from the main pool', async () => {
    const setting = async (db: typeof svc.db, name: string) =>
      (await db.$queryRawUnsafe<{ value: string }[]>(`SELECT current_setting('${name}') AS value`))[0].value;
    const search = svc.parts.deps.search;
    expect(await setting(search, 'enable_seqscan')).toBe('off');
    expect(await setting(search, 'jit')).toBe('off');
    expect(await setting(search, 'max_parallel_workers_per_gather')).toBe('0');
    expect(await setting(search, 'work_mem')).toBe('64kB');
    expect(await setting(search, 'search_path')).toBe(await setting(svc.db, 'search_path'));
    expect(await setting(svc.db, 'enable_seqscan')).toBe('on');
  });
});
