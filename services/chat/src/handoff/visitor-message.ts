// The visitor's message while a person has the conversation (public-chat/visitor-handoff.ts): ONE
// statement stores it, only if the conversation is still waiting or human, then it is published on
// the visitor's channel (their other tabs, and the agent's view through the inbox) and the inbox row
// on the workspace's. No model, no credit.
import type { Logger } from '@parley/common/logger.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { VisitorHandoff } from '../public-chat/visitor-handoff.ts';
import { handoffView } from '../core/handoff.ts';
import type { HandoffMirror } from './announce.ts';
import { CONVERSATION_COLUMNS, type ConversationRow } from './conversation-moves.ts';
import { LEAD_COLUMNS, inboxItem, messageView } from './live-events.ts';
import type { LivePublisher } from './live-hub.ts';

export interface VisitorMessageDeps {
  db: PrismaClient;
  logger: Logger;
  mirror: HandoffMirror;
  live: LivePublisher;
}

export function visitorHandoff(deps: VisitorMessageDeps): VisitorHandoff {
  return {
    key: (chatbotId, sessionId) => deps.mirror.key(chatbotId, sessionId),
    // A new conversation has no mirror, nor has a chatbot known with handoff off.
    readAlong: (known, { sessionId, newConversation }) =>
      known.handoffOn === true && !newConversation ? deps.mirror.key(known.id, sessionId) : null,
    read: (chatbotId, sessionId) => deps.mirror.read(chatbotId, sessionId),
    limitStopped: (chatbotId, sessionId, at) => deps.mirror.limitStopped(chatbotId, sessionId, at),
    async keep({ chatbot, sessionId, message, receivedAt }) {
      const [row] = await deps.db.$queryRawUnsafe<
        (ConversationRow & { messageId: bigint; messageAt: Date; leadName: string | null; leadEmail: string | null })[]
      >(
        `WITH c AS (
           UPDATE "Conversation" SET "messageCount" = "messageCount" + 1, "updatedAt" = $4::timestamptz
            WHERE "chatbotId" = $1::uuid AND "sessionId" = $2 AND "handoffStatus" IN ('waiting', 'human')
           RETURNING ${CONVERSATION_COLUMNS}
         ), m AS (
           INSERT INTO "Message" ("conversationId", "role", "content", "createdAt")
           SELECT c."id", 'user', $3, $4::timestamptz FROM c
           RETURNING "id", "createdAt"
         )
         SELECT c.*, m."id" AS "messageId", m."createdAt" AS "messageAt", ${LEAD_COLUMNS} FROM c, m`,
        chatbot.id,
        sessionId,
        message,
        receivedAt.toISOString(),
      );
      if (!row) {
        // The mirror said a person has it, the store says the bot does: the mirror goes, the bot answers.
        await deps.mirror
          .write(chatbot.id, sessionId, { status: 'bot', agentName: '', waitingSince: null, timedOut: false })
          .catch((err: Error) => deps.logger.warn({ err: err.message }, 'deleting a stale handoff mirror failed'));
        return null;
      }
      const stored = messageView({
        id: row.messageId,
        role: 'user',
        content: message,
        authorName: null,
        createdAt: row.messageAt,
        sources: null,
      });
      await deps.live.conversation(row.id, { kind: 'message', message: stored });
      await deps.live.inbox(
        row.ownerId,
        inboxItem({ ...row, lastMessage: message, lastMessageAt: row.messageAt, lastVisitorMessage: message }),
      );
      return handoffView(row);
    },
  };
}
