// Every committed change the public chat reads of a chatbot gives it a new public revision in
// Redis, before the owner's call returns, so the chat service's caches see it on the next message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { pngImage } from '@parley/common/testing/png.ts';
import { newOwner, startChatbotService, type TestChatbotService } from './harness.ts';

let svc: TestChatbotService;
beforeAll(async () => {
  svc = await startChatbotService();
});
afterAll(async () => {
  await svc?.stop();
});

const revision = (chatbotId: string) => svc.redis.get(redisKeys(svc.config.QUEUE_PREFIX).chatbotRevision(chatbotId));

describe('public revision', () => {
  it('changes after every change to what the public chat reads, and only then', async () => {
    const owner = newOwner();
    const bot = await svc.createChatbot(owner, 'Front desk');
    const seen = new Set<string | null>([await revision(bot.id)]);
    const expectNew = async () => {
      const now = await revision(bot.id);
      expect(now).toMatch(/^[0-9a-f-]{36}$/);
      expect(seen.has(now)).toBe(false);
      seen.add(now);
      const ttl = await svc.redis.pttl(redisKeys(svc.config.QUEUE_PREFIX).chatbotRevision(bot.id));
      expect(ttl).toBeGreaterThan(24 * 3600_000);
    };

    await svc.client.updateChatbot({ ownerId: owner, chatbotId: bot.id, name: 'Reception' });
    await expectNew();
    await svc.client.updateChatbot({ ownerId: owner, chatbotId: bot.id.toUpperCase(), isActive: false });
    await expectNew();
    await svc.client.setProfilePicture({ ownerId: owner, chatbotId: bot.id, content: pngImage(1, 1, [255, 0, 0]) });
    await expectNew();
    const { knowledgeBase } = await svc.client.addTextEntry({ ownerId: owner, chatbotId: bot.id, text: 'We open at nine.' });
    await expectNew();
    await svc.client.deleteTextEntry({ ownerId: owner, chatbotId: bot.id, entryId: knowledgeBase!.textEntries[0].id });
    await expectNew();

    // Reads and refused changes leave it as it is.
    const before = await revision(bot.id);
    await svc.client.getChatbot({ ownerId: owner, chatbotId: bot.id });
    await svc.client.updateChatbot({ ownerId: newOwner('mallory'), chatbotId: bot.id, name: 'Pwned' }).catch(() => {});
    await svc.client.addTextEntry({ ownerId: owner, chatbotId: bot.id, text: '   ' }).catch(() => {});
    expect(await revision(bot.id)).toBe(before);

    await svc.client.deleteChatbot({ ownerId: owner, chatbotId: bot.id });
    await expectNew();
  });
});
