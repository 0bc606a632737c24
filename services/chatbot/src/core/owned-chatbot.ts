// Every owner call goes through here: a chatbot of another owner is answered exactly like one that
// does not exist, so ids cannot be probed.
import { notFound } from '@parley/common/rpc-errors.ts';
import type { Chatbot, Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { CHATBOT_NOT_FOUND, parseChatbotId, parseOwnerId } from './chatbot-input.ts';

export interface OwnedChatbotRef {
  ownerId: string;
  chatbotId: string;
}

/** Validates both ids (a malformed chatbot id is "not found"). */
export function parseOwnedRef(input: OwnedChatbotRef): OwnedChatbotRef {
  return { ownerId: parseOwnerId(input.ownerId), chatbotId: parseChatbotId(input.chatbotId) };
}

export async function findOwnedChatbot(db: PrismaClient | Prisma.TransactionClient, input: OwnedChatbotRef): Promise<Chatbot> {
  const { ownerId, chatbotId } = parseOwnedRef(input);
  const chatbot = await db.chatbot.findFirst({ where: { id: chatbotId, ownerId } });
  if (!chatbot) throw notFound(CHATBOT_NOT_FOUND);
  return chatbot;
}
