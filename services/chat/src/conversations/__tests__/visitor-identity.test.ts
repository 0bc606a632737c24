// What the host page told the widget about its visitor (Parley.identify), as the owner reads it back: the
// conversations list, one conversation, and the export's rows. The columns are written here directly
// (the recorder that fills them is the public chat's); absent values read as "".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportRow } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { startChatStack, type ChatStack } from '../../../test/integration/harness.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack();
});
afterAll(async () => {
  await stack?.stop();
});

let opened = 0;

/** A conversation of one visitor question and its answer, told (or not) who the visitor is; each opened a second after the last. */
async function conversation(
  bot: { id: string; ownerId: string },
  sessionId: string,
  visitor: { visitorId: string | null; visitorName: string | null },
) {
  return stack.parts.prisma.conversation.create({
    data: {
      chatbotId: bot.id,
      ownerId: bot.ownerId,
      sessionId,
      messageCount: 2,
      createdAt: new Date(Date.UTC(2026, 10, 1) + ++opened * 1000),
      ...visitor,
      messages: {
        create: [
          { role: 'user', content: `Question of ${sessionId}` },
          { role: 'assistant', content: `Answer to ${sessionId}` },
        ],
      },
    },
  });
}

describe("the visitor's identity", () => {
  it('is in the conversations list, in one conversation and in every exported row of it, "" when not told', async () => {
    const bot = await stack.newChatbot();
    await stack.makePro(bot.ownerId);
    const told = await conversation(bot, 'session-told', { visitorId: 'customer-42', visitorName: 'Zoë Müller' });
    const nameOnly = await conversation(bot, 'session-name-only', { visitorId: null, visitorName: 'Ada' });
    const anonymous = await conversation(bot, 'session-anonymous', { visitorId: null, visitorName: null });

    const { conversations } = await stack.client.listConversations({ ownerId: bot.ownerId, chatbotId: bot.id });
    const byId = new Map(conversations.map((c) => [c.id, [c.visitorId, c.visitorName]]));
    expect(byId).toEqual(
      new Map([
        [told.id, ['customer-42', 'Zoë Müller']],
        [nameOnly.id, ['', 'Ada']],
        [anonymous.id, ['', '']],
      ]),
    );

    const { conversation: one } = await stack.client.getConversation({ ownerId: bot.ownerId, chatbotId: bot.id, conversationId: told.id });
    expect([one?.visitorId, one?.visitorName, one?.messages.length]).toEqual(['customer-42', 'Zoë Müller', 2]);

    const rows: ExportRow[] = [];
    for await (const page of stack.client.exportConversations({ ownerId: bot.ownerId, chatbotId: bot.id })) rows.push(...page.rows);
    // Conversations oldest first: told, name-only, anonymous; two messages each.
    expect(rows.map((r) => [r.sessionId, r.role, r.visitorId, r.visitorName])).toEqual([
      ['session-told', 'user', 'customer-42', 'Zoë Müller'],
      ['session-told', 'assistant', 'customer-42', 'Zoë Müller'],
      ['session-name-only', 'user', '', 'Ada'],
      ['session-name-only', 'assistant', '', 'Ada'],
      ['session-anonymous', 'user', '', ''],
      ['session-anonymous', 'assistant', '', ''],
    ]);
  });
});
