// The member's role on the gateway's calls (docs/adr/0030-workspaces.md): each owner-facing method
// needs the permission of src/permissions.ts (a viewer reads analytics, not visitors' conversations),
// a gateway call without a role is refused, and the public chat checks nothing: a visitor's message
// carries no role, and chat's own calls to billing and the chatbot service carry none either.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { DEVELOPMENT_SERVICE_SECRET } from '@parley/common/service-auth.ts';
import { chatPermissions, chatUnchecked } from '../../src/permissions.ts';
import { rpcError, session, startChatStack, visitor, type ChatStack } from './harness.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack();
});
afterAll(async () => {
  await stack?.stop();
});

const as = (role?: string) =>
  createServiceClient(ChatService, stack.url, {
    credentials: { caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET },
    role,
    timeoutMs: 20_000,
  });
const range = { startDate: '2026-01-01', endDate: '2026-01-31' };

describe("the gateway's calls carry the member's role", () => {
  it('names every method of the service: checked with a permission, or public or between services', () => {
    const checked = [...chatPermissions.keys()].map((path) => path.split('/').pop());
    expect([...checked, ...chatUnchecked].sort()).toEqual(ChatService.methods.map((m) => m.name).sort());
  });

  it('lets a viewer read analytics but not conversations or unanswered questions; an agent reads and works them', async () => {
    const bot = await stack.newChatbot();
    await stack.makePro(bot.ownerId);
    const chatbot = { ownerId: bot.ownerId, chatbotId: bot.id };
    const viewer = as('viewer');
    expect((await viewer.getAnalytics({ ...chatbot, ...range })).analytics).toBeDefined();
    expect((await viewer.getAnalyticsSummary({ ownerId: bot.ownerId, ...range })).analytics).toBeDefined();
    // Each call starts when its turn comes: a refusal nobody awaits yet would be an unhandled rejection.
    for (const call of [
      () => viewer.listConversations(chatbot),
      () => viewer.listUnansweredQuestions(chatbot),
      () => viewer.countUnansweredQuestions({ ownerId: bot.ownerId }),
      () => viewer.dismissUnansweredQuestion({ ...chatbot, questionId: crypto.randomUUID() }),
    ]) {
      expect((await rpcError(call())).code).toBe(Code.PermissionDenied);
    }
    const agent = as('agent');
    expect((await agent.listConversations(chatbot)).conversations).toEqual([]);
    expect((await agent.countUnansweredQuestions({ ownerId: bot.ownerId })).openByChatbot).toEqual({});
    // Past the role check, the chat service's own answer: no such question.
    expect((await rpcError(agent.dismissUnansweredQuestion({ ...chatbot, questionId: crypto.randomUUID() }))).code).toBe(Code.NotFound);
  });

  it('refuses an owner-facing call without a role', async () => {
    const bot = await stack.newChatbot();
    expect((await rpcError(as().listConversations({ ownerId: bot.ownerId, chatbotId: bot.id }))).code).toBe(Code.PermissionDenied);
  });

  it('answers a visitor without any role: the public chat, with its credit hold at billing, is not checked', async () => {
    const bot = await stack.newChatbot({ knowledge: ['The bakery opens at 7am.'] });
    stack.fake.setBehaviour({ reply: 'We open at 7am.' });
    const res = await as().sendMessage(visitor(bot.uniqueId, 'When do you open?', { sessionId: session('roles-visitor') }));
    expect(res.message).toBe('We open at 7am.');
  });
});

describe("the live inbox's calls carry the member's role", () => {
  it('lets a viewer do nothing in the inbox; an agent reads and works it', async () => {
    const bot = await stack.newChatbot();
    await stack.makePro(bot.ownerId);
    const ownerId = bot.ownerId;
    const conversation = { ownerId, conversationId: crypto.randomUUID(), agent: { id: 'user-1', name: 'Ada' } };
    const reply = { ...conversation, content: 'Hi', clientMessageId: crypto.randomUUID() };
    const viewer = as('viewer');
    for (const call of [
      () => viewer.listInbox({ ownerId }),
      () => viewer.countWaiting({ ownerId }),
      () => viewer.getInboxConversation(conversation),
      () => viewer.claimConversation(conversation),
      () => viewer.replyToConversation(reply),
      () => viewer.addConversationNote(reply),
      () => viewer.handBackConversation(conversation),
      () => viewer.closeConversation(conversation),
      () => viewer.summarizeConversation(conversation),
    ]) {
      expect((await rpcError(call())).code).toBe(Code.PermissionDenied);
    }
    const viewerStream = viewer.watchInbox({ ownerId })[Symbol.asyncIterator]();
    expect((await rpcError(viewerStream.next())).code).toBe(Code.PermissionDenied);

    const agent = as('agent');
    expect(await agent.listInbox({ ownerId })).toMatchObject({ waiting: [], open: [] });
    expect((await agent.countWaiting({ ownerId })).waiting).toBe(0);
    // Past the role check, the chat service's own answer: no such conversation in this workspace.
    for (const call of [
      () => agent.getInboxConversation(conversation),
      () => agent.claimConversation(conversation),
      () => agent.replyToConversation(reply),
      () => agent.addConversationNote(reply),
      () => agent.handBackConversation(conversation),
      () => agent.closeConversation(conversation),
      () => agent.summarizeConversation(conversation),
    ]) {
      expect((await rpcError(call())).code).toBe(Code.NotFound);
    }
    // A visitor asks for a person without any role (and this one holds no conversation).
    expect((await rpcError(as().requestHandoff({ uniqueId: 'no-such-bot', sessionId: session('roles-handoff') }))).code).toBe(
      Code.NotFound,
    );
  });
});
