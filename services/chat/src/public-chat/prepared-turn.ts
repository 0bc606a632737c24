// Everything known about one visitor's message before its answer is produced: a prompt for the model
// (whose largest cost is already held), the owner's answer to a Q&A pair the message matched, or,
// in offline mode, the passages to quote.
import type { PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { PromptMessage, Turn } from './build-prompt.ts';
import type { Passage, QaAnswer } from './chatbot-context.ts';
import type { DayCount } from './daily-limits.ts';
import type { LanguageModel } from '../models/language-model.ts';
import type { MessageInput } from '../core/message-input.ts';
import type { VisitorIdentity } from './visitor-identity.ts';
import type { TurnPrivacy } from './privacy.ts';
import type { Decision, PendingCall } from './pending-actions.ts';

interface TurnBase {
  /** The answer's id: its credit hold, UsageRecorded (and its job id) and ChatbotInteraction. */
  requestId: string;
  input: MessageInput;
  chatbot: PublicChatbot;
  receivedAt: Date;
  /** Who the visitor is: verified by the chatbot's identity secret, or not (visitor-identity.ts; ask it with identityOf). */
  identity: VisitorIdentity;
  /** Personal data kept from the model (privacy.ts); null: the chatbot does not ask for it. */
  privacy: TurnPrivacy | null;
}

export interface ModelTurn extends TurnBase {
  kind: 'model';
  model: LanguageModel;
  prompt: PromptMessage[];
  /** The passages the prompt numbers ([1] is passages[0]), for the answer's citations. */
  passages: Passage[];
  /** The conversation's history as loaded (the prompt was given it through the turn's privacy). */
  history: Turn[];
  /** The visitor's message as counted today (daily-limits.ts), given back when the model gives no answer. */
  counted: DayCount;
  /** The pending action call the visitor's message confirms or cancels (pending-actions.ts), checked as theirs. */
  decided?: { call: PendingCall; decision: Decision };
}

export interface OfflineTurn extends TurnBase {
  kind: 'offline';
  /** The retrieved passages the answer quotes. */
  passages: Passage[];
}

/** A message that matched one of the owner's Q&A pairs: the owner's answer, verbatim, with no model and no cost. */
export interface QaTurn extends TurnBase {
  kind: 'qa';
  qa: QaAnswer;
}

export type PreparedTurn = ModelTurn | OfflineTurn | QaTurn;
