import type { Chatbot, PrismaClient } from '../generated/prisma/client.ts';
import { parseOwnerId } from '../core/chatbot-input.ts';

/** The owner's chatbots, newest first. */
export async function listChatbots(db: PrismaClient, rawOwnerId: string): Promise<Chatbot[]> {
  const ownerId = parseOwnerId(rawOwnerId);
  return db.chatbot.findMany({ where: { ownerId }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] });
}
