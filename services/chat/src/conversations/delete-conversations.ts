// A deleted chatbot's conversations go with it (their messages by the foreign key's cascade), and so
// do the recent turns kept for them in Redis. The one rule for "this chatbot is gone", used for a
// ChatbotDeleted event and, per chatbot, for a deleted owner's AccountDeleted.
//
// The chatbot is marked deleted first (deleted-chatbots.ts), so an analytics event still queued for
// it, or a visitor's rating, counts nothing afterwards rather than recreating the figures deleted here.
// The recent turns go next: an owner's chatbots are found from their conversations
// (delete-owner-conversations.ts), so if a step fails the retry must still find the conversations.
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { RecentTurns } from '../public-chat/recent-turns.ts';
import { deleteChatbotAnalytics } from '../analytics/delete-analytics.ts';
import { recordChatbotDeleted } from '../core/deleted-chatbots.ts';
import { isUuid } from '@parley/common/ids.ts';

export interface DeleteChatbotConversationsDeps {
  db: PrismaClient;
  /** Where recent turns are kept (recent-turns.ts); none: nothing is kept. */
  recentTurns?: Pick<RecentTurns, 'forgetChatbot'>;
  /** Removes the chatbot's messaging channel connections, at the provider too (channels/connections.ts); none: its rows alone. */
  removeChannels?: (chatbotId: string) => Promise<unknown>;
}

export interface ChatbotConversationsDeleted {
  conversations: number;
  recentTurns: number;
}

/** Returns what was removed; an id that cannot be a chatbot's removes nothing. */
export async function deleteChatbotConversations(
  deps: DeleteChatbotConversationsDeps,
  rawChatbotId: string,
): Promise<ChatbotConversationsDeleted> {
  if (!isUuid(rawChatbotId)) return { conversations: 0, recentTurns: 0 };
  const chatbotId = rawChatbotId.toLowerCase();
  await recordChatbotDeleted(deps.db, chatbotId);
  const recentTurns = (await deps.recentTurns?.forgetChatbot(chatbotId)) ?? 0;
  await deleteChatbotAnalytics(deps.db, chatbotId);
  // Its channels' credentials go too (ADR 44): before the conversations, so a retry still finds the chatbot.
  await (deps.removeChannels ? deps.removeChannels(chatbotId) : deps.db.channelConnection.deleteMany({ where: { chatbotId } }));
  const { count: conversations } = await deps.db.conversation.deleteMany({ where: { chatbotId } });
  return { conversations, recentTurns };
}
