// Reason codes (docs/adr/0065-reason-codes.md): why an answer could not help the visitor, carried by
// the answer, by the handoff asked after it and by the group of unanswered questions it joined. One
// deterministic rule per source, in this order of precedence (pure: no I/O):
//   asked_for_person   the visitor's message asks for a person (core/handoff.ts's phrases)
//   (the model's)      the built-in handoff tool called with a `reason` among MODEL_REASONS
//   action_failed      a tool (HTTP action or MCP tool) of the turn failed, was refused or not run
//   missing_knowledge  the answer cites nothing and is no Q&A pair's (the unanswered rule)
// limit_reached is never the answer's: a visitor, spend or credit limit stops a message before any
// answer, and the handoff asked after that stop takes it (handoff/request-handoff.ts).
import { invalid } from '@parley/common/rpc-errors.ts';
import { asksForPerson } from './handoff.ts';

export const REASON_CODES = ['missing_knowledge', 'asked_for_person', 'not_supported', 'action_failed', 'limit_reached'] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/** The reasons the model may give its handoff tool: limit_reached is the product's, never the model's. */
export const MODEL_REASONS = [
  'missing_knowledge',
  'asked_for_person',
  'not_supported',
  'action_failed',
] as const satisfies readonly ReasonCode[];

export const BAD_REASON = `Reason must be one of ${REASON_CODES.join(', ')}`;

export const isReasonCode = (value: unknown): value is ReasonCode =>
  typeof value === 'string' && (REASON_CODES as readonly string[]).includes(value);

/** A stored or sent reason read back: a code, or null for anything else. */
export const readReason = (value: unknown): ReasonCode | null => (isReasonCode(value) ? value : null);

/** A caller's `reason` filter: empty for none, a code, or INVALID_ARGUMENT. */
export function parseReasonFilter(raw: string | undefined): ReasonCode | null {
  const reason = (raw ?? '').trim().toLowerCase();
  if (!reason) return null;
  if (!isReasonCode(reason)) throw invalid(BAD_REASON);
  return reason;
}

export interface TurnFacts {
  /** The visitor's message, as typed. */
  message: string;
  /** The answer cites nothing and is no Q&A pair's. */
  unanswered: boolean;
  /** The reason the model gave its handoff tool (already checked against MODEL_REASONS); absent when none. */
  modelReason?: ReasonCode;
  /** A tool of the turn failed, was refused or was not run. */
  toolFailed?: boolean;
  /** The handoff was offered (the phrase or unanswered rule, or the model's tool). */
  offerHandoff: boolean;
}

/** Why the answer could not help, or null when it helped (it cites the knowledge and nobody was offered). */
export function turnReason(t: TurnFacts): ReasonCode | null {
  if (asksForPerson(t.message)) return 'asked_for_person';
  if (t.modelReason) return t.modelReason;
  if (t.toolFailed) return 'action_failed';
  // The unanswered rule, or the model's handoff tool called without a reason: the knowledge did not help.
  if (t.unanswered || t.offerHandoff) return 'missing_knowledge';
  return null;
}

const limitStops = new WeakSet<object>();

/** Marks a refusal as a visitor, spend or credit limit that stopped the message (its handoff's limit_reached). */
export function limitStop<E extends object>(err: E): E {
  limitStops.add(err);
  return err;
}

/** Whether a turn's refusal was a limit's (limitStop). */
export const isLimitStop = (err: unknown): boolean => typeof err === 'object' && err !== null && limitStops.has(err);
