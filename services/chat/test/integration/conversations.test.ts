// Conversation history: the owner's only, Pro only, newest first; gone with the chatbot. And the
// chatbot service's counters, kept from the chat service's events.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newOwner, rpcError, session, startChatStack, visitor, type ChatStack } from './harness.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { CURSOR_INVALID, LIMIT_INVALID } from '../../src/conversations/list-conversations.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack({}, { chatbotWorkers: true });
});
afterAll(async () => {
  await stack?.stop();
});

const until = async (cond: () => Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('conversation history', () => {
  it("lists the conversations of a Pro owner's chatbot, most recently active first, and shows one with its messages", async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    await stack.makePro(bot.ownerId);
    stack.fake.setBehaviour({ reply: (body) => `Re: ${body.messages.at(-1)!.content}` });
    await stack.client.sendMessage(
      visitor(bot.uniqueId, 'first in A', { sessionId: session('session-A'), clientIp: '192.0.2.10', userAgent: 'Agent A' }),
    );
    await stack.client.sendMessage(visitor(bot.uniqueId, 'first in B', { sessionId: session('session-B'), clientIp: '', userAgent: '' }));
    await stack.client.sendMessage(visitor(bot.uniqueId, 'second in A', { sessionId: session('session-A') }));

    const { conversations } = await stack.client.listConversations({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(conversations.map((c) => [c.sessionId, c.messageCount, c.userIp, c.userAgent])).toEqual([
      [session('session-A'), 4, '192.0.2.10', 'Agent A'],
      [session('session-B'), 2, '', ''],
    ]);
    expect(conversations[0].messages).toEqual([]);
    expect(conversations[0].updatedAt!.seconds).toBeGreaterThanOrEqual(conversations[0].createdAt!.seconds);

    const { conversation } = await stack.client.getConversation({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      conversationId: conversations[0].id,
    });
    expect(conversation?.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'first in A'],
      ['assistant', 'Re: first in A'],
      ['user', 'second in A'],
      ['assistant', 'Re: second in A'],
    ]);
    expect(conversation?.messages.every((m) => m.timestamp && m.timestamp.seconds > 0n)).toBe(true);
  });

  it('pages them newest first by when they began, with a cursor, while the unpaged list follows activity', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    await stack.makePro(bot.ownerId);
    for (const label of ['paged-1', 'paged-2', 'paged-3'])
      await stack.client.sendMessage(visitor(bot.uniqueId, 'hello', { sessionId: session(label) }));
    // The first gets a later message: it leads the history tab's list and keeps its place in the pages.
    await stack.client.sendMessage(visitor(bot.uniqueId, 'again', { sessionId: session('paged-1') }));
    const ref = { ownerId: bot.ownerId, chatbotId: bot.id };

    const first = await stack.client.listConversations({ ...ref, limit: 2 });
    expect(first.conversations.map((c) => c.sessionId)).toEqual([session('paged-3'), session('paged-2')]);
    expect(first.nextCursor).not.toBe('');
    const second = await stack.client.listConversations({ ...ref, limit: 2, cursor: first.nextCursor });
    expect(second.conversations.map((c) => [c.sessionId, c.messageCount])).toEqual([[session('paged-1'), 4]]);
    expect(second.nextCursor).toBe('');

    const unpaged = await stack.client.listConversations(ref);
    expect(unpaged.conversations.map((c) => c.sessionId)).toEqual([session('paged-1'), session('paged-3'), session('paged-2')]);
    expect(unpaged.nextCursor).toBe('');

    for (const [call, message] of [
      [() => stack.client.listConversations({ ...ref, limit: 101 }), LIMIT_INVALID],
      [() => stack.client.listConversations({ ...ref, limit: -1 }), LIMIT_INVALID],
      [() => stack.client.listConversations({ ...ref, limit: 2, cursor: 'bad' }), CURSOR_INVALID],
      [
        () => stack.client.listConversations({ ...ref, limit: 2, cursor: Buffer.from('2026-01-01T00:00:00.000Z|x').toString('base64url') }),
        CURSOR_INVALID,
      ],
    ] as const) {
      const err = await rpcError(call());
      expect([err.code, err.rawMessage]).toEqual([Code.InvalidArgument, message]);
    }
  });

  it('is Pro only, enforced on the server', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    await stack.client.sendMessage(visitor(bot.uniqueId, 'hello', { sessionId: session('free-owner') }));
    const conversation = await stack.parts.prisma.conversation.findFirstOrThrow({ where: { chatbotId: bot.id } });
    for (const call of [
      () => stack.client.listConversations({ ownerId: bot.ownerId, chatbotId: bot.id }),
      () => stack.client.listConversations({ ownerId: bot.ownerId, chatbotId: bot.id, limit: 20 }),
      () => stack.client.getConversation({ ownerId: bot.ownerId, chatbotId: bot.id, conversationId: conversation.id }),
    ]) {
      const err = await rpcError(call());
      expect(err.code).toBe(Code.PermissionDenied);
      expect(err.rawMessage).toBe('Conversation history is available on the Pro plan.');
    }
  });

  it("answers NOT_FOUND for another owner's chatbot, an unknown chatbot, or a conversation of another chatbot", async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    await stack.client.sendMessage(visitor(bot.uniqueId, 'hello'));
    const conversation = await stack.parts.prisma.conversation.findFirstOrThrow({ where: { chatbotId: bot.id } });
    const stranger = newOwner('stranger');
    await stack.makePro(stranger);
    const other = await stack.newChatbot();
    await stack.makePro(other.ownerId);

    const cases = [
      [() => stack.client.listConversations({ ownerId: stranger, chatbotId: bot.id }), 'Chatbot not found'],
      [() => stack.client.getConversation({ ownerId: stranger, chatbotId: bot.id, conversationId: conversation.id }), 'Chatbot not found'],
      [() => stack.client.listConversations({ ownerId: stranger, chatbotId: 'not-a-uuid' }), 'Chatbot not found'],
      [() => stack.client.listConversations({ ownerId: stranger, chatbotId: '00000000-0000-4000-8000-000000000000' }), 'Chatbot not found'],
      [
        () => stack.client.getConversation({ ownerId: other.ownerId, chatbotId: other.id, conversationId: conversation.id }),
        'Conversation not found',
      ],
      [
        () => stack.client.getConversation({ ownerId: other.ownerId, chatbotId: other.id, conversationId: 'nope' }),
        'Conversation not found',
      ],
    ] as const;
    for (const [call, message] of cases) {
      const err = await rpcError(call());
      expect(err.code).toBe(Code.NotFound);
      expect(err.rawMessage).toBe(message);
    }
  });

  it("removes a deleted chatbot's conversations when the chatbot service announces the deletion", async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    const kept = await stack.newChatbot({ knowledge: ['Other knowledge.'] });
    await stack.client.sendMessage(visitor(bot.uniqueId, 'one', { sessionId: session('s1') }));
    await stack.client.sendMessage(visitor(bot.uniqueId, 'two', { sessionId: session('s2') }));
    await stack.client.sendMessage(visitor(kept.uniqueId, 'three', { sessionId: session('s1') }));
    expect(await stack.parts.prisma.conversation.count({ where: { chatbotId: bot.id } })).toBe(2);
    const turnKeys = (chatbotId: string) => stack.redis.keys(redisKeys(stack.prefix).chatTurns(chatbotId, '*'));
    expect(await turnKeys(bot.id)).toHaveLength(2);

    await stack.chatbots.deleteChatbot({ ownerId: bot.ownerId, chatbotId: bot.id });
    await until(async () => (await stack.parts.prisma.conversation.count({ where: { chatbotId: bot.id } })) === 0);
    expect(await stack.parts.prisma.message.count({ where: { conversation: { chatbotId: bot.id } } })).toBe(0);
    expect(await stack.parts.prisma.conversation.count({ where: { chatbotId: kept.id } })).toBe(1);
    // ...and the recent turns kept for its conversations in Redis, not another chatbot's.
    await until(async () => (await turnKeys(bot.id)).length === 0);
    expect(await turnKeys(kept.id)).toHaveLength(1);
  });
});

describe("the chatbot's interactions", () => {
  it("are counted by the chatbot service from the analytics worker's ChatbotInteractionsCounted, once per answer", async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    await stack.client.sendMessage(visitor(bot.uniqueId, 'one'));
    await stack.client.sendMessage(visitor(bot.uniqueId, 'two'));
    const counted = async () => (await stack.chatbots.getChatbot({ ownerId: bot.ownerId, chatbotId: bot.id })).chatbot!;
    await until(async () => (await counted()).interactions === 2n);
    expect((await counted()).lastInteraction).toBeDefined();
  });
});
