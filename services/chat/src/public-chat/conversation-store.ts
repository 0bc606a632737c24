// A conversation's messages as the public chat reads and writes them: the recent turns for the
// prompt, and each answered exchange (the visitor's message and the answer, stored together).
import type { PrismaClient } from '../generated/prisma/client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { fitHistory, type Turn } from './build-prompt.ts';

/** Messages read for the prompt's history at most; the character budget usually stops sooner. */
const MAX_HISTORY_MESSAGES = 40;

export interface ConversationKey {
  chatbotId: string;
  sessionId: string;
}

export async function loadRecentTurns(db: PrismaClient, key: ConversationKey, budgetChars: number): Promise<Turn[]> {
  if (budgetChars <= 0) return [];
  const rows = await db.message.findMany({
    where: { conversation: { chatbotId: key.chatbotId, sessionId: key.sessionId }, role: { in: ['user', 'assistant'] } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: MAX_HISTORY_MESSAGES,
    select: { role: true, content: true },
  });
  const turns = rows.reverse().map((r) => ({ role: r.role as Turn['role'], content: r.content }));
  return fitHistory(turns, budgetChars);
}

export interface Exchange extends ConversationKey {
  ownerId: string;
  clientIp: string | null;
  userAgent: string | null;
  message: string;
  receivedAt: Date;
  answer: string;
  answeredAt: Date;
}

/**
 * Stores both messages in one transaction, opening the conversation on its first exchange (with the
 * visitor's IP and user agent) and otherwise advancing its updatedAt and message count.
 */
export async function recordExchange(db: PrismaClient, x: Exchange): Promise<void> {
  const write = () =>
    db.$transaction(async (tx) => {
      const conversation = await tx.conversation.upsert({
        where: { chatbotId_sessionId: { chatbotId: x.chatbotId, sessionId: x.sessionId } },
        create: {
          chatbotId: x.chatbotId,
          ownerId: x.ownerId,
          sessionId: x.sessionId,
          userIp: x.clientIp,
          userAgent: x.userAgent,
          messageCount: 2,
          createdAt: x.receivedAt,
          updatedAt: x.answeredAt,
        },
        update: { messageCount: { increment: 2 }, updatedAt: x.answeredAt },
        select: { id: true },
      });
      await tx.message.createMany({
        data: [
          { conversationId: conversation.id, role: 'user', content: x.message, createdAt: x.receivedAt },
          { conversationId: conversation.id, role: 'assistant', content: x.answer, createdAt: x.answeredAt },
        ],
      });
    });
  try {
    await write();
  } catch (err) {
    // Two first messages of one session at once: the loser of the insert race finds the row on retry.
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') return void (await write());
    throw err;
  }
}
