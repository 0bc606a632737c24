// Adding and removing knowledge entries, and the per-entry and per-chatbot size limits. The
// service runs with small limits so they are reached with a few short texts.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from './harness.ts';

const MAX_ENTRY = 1000;
const MAX_BOT = 2500;
const ENTRY_TOO_LONG = 'Text entry is too long (maximum 1,000 characters)';
const KB_FULL = 'Knowledge base is full (maximum 2,500 characters per chatbot)';

let svc: TestChatbotService;
beforeAll(async () => {
  svc = await startChatbotService({ MAX_ENTRY_CHARS: String(MAX_ENTRY), MAX_KNOWLEDGE_CHARS_PER_BOT: String(MAX_BOT) });
});
afterAll(async () => {
  await svc?.stop();
});

async function newChatbot() {
  const owner = newOwner();
  const chatbot = await svc.createChatbot(owner);
  return { owner, chatbotId: chatbot.id };
}

const knowledgeChars = async (chatbotId: string) => (await svc.db.chatbot.findUniqueOrThrow({ where: { id: chatbotId } })).knowledgeChars;

describe('AddTextEntry', () => {
  it('stores the trimmed text as an entry and answers the whole knowledge base', async () => {
    const { owner, chatbotId } = await newChatbot();
    const before = Date.now();
    const { knowledgeBase } = await svc.client.addTextEntry({
      ownerId: owner,
      chatbotId,
      text: '  We open at nine and close at five on weekdays.\n',
    });

    expect(knowledgeBase!.text).toBe('We open at nine and close at five on weekdays.');
    expect(knowledgeBase!.textEntries).toHaveLength(1);
    const [entry] = knowledgeBase!.textEntries;
    expect(entry.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(entry.title).toBe('We open at nine and close at five…');
    expect(entry.content).toBe('We open at nine and close at five on weekdays.');
    const createdAt = timestampDate(entry.createdAt!).getTime();
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(Date.now() + 1000);
    expect(await knowledgeChars(chatbotId)).toBe(46);
  });

  it('combines entries oldest first, separated by a blank line', async () => {
    const { owner, chatbotId } = await newChatbot();
    await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'First entry.' });
    await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'Second entry.' });
    const { knowledgeBase } = await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'Third\nentry.' });

    expect(knowledgeBase!.text).toBe('First entry.\n\nSecond entry.\n\nThird\nentry.');
    expect(knowledgeBase!.textEntries.map((e) => e.title)).toEqual(['First entry.', 'Second entry.', 'Third entry.']);
    const { chatbot } = await svc.client.getChatbot({ ownerId: owner, chatbotId });
    expect(chatbot!.knowledgeBase).toEqual(knowledgeBase);
  });

  it.each([[''], ['   '], [' \n\t ']])('refuses the blank text %j with "Text is required"', async (text) => {
    const { owner, chatbotId } = await newChatbot();
    await expectRpcError(svc.client.addTextEntry({ ownerId: owner, chatbotId, text }), Code.InvalidArgument, 'Text is required');
    expect(await svc.db.textEntry.count({ where: { chatbotId } })).toBe(0);
  });

  it('accepts an entry of exactly the maximum (after trimming) and refuses one character more', async () => {
    const { owner, chatbotId } = await newChatbot();
    await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: `  ${'a'.repeat(MAX_ENTRY)}  ` });
    await expectRpcError(
      svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'b'.repeat(MAX_ENTRY + 1) }),
      Code.InvalidArgument,
      ENTRY_TOO_LONG,
    );
    expect(await svc.db.textEntry.count({ where: { chatbotId } })).toBe(1);
    expect(await knowledgeChars(chatbotId)).toBe(MAX_ENTRY);
  });

  it('counts characters, not UTF-16 units: 1,000 emoji fit in one entry', async () => {
    const { owner, chatbotId } = await newChatbot();
    const { knowledgeBase } = await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: '🤖'.repeat(MAX_ENTRY) });
    expect(knowledgeBase!.textEntries[0].content).toBe('🤖'.repeat(MAX_ENTRY));
    expect(await knowledgeChars(chatbotId)).toBe(MAX_ENTRY);
    await expectRpcError(
      svc.client.addTextEntry({ ownerId: owner, chatbotId, text: '🤖'.repeat(MAX_ENTRY + 1) }),
      Code.InvalidArgument,
      ENTRY_TOO_LONG,
    );
  });

  it('refuses an entry that would take the chatbot past its total, and accepts one that just fits', async () => {
    const { owner, chatbotId } = await newChatbot();
    await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'a'.repeat(1000) });
    await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'b'.repeat(1000) });
    await expectRpcError(svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'c'.repeat(501) }), Code.InvalidArgument, KB_FULL);
    expect(await knowledgeChars(chatbotId)).toBe(2000);

    const { knowledgeBase } = await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'd'.repeat(500) });
    expect(knowledgeBase!.textEntries).toHaveLength(3);
    expect(await knowledgeChars(chatbotId)).toBe(MAX_BOT);
    await expectRpcError(svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'e' }), Code.InvalidArgument, KB_FULL);
  });

  it('keeps each chatbot to its own total', async () => {
    const full = await newChatbot();
    for (const ch of ['a', 'b']) await svc.client.addTextEntry({ ownerId: full.owner, chatbotId: full.chatbotId, text: ch.repeat(1000) });
    await svc.client.addTextEntry({ ownerId: full.owner, chatbotId: full.chatbotId, text: 'c'.repeat(500) });
    const other = await newChatbot();
    await svc.client.addTextEntry({ ownerId: other.owner, chatbotId: other.chatbotId, text: 'x'.repeat(1000) });
    expect(await knowledgeChars(other.chatbotId)).toBe(1000);
  });

  it('lets concurrent additions fill the chatbot but never past its total', async () => {
    // Three chatbots at once, ten entries of 900 characters each: only two fit in 2,500.
    const bots = await Promise.all([newChatbot(), newChatbot(), newChatbot()]);
    const results = await Promise.all(
      bots.map(({ owner, chatbotId }) =>
        Promise.allSettled(
          Array.from({ length: 10 }, (_, i) => svc.client.addTextEntry({ ownerId: owner, chatbotId, text: String(i).repeat(900) })),
        ),
      ),
    );

    for (const [b, { chatbotId }] of bots.entries()) {
      expect(results[b].filter((r) => r.status === 'fulfilled')).toHaveLength(2);
      for (const r of results[b]) {
        if (r.status === 'rejected') {
          expect(r.reason).toBeInstanceOf(ConnectError);
          expect((r.reason as ConnectError).rawMessage).toBe(KB_FULL);
        }
      }
      expect(await knowledgeChars(chatbotId)).toBe(1800);
      const entries = await svc.db.textEntry.findMany({ where: { chatbotId } });
      expect(entries).toHaveLength(2);
      // Chunks of refused entries were rolled back with them.
      const chunkEntries = new Set((await svc.db.knowledgeChunk.findMany({ where: { chatbotId } })).map((c) => c.entryId));
      expect([...chunkEntries].sort()).toEqual(entries.map((e) => e.id).sort());
    }
  });
});

