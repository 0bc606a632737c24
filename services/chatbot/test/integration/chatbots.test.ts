// Creating, listing, reading, updating and deleting chatbots.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import { Language } from '@parley/proto/language.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayChatbotDeleted } from '../../src/chatbots/chatbot-deleted.outbox.ts';
import { deleteChatbot } from '../../src/chatbots/delete-chatbot.ts';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from './harness.ts';

let svc: TestChatbotService;
beforeAll(async () => {
  svc = await startChatbotService();
});
afterAll(async () => {
  await svc?.stop();
});

/** Pro owners may hold several chatbots, which listing needs. */
async function proOwner(): Promise<string> {
  const owner = newOwner('pro');
  await svc.makePro(owner);
  return owner;
}

describe('CreateChatbot', () => {
  it('creates an active English chatbot with a trimmed name and no interactions', async () => {
    const owner = newOwner();
    const before = Date.now();
    const { chatbot } = await svc.client.createChatbot({ ownerId: owner, name: '  Support Bot \n' });

    expect(chatbot).toBeDefined();
    expect(chatbot!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(chatbot!.ownerId).toBe(owner);
    expect(chatbot!.name).toBe('Support Bot');
    expect(chatbot!.isActive).toBe(true);
    expect(chatbot!.language).toBe('english');
    expect(Number(chatbot!.interactions)).toBe(0);
    expect(chatbot!.lastInteraction).toBeUndefined();
    expect(chatbot!.profilePicture).toBe('');
    const createdAt = timestampDate(chatbot!.createdAt!).getTime();
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(Date.now() + 1000);
    expect(timestampDate(chatbot!.updatedAt!).getTime()).toBeGreaterThanOrEqual(createdAt);

    const row = await svc.db.chatbot.findUniqueOrThrow({ where: { id: chatbot!.id } });
    expect(row).toMatchObject({ ownerId: owner, name: 'Support Bot', isActive: true, language: 'english', knowledgeChars: 0 });
  });

  it('gives each chatbot a URL-safe, unguessable uniqueId unrelated to its id', async () => {
    const owner = await proOwner();
    const bots = await Promise.all(Array.from({ length: 5 }, (_, i) => svc.createChatbot(owner, `Bot ${i}`)));
    for (const bot of bots) {
      expect(bot.uniqueId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Buffer.from(bot.uniqueId, 'base64url')).toHaveLength(16);
      expect(bot.uniqueId).not.toBe(bot.id);
      expect(bot.id.replace(/-/g, '')).not.toContain(Buffer.from(bot.uniqueId, 'base64url').toString('hex'));
    }
    expect(new Set(bots.map((b) => b.uniqueId)).size).toBe(5);
  });

  it.each([[''], ['   '], ['\n\t']])('refuses the blank name %j with "Name is required"', async (name) => {
    const owner = newOwner();
    await expectRpcError(svc.client.createChatbot({ ownerId: owner, name }), Code.InvalidArgument, 'Name is required');
    expect(await svc.db.chatbot.count({ where: { ownerId: owner } })).toBe(0);
  });

  it('accepts a 100-character name and refuses 101 characters', async () => {
    const owner = await proOwner();
    const { chatbot } = await svc.client.createChatbot({ ownerId: owner, name: 'n'.repeat(100) });
    expect(chatbot!.name).toBe('n'.repeat(100));
    await expectRpcError(
      svc.client.createChatbot({ ownerId: owner, name: 'n'.repeat(101) }),
      Code.InvalidArgument,
      'Name must be at most 100 characters',
    );
    expect(await svc.db.chatbot.count({ where: { ownerId: owner } })).toBe(1);
  });

  it('refuses a missing owner', async () => {
    await expectRpcError(svc.client.createChatbot({ ownerId: ' ', name: 'Bot' }), Code.InvalidArgument, 'owner_id is required.');
  });
});

describe('ListChatbots', () => {
  it("lists only the owner's chatbots, newest first", async () => {
    const owner = await proOwner();
    const other = newOwner('other');
    await svc.createChatbot(other, 'Not mine');
    const first = await svc.createChatbot(owner, 'First');
    const second = await svc.createChatbot(owner, 'Second');
    const third = await svc.createChatbot(owner, 'Third');

    const { chatbots } = await svc.client.listChatbots({ ownerId: owner });
    expect(chatbots.map((c) => c.name)).toEqual(['Third', 'Second', 'First']);
    expect(chatbots.map((c) => c.id)).toEqual([third.id, second.id, first.id]);
    expect(chatbots.every((c) => c.knowledgeBase === undefined)).toBe(true);
  });

  it('is empty for an owner without chatbots', async () => {
    expect((await svc.client.listChatbots({ ownerId: newOwner() })).chatbots).toEqual([]);
  });

  it('includes each knowledge base when asked', async () => {
    const owner = await proOwner();
    const withText = await svc.createChatbot(owner, 'With text');
    const empty = await svc.createChatbot(owner, 'Empty');
    await svc.client.addTextEntry({ ownerId: owner, chatbotId: withText.id, text: 'We open at nine.' });

    const { chatbots } = await svc.client.listChatbots({ ownerId: owner, includeKnowledgeBase: true });
    const byId = new Map(chatbots.map((c) => [c.id, c]));
    expect(byId.get(withText.id)!.knowledgeBase!.text).toBe('We open at nine.');
    expect(byId.get(withText.id)!.knowledgeBase!.textEntries).toHaveLength(1);
    expect(byId.get(empty.id)!.knowledgeBase).toMatchObject({ text: '', textEntries: [] });
  });
});

describe('GetChatbot', () => {
  it('returns the chatbot with its knowledge base', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner, 'Helper');
    const { chatbot } = await svc.client.getChatbot({ ownerId: owner, chatbotId: created.id });
    expect(chatbot).toMatchObject({
      id: created.id,
      uniqueId: created.uniqueId,
      ownerId: owner,
      name: 'Helper',
      isActive: true,
      language: 'english',
    });
    expect(chatbot!.knowledgeBase).toMatchObject({ text: '', textEntries: [] });
  });

  it('accepts the id in upper case', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner);
    const { chatbot } = await svc.client.getChatbot({ ownerId: owner, chatbotId: created.id.toUpperCase() });
    expect(chatbot!.id).toBe(created.id);
  });

  it('answers NotFound for an unknown id', async () => {
    await expectRpcError(
      svc.client.getChatbot({ ownerId: newOwner(), chatbotId: '00000000-0000-4000-8000-000000000000' }),
      Code.NotFound,
      'Chatbot not found',
    );
  });
});

