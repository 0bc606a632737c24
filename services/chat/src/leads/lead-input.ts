// A visitor's lead (docs/adr/0034-humans-in-the-loop.md), validated at the RPC boundary with the
// messages visitors see. Two pure steps: the fields' form (parseLeadInput, before anything is
// counted or looked up, so a bad email is INVALID_ARGUMENT even for an unknown chatbot), then the
// chatbot's form (checkLeadAgainstForm: a field the form has off is refused, one it requires is
// required, the owner's consent line must be ticked).
import type { LeadForm } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { parseUniqueId } from '@parley/common/public-chatbot.ts';
import { failedPrecondition, invalid } from '@parley/common/rpc-errors.ts';
import { charCount, parseClientIp, parseVisitorField, visitorIdTooLong, visitorNameTooLong } from '../core/message-input.ts';
import type { SessionIds } from '../core/session-id.ts';
import { parseVisitorSite, type VisitorSite } from '../core/visitor-site.ts';
import { hasControlCharacters, withoutControlCharacters } from '@parley/common/control-characters.ts';

export const MAX_LEAD_FIELD_CHARS = 200;
export const MIN_PHONE_DIGITS = 6;
export const MAX_PHONE_DIGITS = 20;
const MAX_USER_AGENT_CHARS = 512;

export const LEAD_SOURCES = ['form', 'handoff_timeout'] as const;
export type LeadSource = (typeof LEAD_SOURCES)[number];
export type LeadField = 'name' | 'email' | 'phone';
export const LEAD_FIELDS: readonly LeadField[] = ['name', 'email', 'phone'];

const LABELS: Record<LeadField, string> = { name: 'Name', email: 'Email', phone: 'Phone' };

export const EMAIL_INVALID = 'Please enter a valid email address.';
export const PHONE_INVALID = `Please enter a phone number of ${MIN_PHONE_DIGITS} to ${MAX_PHONE_DIGITS} digits.`;
export const SOURCE_INVALID = 'Source must be form or handoff_timeout.';
export const CONSENT_REQUIRED = 'Please tick the box to agree.';
export const NOTHING_GIVEN = 'Please fill in at least one field.';
export const NO_LEAD_FORM = 'This chatbot does not ask for contact details.';
export const fieldTooLong = (field: LeadField) => `${LABELS[field]} is too long (maximum ${MAX_LEAD_FIELD_CHARS} characters).`;
export const fieldNotText = (field: LeadField) => `${LABELS[field]} must be one line of text.`;
export const fieldRequired = (field: LeadField) => `${LABELS[field]} is required.`;
export const fieldNotAsked = (field: LeadField) => `${LABELS[field]} is not asked for by this chatbot.`;

export interface RawLeadInput {
  uniqueId: string;
  sessionId: string;
  name: string;
  email: string;
  phone: string;
  consented: boolean;
  clientIp: string;
  userAgent: string;
  siteHost?: string;
  embedded?: boolean;
  visitorId?: string;
  visitorName?: string;
  source: string;
}

export interface LeadInput {
  uniqueId: string;
  /** The visitor's session id when this service issued it, else a new one. */
  sessionId: string;
  /** The session id was not this service's: the lead starts a new conversation. */
  newConversation: boolean;
  /** null: not given. */
  name: string | null;
  email: string | null;
  phone: string | null;
  consented: boolean;
  source: LeadSource;
  clientIp: string | null;
  userAgent: string | null;
  site: VisitorSite;
  visitorId: string | null;
  visitorName: string | null;
}

/** One field: trimmed, empty is "not given"; control characters and more than 200 characters refused. */
export function parseLeadText(raw: string, field: LeadField): string | null {
  const value = raw.trim();
  if (!value) return null;
  if (hasControlCharacters(value)) throw invalid(fieldNotText(field));
  if (charCount(value) > MAX_LEAD_FIELD_CHARS) throw invalid(fieldTooLong(field));
  return value;
}

