// A deleted chatbot's conversations go with it (their messages by the foreign key's cascade).
import type { PrismaClient } from '../generated/prisma/client.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Returns how many conversations were removed; an id that cannot be a chatbot's removes nothing. */
export async function deleteChatbotConversations(db: PrismaClient, chatbotId: string): Promise<number> {
  if (!UUID.test(chatbotId)) return 0;
  const { count } = await db.conversation.deleteMany({ where: { chatbotId: chatbotId.toLowerCase() } });
  return count;
}
