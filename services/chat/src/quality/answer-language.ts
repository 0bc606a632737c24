// The language an answer is written in, for the quality loop's `language` check (docs/adr/0065-reason-codes.md):
// decided by franc-min (trigram profiles of 82 languages, MIT, no model), never by the model.
// A check names a language by its ISO 639-1 code ("fr"), its ISO 639-3 code ("fra") or the
// chatbot's language names (english, french, chinese); franc answers in ISO 639-3. franc-min (its
// trigram profiles: ≈ 1.3 MB of heap, 2.3 MB of the process) is loaded at the first test run with a
// `language` check (loadLanguageDetector), not at start (docs/adr/0068-memory-at-rest.md).
import type { franc as Franc } from 'franc-min';

/** ISO 639-1 codes of the languages franc-min knows, to its ISO 639-3 ones. */
const ISO_639_1: Record<string, string> = {
  ar: 'arb',
  bg: 'bul',
  bn: 'ben',
  cs: 'ces',
  da: 'dan',
  de: 'deu',
  el: 'ell',
  en: 'eng',
  es: 'spa',
  fa: 'pes',
  fi: 'fin',
  fr: 'fra',
  ha: 'hau',
  he: 'heb',
  hi: 'hin',
  hr: 'hrv',
  hu: 'hun',
  id: 'ind',
  it: 'ita',
  ja: 'jpn',
  ko: 'kor',
  ms: 'zlm',
  nl: 'nld',
  no: 'nob',
  pl: 'pol',
  pt: 'por',
  ro: 'ron',
  ru: 'rus',
  sk: 'slk',
  sr: 'srp',
  sv: 'swe',
  sw: 'swh',
  ta: 'tam',
  te: 'tel',
  th: 'tha',
  tr: 'tur',
  uk: 'ukr',
  ur: 'urd',
  vi: 'vie',
  zh: 'cmn',
};
const NAMES: Record<string, string> = { english: 'eng', french: 'fra', chinese: 'cmn' };
/** What franc-min may answer, so a check naming another code is refused when the case is saved. */
const KNOWN = new Set([...Object.values(ISO_639_1), 'und']);

/** A check's language as franc names it (ISO 639-3), or null for a code it cannot tell. */
export function languageCode(raw: string): string | null {
  const code = raw.trim().toLowerCase();
  const iso3 = ISO_639_1[code] ?? NAMES[code] ?? (code.length === 3 ? code : null);
  return iso3 && KNOWN.has(iso3) && iso3 !== 'und' ? iso3 : null;
}

/** The languages a check may name, for the owner's message. */
export const LANGUAGE_CODES = Object.keys(ISO_639_1);

let franc: typeof Franc | undefined;

/** Loads franc-min, once: before the first `language` check is run. */
export async function loadLanguageDetector(): Promise<void> {
  franc ??= (await import('franc-min')).franc;
}

/** The answer's language (ISO 639-3), or 'und' when it is too short or too mixed to tell. */
export function answerLanguage(text: string): string {
  if (!franc) throw new Error('answerLanguage: loadLanguageDetector() was not awaited before the first language check');
  return franc(text, { minLength: 10 });
}
