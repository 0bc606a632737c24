import type { Language } from '../../gql/graphql';

/** The chatbot's primary language options (docs/product.md, Chatbots), in the order the select shows them. */
export const LANGUAGE_OPTIONS: ReadonlyArray<{ value: Language; label: string }> = [
  { value: 'english', label: 'English' },
  { value: 'french', label: 'French' },
  { value: 'chinese', label: 'Chinese' },
];

export function isLanguage(value: string): value is Language {
  return LANGUAGE_OPTIONS.some((option) => option.value === value);
}