describe('UpdateChatbot', () => {
  it('renames (trimmed), deactivates and changes the language, keeping what was not sent', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner, 'Before');
    await new Promise((r) => setTimeout(r, 5));

    const renamed = (await svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, name: '  After  ' })).chatbot!;
    expect(renamed).toMatchObject({ name: 'After', isActive: true, language: 'english', uniqueId: created.uniqueId });
    expect(timestampDate(renamed.updatedAt!).getTime()).toBeGreaterThan(timestampDate(created.updatedAt!).getTime());
    expect(renamed.createdAt).toEqual(created.createdAt);

    const inactive = (await svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, isActive: false })).chatbot!;
    expect(inactive).toMatchObject({ name: 'After', isActive: false, language: 'english' });

    const french = (await svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, language: 'French' })).chatbot!;
    expect(french).toMatchObject({ name: 'After', isActive: false, language: 'french' });

    const chinese = (await svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, language: 'chinese', isActive: true }))
      .chatbot!;
    expect(chinese).toMatchObject({ name: 'After', isActive: true, language: 'chinese' });

    const stored = (await svc.client.getChatbot({ ownerId: owner, chatbotId: created.id })).chatbot!;
    expect(stored).toMatchObject({ name: 'After', isActive: true, language: 'chinese' });
  });

  it('fills both language fields, and reads the enum first (the string is deprecated)', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner, 'Both');
    expect(created).toMatchObject({ language: 'english', primaryLanguage: Language.ENGLISH });

    const french = (await svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, primaryLanguage: Language.FRENCH })).chatbot!;
    expect(french).toMatchObject({ language: 'french', primaryLanguage: Language.FRENCH });
    // A writer filling both with different values: the enum wins.
    const chinese = (
      await svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, primaryLanguage: Language.CHINESE, language: 'english' })
    ).chatbot!;
    expect(chinese).toMatchObject({ language: 'chinese', primaryLanguage: Language.CHINESE });
    // UNSPECIFIED is "not set": the string is read, as from a writer that predates the enum.
    const english = (
      await svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, primaryLanguage: Language.UNSPECIFIED, language: 'English' })
    ).chatbot!;
    expect(english).toMatchObject({ language: 'english', primaryLanguage: Language.ENGLISH });
    const { chatbot: shown } = await svc.client.getPublicChatbot({ uniqueId: created.uniqueId });
    expect(shown).toMatchObject({ language: 'english', primaryLanguage: Language.ENGLISH });
  });

  it('refuses an unknown language and a blank or overlong name, changing nothing', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner, 'Stable');
    await expectRpcError(
      svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, language: 'spanish' }),
      Code.InvalidArgument,
      'Language must be english, french or chinese',
    );
    await expectRpcError(
      svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, language: '' }),
      Code.InvalidArgument,
      'Language must be english, french or chinese',
    );
    await expectRpcError(
      svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, name: '  ', isActive: false }),
      Code.InvalidArgument,
      'Name is required',
    );
    await expectRpcError(
      svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, name: 'x'.repeat(101) }),
      Code.InvalidArgument,
      'Name must be at most 100 characters',
    );
    const stored = (await svc.client.getChatbot({ ownerId: owner, chatbotId: created.id })).chatbot!;
    expect(stored).toMatchObject({ name: 'Stable', isActive: true, language: 'english' });
  });

  it('answers NotFound for an unknown chatbot', async () => {
    await expectRpcError(
      svc.client.updateChatbot({ ownerId: newOwner(), chatbotId: '00000000-0000-4000-8000-000000000000', name: 'x' }),
      Code.NotFound,
      'Chatbot not found',
    );
  });
});