describe('DeleteTextEntry', () => {
  it('removes the entry and its chunks and answers the remaining knowledge base', async () => {
    const { owner, chatbotId } = await newChatbot();
    await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'Keep this.' });
    const added = await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'Remove this. '.repeat(70) });
    await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'Keep that.' });
    const removed = added.knowledgeBase!.textEntries[1];
    expect(await svc.db.knowledgeChunk.count({ where: { entryId: removed.id } })).toBeGreaterThan(1);

    const { knowledgeBase } = await svc.client.deleteTextEntry({ ownerId: owner, chatbotId, entryId: removed.id });

    expect(knowledgeBase!.text).toBe('Keep this.\n\nKeep that.');
    expect(knowledgeBase!.textEntries.map((e) => e.content)).toEqual(['Keep this.', 'Keep that.']);
    expect(await svc.db.textEntry.count({ where: { id: removed.id } })).toBe(0);
    expect(await svc.db.knowledgeChunk.count({ where: { entryId: removed.id } })).toBe(0);
    expect(await knowledgeChars(chatbotId)).toBe(20);
    expect((await svc.client.retrieve({ chatbotId, query: 'remove', k: 0 })).chunks).toEqual([]);
  });

  it('frees room in the chatbot total', async () => {
    const { owner, chatbotId } = await newChatbot();
    await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: '😀'.repeat(1000) });
    const { knowledgeBase } = await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'b'.repeat(1000) });
    await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'c'.repeat(500) });
    await expectRpcError(svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'd'.repeat(1000) }), Code.InvalidArgument, KB_FULL);

    // Deleting the emoji entry frees 1,000 characters (not its 2,000 UTF-16 units).
    await svc.client.deleteTextEntry({ ownerId: owner, chatbotId, entryId: knowledgeBase!.textEntries[0].id });
    expect(await knowledgeChars(chatbotId)).toBe(1500);
    await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'd'.repeat(1000) });
    expect(await knowledgeChars(chatbotId)).toBe(MAX_BOT);
  });

  it('answers NotFound "Text entry not found" for an unknown, malformed or already deleted entry', async () => {
    const { owner, chatbotId } = await newChatbot();
    const { knowledgeBase } = await svc.client.addTextEntry({ ownerId: owner, chatbotId, text: 'Only entry.' });
    const entryId = knowledgeBase!.textEntries[0].id;

    for (const bad of ['00000000-0000-4000-8000-000000000000', 'not-an-id', '']) {
      await expectRpcError(svc.client.deleteTextEntry({ ownerId: owner, chatbotId, entryId: bad }), Code.NotFound, 'Text entry not found');
    }
    await svc.client.deleteTextEntry({ ownerId: owner, chatbotId, entryId: entryId.toUpperCase() });
    await expectRpcError(svc.client.deleteTextEntry({ ownerId: owner, chatbotId, entryId }), Code.NotFound, 'Text entry not found');
    expect(await knowledgeChars(chatbotId)).toBe(0);
  });

  it("does not delete an entry through another of the owner's chatbots", async () => {
    const owner = newOwner('pro');
    await svc.makePro(owner);
    const a = await svc.createChatbot(owner, 'A');
    const b = await svc.createChatbot(owner, 'B');
    const { knowledgeBase } = await svc.client.addTextEntry({ ownerId: owner, chatbotId: a.id, text: 'Belongs to A.' });
    const entryId = knowledgeBase!.textEntries[0].id;

    await expectRpcError(svc.client.deleteTextEntry({ ownerId: owner, chatbotId: b.id, entryId }), Code.NotFound, 'Text entry not found');
    expect((await svc.client.getChatbot({ ownerId: owner, chatbotId: a.id })).chatbot!.knowledgeBase!.textEntries.map((e) => e.id)).toEqual(
      [entryId],
    );
    expect(await knowledgeChars(a.id)).toBe(13);
  });
});
