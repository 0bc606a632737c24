// Visitors' words as a member who does not read conversations sees them (docs/product.md, Workspaces
// and Feedback, analytics and unanswered questions): a viewer holds `workspace:read`, not
// `conversations:read`, so where a visitor's text reaches a screen or an API such a role may open
// (the most asked questions of the analytics), the contact details in it are masked. The words stay,
// so the figures still say what visitors ask; the email address, phone number or card number in them
// does not. One function, used wherever the rule applies, so every door masks the same way
// (docs/adr/0036-viewers-read-visitors-words-masked.md).
import { can, isRole } from './roles.ts';

/** What stands in for each masked detail: plain words a reader understands, never a part of the original. */
export const REDACTED = {
  email: '[email]',
  phone: '[phone]',
  cardNumber: '[card number]',
} as const;

/** Whether a caller with this role reads visitors' words as they were written; an unknown or missing role does not. */
export function readsVisitorsWords(role: string | undefined): boolean {
  return isRole(role) && can(role, 'conversations:read');
}

// An address: a local part, "@", then a domain with at least one dot and a top-level label of letters.
// It starts where a word starts, so a long run without "@" is read once, not once per character.
const EMAIL = /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;

// A card-like number: 13 to 19 digits, the first not a zero (no card network issues one), with at most
// one space or dash between digits ("4111 1111 1111 1111", "4111-1111-1111-1111", "378282246310005").
const CARD = /(?<![\p{N}+])[1-9](?:[ -]?\d){12,18}(?!\p{N})/gu;

// A phone-number candidate: an optional "+", then groups of digits, each after one space, dash or dot,
// or in brackets ("(415)", "(0)") with or without one. Two groups of digits always have a character
// between them, so a long run of digits is read one way only (no backtracking over its splits).
// Whether a candidate is a phone is looksLikePhone's to say.
const PHONE =
  /(?<![\p{L}\p{N}_+])(?:\+\s?)?(?:\(\s?\d+\s?\)|\d+)(?:[ .\-\u00a0](?:\(\s?\d+\s?\)|\d+)|\(\s?\d+\s?\)|(?<=\))\d+)*(?![\p{L}\p{N}_])/gu;

/**
 * A candidate is a phone number when it has 7 to 15 digits (E.164's most) and the shape of one: an
 * international "+" or a bracketed area code with at least 7 digits, digits in groups with at least 9,
 * or one unbroken run of at least 10. Shorter or plainer numbers stay as typed, so dates (2026-12-01),
 * prices ($10.00), quantities and order numbers of 5 or 6 digits are not taken for phones.
 */
function looksLikePhone(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '').length;
  if (digits < 7 || digits > 15) return false;
  if (candidate.startsWith('+') || candidate.includes('(')) return true;
  // A date in any usual order, e.g. 2026-12-01 or 01.12.2026 (too few digits anyway; kept plain).
  if (/^\d{4}[-./]\d{1,2}[-./]\d{1,2}$|^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$/.test(candidate)) return false;
  return /\D/.test(candidate) ? digits >= 9 : digits >= 10;
}

/**
 * The text with every email address, phone number and card-like number in it replaced by
 * REDACTED's words ("Call me on [phone] or mail [email]"). Card numbers are masked before phones, so
 * a 16-digit card never reads as a phone; emails first of all, so the digits of an address stay in it.
 */
export function maskContactDetails(text: string): string {
  return text
    .replace(EMAIL, REDACTED.email)
    .replace(CARD, REDACTED.cardNumber)
    .replace(PHONE, (candidate) => (looksLikePhone(candidate) ? REDACTED.phone : candidate));
}
