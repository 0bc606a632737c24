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
  iban: '[IBAN]',
  custom: '[private]',
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

/** The personal data the detectors find: the same set for viewers' masks and for what the model is sent. */
export type PersonalDataKind = 'email' | 'phone' | 'card' | 'iban' | 'custom';

/** Where a detail was found in a text: [start, end) in UTF-16 code units. */
export interface Finding {
  kind: PersonalDataKind;
  start: number;
  end: number;
}

interface Detector {
  kind: PersonalDataKind;
  pattern: RegExp;
  /** How many characters of the candidate are the detail (0: none). `strict`: a card must pass Luhn's check. */
  accept(candidate: string, strict: boolean): number;
}

/** Luhn's check over the digits of a card-like number: what every card network's numbers pass. */
export function passesLuhn(candidate: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = candidate.length - 1; i >= 0; i--) {
    const code = candidate.charCodeAt(i) - 48;
    if (code < 0 || code > 9) continue;
    let n = code;
    if (double) n = n * 2 > 9 ? n * 2 - 9 : n * 2;
    sum += n;
    double = !double;
  }
  return sum % 10 === 0;
}

// An IBAN's length in each country that issues them (the IBAN registry), so a candidate is cut where
// the account number ends and a word that follows it is never taken for part of it.
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MR: 27,
  MT: 31,
  MU: 30,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  SA: 24,
  SC: 31,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
};

/** The IBAN's mod-97 check (ISO 13616): its first four characters moved to the end, letters as 10–35, the number mod 97 is 1. */
export function passesMod97(iban: string): boolean {
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? code - 55 : code - 48;
    rest = value > 9 ? (rest * 100 + value) % 97 : (rest * 10 + value) % 97;
  }
  return rest === 1;
}

// An IBAN candidate: a country's two letters, two check digits, then letters and digits, each after
// at most one space ("DE89 3704 0044 0532 0130 00" or unbroken). The length and the check are
// acceptIban's to say.
const IBAN = /(?<![\p{L}\p{N}])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){10,30}/gu;

function acceptIban(candidate: string): number {
  const country = candidate.slice(0, 2).toUpperCase();
  const length = IBAN_LENGTHS[country];
  if (!length) return 0;
  let compact = '';
  let end = 0;
  for (let i = 0; i < candidate.length && compact.length < length; i++) {
    if (candidate[i] === ' ') continue;
    compact += candidate[i]!.toUpperCase();
    end = i + 1;
  }
  if (compact.length < length) return 0;
  // The account number ends there: what follows must not go on with a letter or a digit.
  if (end < candidate.length && candidate[end] !== ' ') return 0;
  return passesMod97(compact) ? end : 0;
}

/** The detectors, in the order they claim text: an email's digits stay in it, an IBAN's and a card's are never read as a phone. */
const DETECTORS: Detector[] = [
  { kind: 'email', pattern: EMAIL, accept: (c) => c.length },
  { kind: 'iban', pattern: IBAN, accept: acceptIban },
  { kind: 'card', pattern: CARD, accept: (c, strict) => (!strict || passesLuhn(c) ? c.length : 0) },
  { kind: 'phone', pattern: PHONE, accept: (c) => (looksLikePhone(c) ? c.length : 0) },
];

/**
 * Every detail in `text`, in reading order, none overlapping: each detector in turn claims what no
 * earlier one did, then the owner's own patterns (`custom`, compiled by compileRedactionPatterns).
 * `strict`: card numbers must pass Luhn's check (what the model is kept from); viewers' masks take
 * any card-like number (ADR 36 errs on masking too much).
 */
export function findPersonalData(text: string, options: { strict: boolean; custom?: readonly RegExp[] }): Finding[] {
  const found: Finding[] = [];
  const claim = (kind: PersonalDataKind, start: number, end: number) => {
    if (end <= start) return;
    for (const f of found) if (start < f.end && f.start < end) return;
    found.push({ kind, start, end });
  };
  for (const detector of DETECTORS) {
    for (const m of text.matchAll(detector.pattern)) claim(detector.kind, m.index, m.index + detector.accept(m[0], options.strict));
  }
  for (const pattern of options.custom ?? []) {
    for (const m of text.matchAll(pattern)) claim('custom', m.index, m.index + m[0].length);
  }
  return found.sort((a, b) => a.start - b.start);
}

/** `text` with each finding replaced by what `replacement` says of it. */
export function replaceFindings(
  text: string,
  found: readonly Finding[],
  replacement: (value: string, kind: PersonalDataKind) => string,
): string {
  if (found.length === 0) return text;
  let out = '';
  let at = 0;
  for (const f of found) {
    out += text.slice(at, f.start) + replacement(text.slice(f.start, f.end), f.kind);
    at = f.end;
  }
  return out + text.slice(at);
}

const MASK_OF: Record<PersonalDataKind, string> = {
  email: REDACTED.email,
  phone: REDACTED.phone,
  card: REDACTED.cardNumber,
  iban: REDACTED.iban,
  custom: REDACTED.custom,
};

/**
 * The text with every email address, IBAN, card-like number and phone number in it replaced by
 * REDACTED's words ("Call me on [phone] or mail [email]"). Card numbers are claimed before phones, so
 * a 16-digit card never reads as a phone; emails first of all, so the digits of an address stay in it.
 */
export function maskContactDetails(text: string): string {
  return replaceFindings(text, findPersonalData(text, { strict: false }), (_value, kind) => MASK_OF[kind]);
}
