// The chatbot's lead form as the public lookup gives it (docs/product.md, Leads), and when it is due
// in a conversation. Pure: the page's hook (use-lead-form.ts) holds the state.

export type LeadFieldMode = 'off' | 'optional' | 'required';
export type LeadTrigger = 'before_first_message' | 'after_messages' | 'when_unanswered';
export type LeadField = 'name' | 'email' | 'phone';
export const LEAD_FIELDS: readonly LeadField[] = ['name', 'email', 'phone'];

export interface LeadFormConfig {
  name: LeadFieldMode;
  email: LeadFieldMode;
  phone: LeadFieldMode;
  trigger: LeadTrigger;
  afterMessages: number;
  /** The owner's consent line; empty: no checkbox. */
  consentText: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

const mode = (value: unknown): LeadFieldMode => (value === 'optional' || value === 'required' ? value : 'off');

/** The form in the public lookup's `leadForm`, or null when it asks for nothing (or the server sent none). */
export function readLeadForm(value: unknown): LeadFormConfig | null {
  if (!isRecord(value)) return null;
  const form: LeadFormConfig = {
    name: mode(value.name),
    email: mode(value.email),
    phone: mode(value.phone),
    trigger: value.trigger === 'after_messages' || value.trigger === 'when_unanswered' ? value.trigger : 'before_first_message',
    afterMessages: typeof value.afterMessages === 'number' && value.afterMessages >= 1 ? Math.floor(value.afterMessages) : 2,
    consentText: typeof value.consentText === 'string' ? value.consentText.trim() : '',
  };
  return LEAD_FIELDS.some((field) => form[field] !== 'off') ? form : null;
}

/** Whether the visitor may close the form without sending it: nothing in it is required. */
export const canSkip = (form: LeadFormConfig) => LEAD_FIELDS.every((field) => form[field] !== 'required');

export interface ConversationProgress {
  /** How many messages the visitor has sent. */
  visitorMessages: number;
  /** The latest answer came back unanswered (the knowledge held none). */
  lastUnanswered: boolean;
  /** A reply is on its way: the form waits for it. */
  pending: boolean;
}

/** Whether the form should show now: before the first message, after N of the visitor's messages, or after an unanswered answer. */
export function leadFormDue(form: LeadFormConfig, progress: ConversationProgress): boolean {
  if (progress.pending) return false;
  switch (form.trigger) {
    case 'before_first_message':
      return true;
    case 'after_messages':
      return progress.visitorMessages >= form.afterMessages;
    case 'when_unanswered':
      return progress.lastUnanswered;
  }
}

export interface LeadValues {
  name: string;
  email: string;
  phone: string;
  consent: boolean;
}

export const fieldLabels: Record<LeadField, string> = { name: 'Name', email: 'Email', phone: 'Phone' };
