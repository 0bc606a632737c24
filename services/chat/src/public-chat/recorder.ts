// What an answered message leaves behind, once the visitor has the answer (or is about to): the
// exchange stored (conversation-store.ts, on the exchange pool of ADR 0007; a new conversation with
// what the host page told of its visitor), UsageRecorded (with a model: billing settles the hold and
// counts the exact cost in the chatbot's spend today) and ChatbotInteraction published (what
// analytics counts: usage/publishers.ts), and the next message's history kept in Redis. The writes
// are independent and go side by side; the answer waits for the exchange and the history, not for
// the events, which join their batch and are published within a few milliseconds (ADR 29). The
// answer is already the visitor's, so a failure is logged, never thrown (a missing UsageRecorded
// leaves its hold to cover it until the reconciliation settles it from the stored exchange, ADR 37;
// an exchange not stored, or not stored because
// the chatbot was deleted meanwhile, leaves the answer without an id).
import { DEFAULT_LANGUAGE, readLanguage } from '@parley/proto/language.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { Interaction, Usage } from '../usage/publishers.ts';
import type { Turn } from './build-prompt.ts';
import type { CitedAnswer } from './citations.ts';
import { recordExchange, type ExchangePool } from './conversation-store.ts';
import type { HistorySource } from './history-source.ts';
import type { ModelAnswer } from '../models/language-model.ts';
import type { PreparedTurn } from './prepared-turn.ts';
import { asStored } from './privacy.ts';
import type { ReasonCode } from '../core/reasons.ts';

export interface Recorder {
  /**
   * `answer`: as the visitor sees it. `usage`: the model's (billed); null offline or for a Q&A answer
   * (nothing billed). Resolves to the stored answer's id, empty when it could not be stored.
   */
  record(turn: PreparedTurn, answer: CitedAnswer, usage: ModelAnswer | null, reason?: ReasonCode | null): Promise<string>;
}

export interface RecorderDeps {
  /** The exchange pool (ADR 0007). */
  exchanges: ExchangePool;
  history: Pick<HistorySource, 'remember' | 'forget'>;
  /** Joins the usage to its batch; never throws (a batch that cannot be published is logged). */
  publishUsage: (usage: Usage) => void;
  /** Joins the interaction to its batch; never throws. */
  publishInteraction: (interaction: Interaction) => void;
  logger: Logger;
}

/** What billing is told of a model's answer (UsageRecorded): the hold it settles and the exact tokens it debits. */
export function billedUsage(turn: PreparedTurn, usage: ModelAnswer, answeredAt: Date): Usage {
  const { requestId, input, chatbot } = turn;
  return {
    requestId,
    ownerId: chatbot.ownerId,
    chatbotId: chatbot.id,
    chatbotName: chatbot.name,
    // The model that answered (the chatbot's, or its fallback), never the visitor's `model` field.
    model: usage.model,
    provider: usage.provider,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedPromptTokens: usage.cachedPromptTokens,
    reasoningTokens: usage.reasoningTokens,
    fallback: usage.fallback,
    ownKey: usage.ownKey ?? false,
    occurredAt: answeredAt,
    apiKeyId: input.apiKeyId ?? '',
  };
}

export function recorder(deps: RecorderDeps): Recorder {
  return {
    async record(turn, answer, usage, reason) {
      const { requestId, input, chatbot, privacy } = turn;
      // As the owner chose (privacy.ts): the visitor's words as typed, or as the model read them.
      const message = asStored(privacy, input.message);
      // A model's answer may echo them; the owner's answer to a Q&A pair and offline quotes do not.
      const text = turn.kind === 'model' ? asStored(privacy, answer.message) : answer.message;
      const answeredAt = new Date();
      // The knowledge answered: the answer cites a source, or is the owner's answer to a Q&A pair.
      const answered = turn.kind === 'qa' || answer.sources.length > 0;
      const log = deps.logger.child({ requestId, chatbotId: chatbot.id });
      let messageId = '';
      // What billing is told of the model's answer; kept on the stored answer too (ADR 37).
      const billed: Usage | null = usage ? billedUsage(turn, usage, answeredAt) : null;
      const writes: Promise<void>[] = [
        recordExchange(deps.exchanges, {
          chatbotId: chatbot.id,
          ownerId: chatbot.ownerId,
          sessionId: input.sessionId,
          clientIp: input.clientIp,
          userAgent: input.userAgent,
          visitorId: input.visitorId,
          visitorName: input.visitorName,
          visitorEmail: input.visitorEmail,
          verified: turn.identity.verified ? { userId: turn.identity.userId, email: turn.identity.email } : null,
          message,
          receivedAt: turn.receivedAt,
          answer: text,
          answeredAt,
          answered,
          sources: answer.sources,
          usage: billed,
          reason: reason ?? null,
        }).then(
          (id) => {
            if (id === null) log.info('the chatbot was deleted while it answered: the exchange is not stored');
            messageId = id ?? '';
          },
          (err: Error) => log.error({ err: err.message }, 'storing the conversation failed'),
        ),
      ];
      // Joining a batch does not fail; a fault here must not fail an answer the visitor already has.
      const publish = (what: string, send: () => void) => {
        try {
          send();
        } catch (err) {
          log.error({ err: (err as Error).message }, `publishing ${what} failed`);
        }
      };
      publish('ChatbotInteraction', () =>
        deps.publishInteraction({
          requestId,
          chatbotId: chatbot.id,
          ownerId: chatbot.ownerId,
          sessionId: input.sessionId,
          clientIp: input.clientIp,
          question: message,
          answered,
          receivedAt: turn.receivedAt,
          occurredAt: answeredAt,
          language: readLanguage(chatbot) ?? DEFAULT_LANGUAGE,
          // An answer the knowledge did not give always carries a reason (the unanswered rule's at least).
          reason: reason ?? (answered ? null : 'missing_knowledge'),
        }),
      );
      if (usage && billed) {
        if (!usage.usageReported) log.warn('the provider reported no token usage; billing an estimate');
        publish('UsageRecorded', () => deps.publishUsage(billed));
      }
      if (turn.kind === 'model') {
        // The next message's history: what this prompt was given, then this exchange.
        const history =
          privacy && !privacy.keepOriginal
            ? turn.history.map((t) => ({ role: t.role, content: asStored(privacy, t.content) }))
            : turn.history;
        const turns: Turn[] = [...history, { role: 'user', content: message }, { role: 'assistant', content: text }];
        writes.push(deps.history.remember(chatbot.id, input.sessionId, turns, log));
      } else if (turn.kind === 'qa') {
        // A Q&A answer loads no history, so it cannot extend what is kept: the next message reads the stored conversation.
        writes.push(deps.history.forget(chatbot.id, input.sessionId, log));
      }
      await Promise.all(writes);
      return messageId;
    },
  };
}
