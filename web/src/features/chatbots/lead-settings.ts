// The lead form and handoff settings as the cards edit them (docs/product.md, Leads). The chatbot
// service owns the rules and its messages are shown as they come; these bounds only shape the inputs.
import type { HandoffInput, LeadFieldMode, LeadFormInput, LeadTrigger } from '../../gql/graphql';

export const MIN_AFTER_MESSAGES = 1;
export const MAX_AFTER_MESSAGES = 50;
export const MAX_CONSENT_CHARS = 500;
export const MIN_HANDOFF_SECONDS = 30;
export const MAX_HANDOFF_SECONDS = 3600;

export const LEAD_FIELD_OPTIONS: ReadonlyArray<{ value: LeadFieldMode; label: string }> = [
  { value: 'off', label: 'Off' },
  { value: 'optional', label: 'Optional' },
  { value: 'required', label: 'Required' },
];

export const LEAD_TRIGGER_OPTIONS: ReadonlyArray<{ value: LeadTrigger; label: string }> = [
  { value: 'before_first_message', label: 'Before the first message' },
  { value: 'after_messages', label: 'After a number of messages' },
  { value: 'when_unanswered', label: 'When a question goes unanswered' },
];

export interface LeadFormSettings {
  name: LeadFieldMode;
  email: LeadFieldMode;
  phone: LeadFieldMode;
  trigger: LeadTrigger;
  /** As typed, so a half-typed number is not lost; the service refuses what is out of range. */
  afterMessages: string;
  consentText: string;
}

export interface HandoffSettings {
  enabled: boolean;
  /** Whole minutes as typed (the service keeps seconds). */
  timeoutMinutes: string;
}

export const leadFormSettings = (form: Omit<LeadFormSettings, 'afterMessages'> & { afterMessages: number }): LeadFormSettings => ({
  name: form.name,
  email: form.email,
  phone: form.phone,
  trigger: form.trigger,
  afterMessages: String(form.afterMessages),
  consentText: form.consentText,
});

export const handoffSettings = (handoff: { enabled: boolean; timeoutSeconds: number }): HandoffSettings => ({
  enabled: handoff.enabled,
  timeoutMinutes: String(Math.round((handoff.timeoutSeconds / 60) * 10) / 10),
});

/** A typed number, or NaN for the service to refuse with its message ("" and "abc" alike). */
const typedNumber = (raw: string) => (raw.trim() === '' ? Number.NaN : Number(raw));

export function leadFormInput(settings: LeadFormSettings): LeadFormInput {
  const afterMessages = typedNumber(settings.afterMessages);
  return {
    name: settings.name,
    email: settings.email,
    phone: settings.phone,
    trigger: settings.trigger,
    // A number GraphQL cannot carry as Int travels as 0, which the service refuses with its message.
    afterMessages: Number.isInteger(afterMessages) ? afterMessages : 0,
    consentText: settings.consentText.trim(),
  };
}

export function handoffInput(settings: HandoffSettings): HandoffInput {
  const minutes = typedNumber(settings.timeoutMinutes);
  return { enabled: settings.enabled, timeoutSeconds: Number.isFinite(minutes) ? Math.round(minutes * 60) : 0 };
}

/** Whether the form asks for anything at all (every field off: no form in the chat). */
export const formIsOn = (settings: Pick<LeadFormSettings, 'name' | 'email' | 'phone'>) =>
  settings.name !== 'off' || settings.email !== 'off' || settings.phone !== 'off';
