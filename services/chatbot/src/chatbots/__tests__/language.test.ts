// The one definition of a language (@parley/proto/language.ts), as the chatbot service reads and
// writes it across contracts.
import { describe, expect, it } from 'vitest';
import { Language, LANGUAGE_NAMES, languageEnum, languageFields, languageName, readLanguage } from '@parley/proto/language.ts';

describe('language', () => {
  it('maps every name to its enum value and back', () => {
    expect(LANGUAGE_NAMES).toEqual(['english', 'french', 'chinese']);
    for (const name of LANGUAGE_NAMES) expect(languageName(languageEnum(name))).toBe(name);
    expect(languageEnum(' French ')).toBe(Language.FRENCH);
    expect(languageEnum('spanish')).toBe(Language.UNSPECIFIED);
    expect(languageName(Language.UNSPECIFIED)).toBeUndefined();
    expect(languageName(99 as Language)).toBeUndefined();
  });

  it('reads the enum first, then the deprecated string as written', () => {
    expect(readLanguage({ primaryLanguage: Language.CHINESE, language: 'english' })).toBe('chinese');
    expect(readLanguage({ primaryLanguage: Language.UNSPECIFIED, language: 'Spanish' })).toBe('Spanish');
    expect(readLanguage({ language: 'french' })).toBe('french');
    expect(readLanguage({})).toBeUndefined();
  });

  it('writes both fields', () => {
    expect(languageFields('french')).toEqual({ primaryLanguage: Language.FRENCH, language: 'french' });
  });
});
