// A chatbot's privacy (docs/adr/0049-personal-data-kept-from-the-model.md): whether personal data is
// kept from the model, whether the stored conversation keeps the visitor's words as typed, and the
// owner's own patterns, validated with the messages owners see, as the Chatbot row's columns. Every
// pattern is checked by the one rule the chat service reads them with (personal-data.ts).
import { invalid } from '@parley/common/rpc-errors.ts';
import { MAX_REDACTION_PATTERNS, REDACTION_PATTERNS_TOO_MANY, redactionPatternProblem } from '@parley/common/personal-data.ts';

/** The proto's PrivacyChange: only the fields present change; `patterns`, when present, replaces the list. */
export interface PrivacyChangeInput {
  redactPersonalData?: boolean;
  keepOriginal?: boolean;
  patterns?: { patterns: string[] };
}

/** The validated change, as the Chatbot row's columns (undefined: unchanged). */
export interface PrivacyUpdate {
  redactPersonalData?: boolean;
  keepOriginalWords?: boolean;
  redactionPatterns?: string[];
}

/** The owner's patterns as saved: trimmed, blank lines dropped, duplicates once; a refused one names itself. */
export function parseRedactionPatterns(raw: readonly string[]): string[] {
  const patterns = [...new Set(raw.map((p) => p.trim()).filter((p) => p !== ''))];
  if (patterns.length > MAX_REDACTION_PATTERNS) throw invalid(REDACTION_PATTERNS_TOO_MANY);
  for (const pattern of patterns) {
    const problem = redactionPatternProblem(pattern);
    if (problem) throw invalid(`${problem} (${pattern.length > 40 ? `${pattern.slice(0, 40)}…` : pattern})`);
  }
  return patterns;
}

export function parsePrivacyChange(change: PrivacyChangeInput | undefined): PrivacyUpdate {
  if (!change) return {};
  return {
    redactPersonalData: change.redactPersonalData,
    keepOriginalWords: change.keepOriginal,
    redactionPatterns: change.patterns ? parseRedactionPatterns(change.patterns.patterns) : undefined,
  };
}
