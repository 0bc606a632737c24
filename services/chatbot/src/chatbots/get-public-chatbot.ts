// The public face of a chatbot, looked up by its unguessable uniqueId for the public chat page.
import { notFound } from '@parley/common/rpc-errors.ts';
import type { Chatbot, PrismaClient } from '../generated/prisma/client.ts';

export const PUBLIC_CHATBOT_NOT_FOUND = 'Chatbot not found or inactive';

export async function getPublicChatbot(db: PrismaClient, rawUniqueId: string): Promise<Chatbot> {
  const uniqueId = rawUniqueId.trim();
  // Anything that cannot be one of our ids is not looked up at all.
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(uniqueId)) throw notFound(PUBLIC_CHATBOT_NOT_FOUND);
  const chatbot = await db.chatbot.findUnique({ where: { uniqueId } });
  if (!chatbot || !chatbot.isActive) throw notFound(PUBLIC_CHATBOT_NOT_FOUND);
  return chatbot;
}
