// The conversation's history for the prompt: the recent turns kept in Redis (recent-turns.ts, ADR
// 0008), which admission reads along for a chatbot this instance knows (ReadAlong), or else the
// stored conversation in PostgreSQL (its first message here, a session idle past the Redis entry's
// expiry, a malformed entry, Redis having lost it). Kept turns are trusted only when they were read
// for the very chatbot the chatbot service confirmed, and are fitted to the budget again. A
// conversation opened by this very message (its session id issued for it) has no turns: nothing is read.
import { redisKeys } from '@parley/common/redis-keys.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { fitHistory, type Turn } from './build-prompt.ts';
import { sameChatbot, type AdmittedConversation, type KnownChatbot, type ReadAlong, type Sighting } from '../core/admission.ts';
import { loadRecentTurns } from './conversation-store.ts';
import { parseRecentTurns, type RecentTurns } from './recent-turns.ts';
import { answerFailed } from '../core/visitor-errors.ts';

export interface HistorySource extends ReadAlong {
  /** The turns for the prompt, within the history budget, oldest first. */
  load(chatbot: KnownChatbot, conversation: AdmittedConversation, sighting: Sighting | null): Promise<Turn[]>;
  /** Keeps the next message's history; when that fails, forgets the entry so no older list stands. Never throws. */
  remember(chatbotId: string, sessionId: string, turns: Turn[], log: Logger): Promise<void>;
  /** Drops the kept turns, so the next message reads the stored conversation (after an exchange recorded without its history). Never throws. */
  forget(chatbotId: string, sessionId: string, log: Logger): Promise<void>;
}

export function historySource(deps: {
  db: PrismaClient;
  recentTurns: RecentTurns;
  prefix: string;
  budgetChars: number;
  logger: Logger;
}): HistorySource {
  const keys = redisKeys(deps.prefix);
  return {
    readAlong: (known, { sessionId }) => keys.chatTurns(known.id, sessionId),
    async load(chatbot, { sessionId, newConversation }, sighting) {
      // Its session id was issued a moment ago, so no message of it can be stored or kept (measured:
      // the read cost the chat service about 160 µs of CPU, and PostgreSQL a query, per new conversation).
      if (newConversation) return [];
      const value = sighting && sameChatbot(sighting.chatbot, chatbot) ? sighting.valueAt(keys.chatTurns(chatbot.id, sessionId)) : null;
      const kept = value ? parseRecentTurns(value) : null;
      if (kept) return fitHistory(kept, deps.budgetChars);
      try {
        return await loadRecentTurns(deps.db, { chatbotId: chatbot.id, sessionId }, deps.budgetChars);
      } catch (err) {
        deps.logger.warn({ err: (err as Error).message, step: 'history' }, 'public chat dependency failed');
        throw answerFailed();
      }
    },
    async remember(chatbotId, sessionId, turns, log) {
      try {
        await deps.recentTurns.keep(chatbotId, sessionId, turns);
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'keeping the recent turns failed');
        await deps.recentTurns.forget(chatbotId, sessionId).catch(() => {});
      }
    },
    async forget(chatbotId, sessionId, log) {
      await deps.recentTurns
        .forget(chatbotId, sessionId)
        .catch((err: Error) => log.warn({ err: err.message }, 'forgetting the recent turns failed'));
    },
  };
}
