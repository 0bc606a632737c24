// Before the model is called, the largest possible cost of the answer is held against the owner's
// credit and the chatbot's spend today (billing's ReserveCredit, atomic against balance − credit
// already held, and against the chatbot's daily spend limit: spent + held), so of N messages at once
// on a balance or a limit that covers k answers at most k are answered, whatever the chat instances.
// Billing decides every money rule; this service only passes the chatbot's limit along. No hold, no
// answer: the visitor gets "temporarily unavailable", as for an owner without credit, or the day's
// limit (429) when the chatbot's daily spend limit refused it.
//
// The hold is settled to the exact cost by the answer's UsageRecorded event (same request id, in
// billing's debit statement), released here when the model fails, and expires in billing otherwise
// (a crash, or a UsageRecorded that could not be published: it may still have reached the queue,
// so its hold is left to cover it rather than released).
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { SPEND_LIMIT_REACHED_HEADER } from '@parley/common/rpc-errors.ts';
import type { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import type { PromptMessage } from './build-prompt.ts';
import { dailyLimitReached } from './daily-limits.ts';
import { chatbotUnavailable } from '../core/visitor-errors.ts';
import { limitStop } from '../core/reasons.ts';

/** Tokens a chat format adds around each message (OpenAI's: 3–4 with the role), and once more for the reply's priming; kept generous. */
export const MESSAGE_OVERHEAD_TOKENS = 8;

/**
 * An upper bound of the prompt's tokens, without a tokenizer: a token of a byte-level BPE tokenizer
 * (OpenAI's, Llama 3's; SentencePiece's byte fallback likewise) stands for at least one byte of
 * text, so a text has at most as many tokens as UTF-8 bytes. The bound is loose (about four times
 * the real count for English) but never too low, which is what a hold needs. Should a provider
 * still report more, billing debits the exact reported cost all the same (the hold only limits
 * how many answers start).
 */
export function maxPromptTokens(messages: PromptMessage[]): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS; // the reply's priming
  for (const m of messages) tokens += Buffer.byteLength(m.content, 'utf8') + MESSAGE_OVERHEAD_TOKENS;
  return tokens;
}

export interface CreditReservation {
  /** The answer's request id: the hold's key, then UsageRecorded's. */
  requestId: string;
  ownerId: string;
  /** The catalogue model whose price the hold is counted at (the dearer of a chatbot's model and its fallback). */
  model: string;
  prompt: PromptMessage[];
  chatbotId: string;
  /** The chatbot's daily spend limit as the chatbot service sends it (exact decimal dollars); null: none. */
  dailySpendLimit: string | null;
  /** Every model that may answer runs on the workspace's own key: billing holds its own-key fee instead of the model's price. */
  ownKey?: boolean;
  /** A tool loop's bounds (tool-loop.ts, loopHoldTokens): every call's prompt and output together; unset: one call's. */
  loop?: { maxPromptTokens: number; maxCompletionTokens: number };
}

export interface CreditGate {
  /** Holds the answer's largest cost (its prompt and the output cap), or throws the visitor's refusal. */
  reserve(reservation: CreditReservation): Promise<void>;
  /** Releases the hold of an answer that was not given. Never throws: an unreleased hold expires in billing. */
  release(requestId: string): Promise<void>;
}

export function creditGate(deps: { billing: Client<typeof BillingService>; logger: Logger; maxOutputTokens: number }): CreditGate {
  const gate: CreditGate = {
    async reserve(reservation) {
      try {
        await deps.billing.reserveCredit({
          requestId: reservation.requestId,
          ownerId: reservation.ownerId,
          model: reservation.model,
          maxPromptTokens: BigInt(reservation.loop?.maxPromptTokens ?? maxPromptTokens(reservation.prompt)),
          maxCompletionTokens: BigInt(reservation.loop?.maxCompletionTokens ?? deps.maxOutputTokens),
          chatbotId: reservation.chatbotId,
          dailySpendLimit: reservation.dailySpendLimit ?? '',
          ownKey: reservation.ownKey ?? false,
        });
      } catch (err) {
        const refused = err instanceof ConnectError && err.code === Code.ResourceExhausted;
        // The spend limit, or no credit left: limits that stopped the answer (core/reasons.ts).
        if (refused && err.metadata.get(SPEND_LIMIT_REACHED_HEADER) === 'true') throw limitStop(dailyLimitReached());
        if (refused) throw limitStop(chatbotUnavailable());
        if (!refused) {
          deps.logger.warn({ err: (err as Error).message, requestId: reservation.requestId }, 'billing ReserveCredit failed');
          // Billing may have made the hold all the same (an answer lost on the way back): no answer follows, so it goes.
          void gate.release(reservation.requestId);
        }
        throw chatbotUnavailable();
      }
    },
    async release(requestId) {
      try {
        await deps.billing.releaseCredit({ requestId });
      } catch (err) {
        deps.logger.warn({ err: (err as Error).message, requestId }, 'billing ReleaseCredit failed; the hold expires on its own');
      }
    },
  };
  return gate;
}
