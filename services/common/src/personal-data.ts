// Personal data kept from the model (docs/adr/0049-personal-data-kept-from-the-model.md): a chatbot
// that asks for it has every email address, phone number, card number (Luhn-checked), IBAN (mod-97
// checked) and text matching one of its owner's patterns replaced by a numbered placeholder
// ("[EMAIL_1]") before the prompt leaves for the model provider, and the placeholders the model
// echoes put back for the visitor. The detectors are redaction.ts's, the very ones that mask
// visitors' words for viewers (ADR 36): one reading of what personal data is.
import safeRegex from 'safe-regex2';
import { findPersonalData, replaceFindings, type PersonalDataKind } from './redaction.ts';

/** The word of each kind in its placeholders: "[EMAIL_1]", "[PHONE_2]", "[CARD_1]", "[IBAN_1]", "[CUSTOM_1]". */
export const PLACEHOLDER_WORD: Record<PersonalDataKind, string> = {
  email: 'EMAIL',
  phone: 'PHONE',
  card: 'CARD',
  iban: 'IBAN',
  custom: 'CUSTOM',
};

const WORD_KIND = new Map(Object.entries(PLACEHOLDER_WORD).map(([kind, word]) => [word, kind as PersonalDataKind]));

// A placeholder in a text, e.g. "[EMAIL_12]"; the number has at most 6 digits.
const PLACEHOLDER = /\[(EMAIL|PHONE|CARD|IBAN|CUSTOM)_(\d{1,6})\]/g;
// The longest placeholder: "[CUSTOM_999999]".
const MAX_PLACEHOLDER_CHARS = 15;
// What a text may end with while a placeholder could still be arriving: "[", "[EMA", "[EMAIL_", "[EMAIL_1".
const PARTIAL_PLACEHOLDER = /\[[A-Z]{0,6}(?:_\d{0,6})?$/;

/**
 * One answer's placeholders: each detail found gets the next number of its kind, the same detail the
 * same placeholder wherever it appears (the history, the message, the stored answer), so the model
 * reads "[EMAIL_1]" as one address throughout. Numbers go on after the highest placeholder already in
 * a redacted text (a history stored redacted), so an older "[EMAIL_1]" never names a new address.
 */
export interface Redactor {
  /** The text with every detail replaced by its placeholder. */
  redact(text: string): string;
  /** The text with every placeholder this redactor gave put back; any other stays as written. */
  restore(text: string): string;
  /** A restorer for a streamed answer: a placeholder split across deltas is put back whole. */
  restoring(): StreamRestorer;
  /** How many details were replaced so far. */
  readonly replaced: number;
}

export interface StreamRestorer {
  /** The restored text that can be shown now (a possible placeholder's start is held back). */
  push(delta: string): string;
  /** What was held back, restored: the stream has ended. */
  end(): string;
}

export function redactor(options: { custom?: readonly RegExp[] } = {}): Redactor {
  const byValue = new Map<string, string>();
  const byPlaceholder = new Map<string, string>();
  const counts = new Map<PersonalDataKind, number>();

  const noteExisting = (text: string) => {
    if (!text.includes('[')) return;
    for (const m of text.matchAll(PLACEHOLDER)) {
      const kind = WORD_KIND.get(m[1]!)!;
      counts.set(kind, Math.max(counts.get(kind) ?? 0, Number(m[2])));
    }
  };
  const placeholderFor = (value: string, kind: PersonalDataKind) => {
    const key = `${kind}\u0000${value}`;
    let placeholder = byValue.get(key);
    if (!placeholder) {
      const n = (counts.get(kind) ?? 0) + 1;
      counts.set(kind, n);
      placeholder = `[${PLACEHOLDER_WORD[kind]}_${n}]`;
      byValue.set(key, placeholder);
      byPlaceholder.set(placeholder, value);
    }
    return placeholder;
  };
  const restore = (text: string) =>
    byPlaceholder.size === 0 || !text.includes('[') ? text : text.replace(PLACEHOLDER, (p) => byPlaceholder.get(p) ?? p);

  return {
    redact(text) {
      noteExisting(text);
      return replaceFindings(text, findPersonalData(text, { strict: true, custom: options.custom }), placeholderFor);
    },
    restore,
    restoring() {
      let held = '';
      return {
        push(delta) {
          const text = held + delta;
          const open = text.lastIndexOf('[');
          // Held back only while the end could still become a placeholder.
          const cut =
            open >= 0 && text.length - open < MAX_PLACEHOLDER_CHARS && PARTIAL_PLACEHOLDER.test(text.slice(open)) ? open : text.length;
          held = text.slice(cut);
          return restore(text.slice(0, cut));
        },
        end() {
          const rest = held;
          held = '';
          return restore(rest);
        },
      };
    },
    get replaced() {
      return byPlaceholder.size;
    },
  };
}

/** At most this many patterns per chatbot, each at most this many characters (docs/product.md, Privacy). */
export const MAX_REDACTION_PATTERNS = 10;
export const MAX_REDACTION_PATTERN_CHARS = 200;

export const REDACTION_PATTERNS_TOO_MANY = `A chatbot has at most ${MAX_REDACTION_PATTERNS} patterns of its own.`;
export const REDACTION_PATTERN_TOO_LONG = `A pattern must be at most ${MAX_REDACTION_PATTERN_CHARS} characters.`;
export const REDACTION_PATTERN_INVALID = 'A pattern must be a valid regular expression.';
export const REDACTION_PATTERN_UNSAFE =
  'A pattern must not repeat a repetition (such as (a+)+): it could take a message seconds to read. Write it with a single quantifier.';
export const REDACTION_PATTERN_EMPTY = 'A pattern must not match an empty text.';

/** Why the owner's pattern is refused (one of the messages above), or null when it may be used. */
export function redactionPatternProblem(pattern: string): string | null {
  if (pattern.length === 0) return REDACTION_PATTERN_EMPTY;
  if (pattern.length > MAX_REDACTION_PATTERN_CHARS) return REDACTION_PATTERN_TOO_LONG;
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern, 'u');
  } catch {
    return REDACTION_PATTERN_INVALID;
  }
  // Nested quantifiers (star height above one) and more than 25 repetitions are refused: the shapes
  // that backtrack catastrophically.
  if (!safeRegex(pattern, { limit: 25 })) return REDACTION_PATTERN_UNSAFE;
  if (compiled.test('')) return REDACTION_PATTERN_EMPTY;
  return null;
}

const compiled = new Map<string, RegExp>();

/**
 * The owner's patterns as global, Unicode regular expressions, compiled once per process (at most
 * 1,000 kept). A pattern the chatbot service would refuse (stored before a rule tightened) is left
 * out rather than read.
 */
export function compileRedactionPatterns(patterns: readonly string[]): RegExp[] {
  const out: RegExp[] = [];
  for (const pattern of patterns.slice(0, MAX_REDACTION_PATTERNS)) {
    let re = compiled.get(pattern);
    if (!re) {
      if (redactionPatternProblem(pattern)) continue;
      re = new RegExp(pattern, 'gu');
      if (compiled.size >= 1000) compiled.clear();
      compiled.set(pattern, re);
    }
    out.push(re);
  }
  return out;
}
