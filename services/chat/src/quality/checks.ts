// The checks a test case's answer must pass (docs/adr/0050-quality-loop.md), each decided from the
// answer alone, deterministically: its text (the [n] markers taken out), its sources, and the two
// verdicts the turn already gives every answer (send-message.ts): `unanswered` (the chatbot's
// unanswered rule: no citation, no Q&A pair) and `offerHandoff` (the bot offers a person).
//
// Phrases compare case- and whitespace-insensitively (Unicode NFKC, lower case, runs of white space
// as one space), as whole text within the answer, so "opens at ten" is found in "We open… It opens
// at  Ten [1]." once the marker is gone.
import { isUuid } from '@parley/common/ids.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { answerLanguage, languageCode, LANGUAGE_CODES, loadLanguageDetector } from './answer-language.ts';

export const CHECK_KINDS = ['contains', 'not_contains', 'cites', 'no_answer', 'offers_person', 'language'] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

export type Check =
  /** One fact: any of the phrasings. */
  | { kind: 'contains'; phrases: string[] }
  /** None of the phrases. */
  | { kind: 'not_contains'; phrases: string[] }
  /** A source of this knowledge entry. */
  | { kind: 'cites'; entryId: string }
  /** The chatbot says it does not know. */
  | { kind: 'no_answer' }
  /** The chatbot offers a person. */
  | { kind: 'offers_person' }
  /** The answer is written in this language (as the case named it: "fr"), told by answer-language.ts. */
  | { kind: 'language'; language: string };

export interface CheckResult {
  check: Check;
  passed: boolean;
  /** Why it failed, for the owner; empty when it passed. */
  detail: string;
}

/** What a check reads of an answer. */
export interface CheckedAnswer {
  text: string;
  sources: { entryId: string; title: string }[];
  unanswered: boolean;
  offerHandoff: boolean;
}

export const MAX_CHECKS = 20;
export const MAX_PHRASES = 20;
export const MAX_PHRASE_CHARS = 500;

/** Lower case, NFKC, white space as single spaces, trimmed. */
export function normalise(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

const MARKER = /\s*\[\d+\]/g;

function found(answer: string, phrase: string): boolean {
  const p = normalise(phrase);
  return p.length > 0 && answer.includes(p);
}

export function runCheck(check: Check, answer: CheckedAnswer): CheckResult {
  const text = normalise(answer.text.replace(MARKER, ''));
  const result = (passed: boolean, detail: string): CheckResult => ({ check, passed, detail: passed ? '' : detail });
  switch (check.kind) {
    case 'contains':
      return result(
        check.phrases.some((p) => found(text, p)),
        `Missing: ${check.phrases.join(' / ')}`,
      );
    case 'not_contains': {
      const present = check.phrases.filter((p) => found(text, p));
      return result(present.length === 0, `Contains: ${present.join(', ')}`);
    }
    case 'cites':
      return result(
        answer.sources.some((s) => s.entryId === check.entryId),
        answer.sources.length ? `Cites ${answer.sources.map((s) => s.title || s.entryId).join(', ')} instead` : 'Cites nothing',
      );
    case 'no_answer':
      return result(answer.unanswered, 'Answered instead of saying it does not know');
    case 'offers_person':
      return result(answer.offerHandoff, 'Does not offer a person');
    case 'language': {
      const found = answerLanguage(answer.text.replace(MARKER, ''));
      return result(
        found === languageCode(check.language),
        found === 'und'
          ? `Not written in ${check.language}: too short to tell its language`
          : `Not written in ${check.language} (${found})`,
      );
    }
  }
}

/** Loads what the checks need beyond this module (franc-min for a `language` check); before runChecks. */
export async function prepareChecks(checks: Check[]): Promise<void> {
  if (checks.some((c) => c.kind === 'language')) await loadLanguageDetector();
}

export function runChecks(checks: Check[], answer: CheckedAnswer): { passed: boolean; results: CheckResult[] } {
  const results = checks.map((c) => runCheck(c, answer));
  return { passed: results.every((r) => r.passed), results };
}

/** A check as it arrives (proto, CSV, JSONL): validated into a Check, or a message naming what is wrong. */
export interface RawCheck {
  kind?: unknown;
  phrases?: unknown;
  entryId?: unknown;
  language?: unknown;
}

export function parseCheck(raw: RawCheck): Check | string {
  const kind = typeof raw.kind === 'string' ? raw.kind.trim().toLowerCase() : '';
  if (!(CHECK_KINDS as readonly string[]).includes(kind))
    return `Unknown check "${String(raw.kind ?? '')}" (use ${CHECK_KINDS.join(', ')})`;
  if (kind === 'contains' || kind === 'not_contains') {
    const list = Array.isArray(raw.phrases) ? raw.phrases : [];
    if (!list.every((p): p is string => typeof p === 'string')) return 'Phrases must be text';
    const phrases = list.map((p) => p.trim()).filter(Boolean);
    if (phrases.length === 0) return `A "${kind}" check needs at least one phrase`;
    if (phrases.length > MAX_PHRASES) return `At most ${MAX_PHRASES} phrases per check`;
    if (phrases.some((p) => p.length > MAX_PHRASE_CHARS)) return `A phrase has at most ${MAX_PHRASE_CHARS} characters`;
    return { kind, phrases };
  }
  if (kind === 'cites') {
    const entryId = typeof raw.entryId === 'string' ? raw.entryId.trim().toLowerCase() : '';
    if (!isUuid(entryId)) return 'A "cites" check needs a knowledge entry id';
    return { kind, entryId };
  }
  if (kind === 'language') {
    const language = typeof raw.language === 'string' ? raw.language.trim().toLowerCase() : '';
    if (!languageCode(language)) return `A "language" check needs a language code (such as ${LANGUAGE_CODES.slice(0, 6).join(', ')})`;
    return { kind, language };
  }
  return { kind: kind as 'no_answer' | 'offers_person' };
}

/** Every check of a case, or INVALID_ARGUMENT naming the first one at fault. */
export function parseChecks(raw: RawCheck[]): Check[] {
  if (raw.length === 0) throw invalid('A test case needs at least one check.');
  if (raw.length > MAX_CHECKS) throw invalid(`A test case has at most ${MAX_CHECKS} checks.`);
  return raw.map((r, i) => {
    const parsed = parseCheck(r);
    if (typeof parsed === 'string') throw invalid(`Check ${i + 1}: ${parsed}.`);
    return parsed;
  });
}
