// A chatbot's lead form and handoff to a person (docs/adr/0034-humans-in-the-loop.md): the owner's
// changes validated with the messages owners see, as the Chatbot row's lead*/handoff* columns. Pure:
// whether the owner may turn handoff on is the plan's question, asked by update-chatbot.ts.
import { invalid } from '@parley/common/rpc-errors.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';

export const LEAD_FIELD_MODES = ['off', 'optional', 'required'] as const;
export type LeadFieldMode = (typeof LEAD_FIELD_MODES)[number];
export const LEAD_TRIGGERS = ['before_first_message', 'after_messages', 'when_unanswered'] as const;
export type LeadTrigger = (typeof LEAD_TRIGGERS)[number];

export const MIN_AFTER_MESSAGES = 1;
export const MAX_AFTER_MESSAGES = 50;
export const CONSENT_MAX_CHARS = 500;
export const MIN_HANDOFF_TIMEOUT_SECONDS = 30;
export const MAX_HANDOFF_TIMEOUT_SECONDS = 3600;

export const LEAD_FIELD_INVALID = 'Each lead form field must be off, optional or required.';
export const LEAD_TRIGGER_INVALID = 'The lead form shows before the first message, after some messages or when a question is unanswered.';
export const AFTER_MESSAGES_INVALID = `The lead form shows after ${MIN_AFTER_MESSAGES} to ${MAX_AFTER_MESSAGES} messages.`;
export const CONSENT_TOO_LONG = `The consent line must be at most ${CONSENT_MAX_CHARS} characters.`;
export const CONSENT_NOT_TEXT = 'The consent line must be plain text on one line.';
export const HANDOFF_TIMEOUT_INVALID = `The wait for a person must be ${MIN_HANDOFF_TIMEOUT_SECONDS} to ${MAX_HANDOFF_TIMEOUT_SECONDS} seconds.`;
export const HANDOFF_PRO_ONLY = 'Handoff to a person is available on the Pro plan.';

/** The proto's LeadFormChange: only the fields present change. */
export interface LeadFormChangeInput {
  name?: string;
  email?: string;
  phone?: string;
  trigger?: string;
  afterMessages?: number;
  consentText?: string;
}

/** The proto's HandoffChange: only the fields present change. */
export interface HandoffChangeInput {
  enabled?: boolean;
  timeoutSeconds?: number;
}

export interface LeadHandoffChange {
  leadForm?: LeadFormChangeInput;
  handoff?: HandoffChangeInput;
}

/** The validated change, as the Chatbot row's columns (undefined: unchanged). */
export interface LeadHandoffUpdate {
  leadName?: LeadFieldMode;
  leadEmail?: LeadFieldMode;
  leadPhone?: LeadFieldMode;
  leadTrigger?: LeadTrigger;
  leadAfterMessages?: number;
  leadConsentText?: string;
  handoffEnabled?: boolean;
  handoffTimeoutSeconds?: number;
}

const isOneOf = <T extends string>(values: readonly T[], value: string): value is T => (values as readonly string[]).includes(value);

export function parseLeadFieldMode(raw: string): LeadFieldMode {
  const mode = raw.trim().toLowerCase();
  if (!isOneOf(LEAD_FIELD_MODES, mode)) throw invalid(LEAD_FIELD_INVALID);
  return mode;
}

export function parseLeadTrigger(raw: string): LeadTrigger {
  const trigger = raw.trim().toLowerCase();
  if (!isOneOf(LEAD_TRIGGERS, trigger)) throw invalid(LEAD_TRIGGER_INVALID);
  return trigger;
}

export function parseAfterMessages(value: number): number {
  if (!Number.isInteger(value) || value < MIN_AFTER_MESSAGES || value > MAX_AFTER_MESSAGES) throw invalid(AFTER_MESSAGES_INVALID);
  return value;
}

/** The owner's consent line, trimmed; empty: none. */
export function parseConsentText(raw: string): string {
  const text = raw.trim();
  if (hasControlCharacters(text)) throw invalid(CONSENT_NOT_TEXT);
  if ([...text].length > CONSENT_MAX_CHARS) throw invalid(CONSENT_TOO_LONG);
  return text;
}

export function parseHandoffTimeout(value: number): number {
  if (!Number.isInteger(value) || value < MIN_HANDOFF_TIMEOUT_SECONDS || value > MAX_HANDOFF_TIMEOUT_SECONDS)
    throw invalid(HANDOFF_TIMEOUT_INVALID);
  return value;
}

export function parseLeadHandoffChange(change: LeadHandoffChange): LeadHandoffUpdate {
  const { leadForm = {}, handoff = {} } = change;
  const optional = <T, R>(value: T | undefined, parse: (v: T) => R) => (value === undefined ? undefined : parse(value));
  return {
    leadName: optional(leadForm.name, parseLeadFieldMode),
    leadEmail: optional(leadForm.email, parseLeadFieldMode),
    leadPhone: optional(leadForm.phone, parseLeadFieldMode),
    leadTrigger: optional(leadForm.trigger, parseLeadTrigger),
    leadAfterMessages: optional(leadForm.afterMessages, parseAfterMessages),
    leadConsentText: optional(leadForm.consentText, parseConsentText),
    handoffEnabled: handoff.enabled,
    handoffTimeoutSeconds: optional(handoff.timeoutSeconds, parseHandoffTimeout),
  };
}
