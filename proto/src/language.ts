// The one definition of a chatbot's language on the services' side: the names the product uses
// (docs/product.md, Chatbots: english, french, chinese), the proto enum that carries them across contracts, and the
// mapping between the two. While the old free-string fields live beside the enum ones (see
// CONTRIBUTING.md, "Evolving a contract"), writers fill both and readers go through readLanguage.
import { Language } from '../gen/parley/chatbot/v1/chatbot_pb.js';

export { Language };

/** The languages a chatbot may have, in the order the product lists them; the first is the default. */
export const LANGUAGE_NAMES = ['english', 'french', 'chinese'] as const;
export type LanguageName = (typeof LANGUAGE_NAMES)[number];
export const DEFAULT_LANGUAGE: LanguageName = 'english';

const ENUM_OF: Record<LanguageName, Language> = {
  english: Language.ENGLISH,
  french: Language.FRENCH,
  chinese: Language.CHINESE,
};

export function isLanguageName(value: string): value is LanguageName {
  return (LANGUAGE_NAMES as readonly string[]).includes(value);
}

/** The enum value of a language name as owners type it (any case, surrounding spaces); UNSPECIFIED when it names none. */
export function languageEnum(name: string): Language {
  const normalised = name.trim().toLowerCase();
  return isLanguageName(normalised) ? ENUM_OF[normalised] : Language.UNSPECIFIED;
}

/** The name of an enum value; undefined for UNSPECIFIED or a value this build does not know. */
export function languageName(language: Language | undefined): LanguageName | undefined {
  return LANGUAGE_NAMES.find((name) => ENUM_OF[name] === language);
}

/**
 * A message's language: the enum field when set, else the deprecated string (a writer that predates
 * the enum), else undefined. The string is returned as written: validating it is the reader's rule.
 */
export function readLanguage(message: { primaryLanguage?: Language; language?: string }): string | undefined {
  return languageName(message.primaryLanguage) ?? message.language;
}

/** Both fields of a message that carries a language, for a writer during the transition. */
export function languageFields(name: LanguageName): { primaryLanguage: Language; language: LanguageName } {
  return { primaryLanguage: ENUM_OF[name], language: name };
}