describe('DeleteChatbot', () => {
  it('removes the chatbot with its entries and chunks', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner);
    const keep = await svc.createChatbot(newOwner('keep'));
    for (const bot of [created, keep]) {
      await svc.client.addTextEntry({ ownerId: bot.ownerId, chatbotId: bot.id, text: 'Refunds are possible within 30 days. '.repeat(60) });
    }
    expect(await svc.db.knowledgeChunk.count({ where: { chatbotId: created.id } })).toBeGreaterThan(1);

    await svc.client.deleteChatbot({ ownerId: owner, chatbotId: created.id });

    expect(await svc.db.chatbot.findUnique({ where: { id: created.id } })).toBeNull();
    expect(await svc.db.textEntry.count({ where: { chatbotId: created.id } })).toBe(0);
    expect(await svc.db.knowledgeChunk.count({ where: { chatbotId: created.id } })).toBe(0);
    await expectRpcError(svc.client.getChatbot({ ownerId: owner, chatbotId: created.id }), Code.NotFound, 'Chatbot not found');
    expect((await svc.client.listChatbots({ ownerId: owner })).chatbots).toEqual([]);
    // Another owner's chatbot is untouched.
    expect(await svc.db.textEntry.count({ where: { chatbotId: keep.id } })).toBe(1);
    expect(await svc.db.knowledgeChunk.count({ where: { chatbotId: keep.id } })).toBeGreaterThan(1);
  });

  it('enqueues one ChatbotDeleted job, keyed by the chatbot id, under the queue prefix', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner);
    expect(await svc.chatbotDeletedEvent(created.id)).toBeUndefined();

    const before = Date.now();
    await svc.client.deleteChatbot({ ownerId: owner, chatbotId: created.id });

    const event = await svc.chatbotDeletedEvent(created.id);
    expect(event).toMatchObject({ chatbotId: created.id, ownerId: owner });
    expect(timestampDate(event!.occurredAt!).getTime()).toBeGreaterThanOrEqual(before - 1000);
    const keys = await svc.redis.keys(`${svc.config.QUEUE_PREFIX}:parley.chatbot-deleted:*`);
    expect(keys).toContain(`${svc.config.QUEUE_PREFIX}:parley.chatbot-deleted:chatbot-deleted.${created.id}`);
  });

  it('records the deletion in the outbox with the chatbot, and clears it once the event is published', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner);
    await svc.client.deleteChatbot({ ownerId: owner, chatbotId: created.id });
    expect(await svc.chatbotDeletedEvent(created.id)).toMatchObject({ chatbotId: created.id });
    expect(await svc.db.chatbotDeletedOutbox.count({ where: { chatbotId: created.id } })).toBe(0);
  });

  it('keeps a deletion it could not announce in the outbox, and the relay announces it later, once', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner);
    const down = { ...svc.parts.deps, publishChatbotDeleted: () => Promise.reject(new Error('Redis is unreachable')) };
    await deleteChatbot(down, { ownerId: owner, chatbotId: created.id });
    // Deleted for the owner, not announced yet, and remembered.
    expect(await svc.db.chatbot.findUnique({ where: { id: created.id } })).toBeNull();
    expect(await svc.chatbotDeletedEvent(created.id)).toBeUndefined();
    const [waiting] = await svc.db.chatbotDeletedOutbox.findMany({ where: { chatbotId: created.id } });
    expect(waiting).toMatchObject({ chatbotId: created.id, ownerId: owner });

    // The relay leaves records younger than its cut-off to the owner's call...
    expect(await relayChatbotDeleted(svc.db, svc.parts.deps.publishChatbotDeleted, new Date(waiting.deletedAt.getTime() - 1000))).toBe(0);
    // ...and publishes the older ones, with the time of the deletion, then forgets them.
    expect(await relayChatbotDeleted(svc.db, svc.parts.deps.publishChatbotDeleted, new Date(Date.now() + 1000))).toBeGreaterThanOrEqual(1);
    const event = await svc.chatbotDeletedEvent(created.id);
    expect(event).toMatchObject({ chatbotId: created.id, ownerId: owner });
    expect(timestampDate(event!.occurredAt!).getTime()).toBe(waiting.deletedAt.getTime());
    expect(await svc.db.chatbotDeletedOutbox.count({ where: { chatbotId: created.id } })).toBe(0);
    expect(await relayChatbotDeleted(svc.db, svc.parts.deps.publishChatbotDeleted, new Date(Date.now() + 1000))).toBe(0);
  });

  it('answers NotFound the second time, without a second job', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner);
    await svc.client.deleteChatbot({ ownerId: owner, chatbotId: created.id });
    await expectRpcError(svc.client.deleteChatbot({ ownerId: owner, chatbotId: created.id }), Code.NotFound, 'Chatbot not found');
    const jobs = await svc.redis.keys(`${svc.config.QUEUE_PREFIX}:parley.chatbot-deleted:chatbot-deleted.${created.id}*`);
    expect(jobs).toHaveLength(1);
  });

  it('lets a free owner create a chatbot again once theirs is deleted', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner, 'Old');
    await svc.client.deleteChatbot({ ownerId: owner, chatbotId: created.id });
    const again = await svc.createChatbot(owner, 'New');
    expect(again.name).toBe('New');
  });
});