// One @, something before it, a domain of two labels or more after it, no spaces: what a person
// types, not RFC 5321's every corner (a quoted local part is not an address a visitor leaves).
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function parseLeadEmail(raw: string): string | null {
  const email = parseLeadText(raw, 'email');
  if (email !== null && !EMAIL.test(email)) throw invalid(EMAIL_INVALID);
  return email;
}

/** 6 to 20 digits, with + ( ) - . and spaces between them as people write numbers. */
export function parseLeadPhone(raw: string): string | null {
  const phone = parseLeadText(raw, 'phone');
  if (phone === null) return null;
  if (!/^\+?[0-9()\-. ]+$/.test(phone)) throw invalid(PHONE_INVALID);
  const digits = phone.replace(/\D/g, '').length;
  if (digits < MIN_PHONE_DIGITS || digits > MAX_PHONE_DIGITS) throw invalid(PHONE_INVALID);
  return phone;
}

export function parseLeadSource(raw: string): LeadSource {
  const source = raw.trim().toLowerCase() || 'form';
  if (!(LEAD_SOURCES as readonly string[]).includes(source)) throw invalid(SOURCE_INVALID);
  return source as LeadSource;
}

const bounded = (raw: string, max: number): string | null => {
  const value = withoutControlCharacters(raw).trim();
  if (!value) return null;
  return value.length > max ? value.slice(0, max) : value;
};

/** The fields' form, checked in this order; an impossible uniqueId is NOT_FOUND after them. */
export function parseLeadInput(raw: RawLeadInput, ids: SessionIds): LeadInput {
  const name = parseLeadText(raw.name, 'name');
  const email = parseLeadEmail(raw.email);
  const phone = parseLeadPhone(raw.phone);
  const source = parseLeadSource(raw.source);
  const visitorId = parseVisitorField(raw.visitorId, visitorIdTooLong);
  const visitorName = parseVisitorField(raw.visitorName, visitorNameTooLong);
  const uniqueId = parseUniqueId(raw.uniqueId);
  const continued = ids.accept(raw.sessionId);
  return {
    uniqueId,
    sessionId: continued ?? ids.issue(),
    newConversation: continued === null,
    name,
    email,
    phone,
    consented: raw.consented,
    source,
    clientIp: parseClientIp(raw.clientIp),
    userAgent: bounded(raw.userAgent, MAX_USER_AGENT_CHARS),
    site: parseVisitorSite(raw),
    visitorId,
    visitorName,
  };
}

type FormRules = Pick<LeadForm, 'name' | 'email' | 'phone' | 'consentText'>;

/**
 * The lead against the chatbot's form. The lead form ("form"): at least one field on, fields it has
 * off refused, required ones required, at least one field given, the consent line (when the owner
 * wrote one) ticked. The email asked for when nobody answered a handoff ("handoff_timeout") is not
 * the owner's form: the email is required, the rest optional, and no consent line is shown (the
 * visitor asked to be answered).
 */
export function checkLeadAgainstForm(input: Pick<LeadInput, LeadField | 'consented' | 'source'>, form: FormRules | undefined): void {
  if (input.source === 'handoff_timeout') {
    if (input.email === null) throw invalid(fieldRequired('email'));
    return;
  }
  const mode = (field: LeadField) => form?.[field] || 'off';
  if (LEAD_FIELDS.every((f) => mode(f) === 'off')) throw failedPrecondition(NO_LEAD_FORM);
  for (const field of LEAD_FIELDS) {
    if (mode(field) === 'off' && input[field] !== null) throw invalid(fieldNotAsked(field));
    if (mode(field) === 'required' && input[field] === null) throw invalid(fieldRequired(field));
  }
  if (LEAD_FIELDS.every((f) => input[f] === null)) throw invalid(NOTHING_GIVEN);
  if (form?.consentText && !input.consented) throw invalid(CONSENT_REQUIRED);
}
