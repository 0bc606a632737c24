// What goes into the full-text index and into a query. Postgres's parser splits words on spaces,
// which Chinese and Japanese do not use: a whole CJK sentence would be one "word" that no query
// matches. So CJK runs are taken out of the text and indexed as overlapping bigrams plus single
// characters under the `simple` configuration; everything else (Latin words, digits, e-mails) goes
// through the chatbot's own configuration (english/french stemming).

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

export interface SearchText {
  /** The text without its CJK runs, for the chatbot's text-search configuration. */
  latin: string;
  /** Space-separated CJK characters and bigrams, for the `simple` configuration. */
  cjk: string;
}

/** Splits a chunk for indexing. Each CJK character is followed by the bigram it starts, so terms keep their order. */
export function indexText(text: string): SearchText {
  const grams: string[] = [];
  const latin = text.replace(CJK_RUN, (run) => {
    const chars = [...run];
    chars.forEach((ch, i) => {
      grams.push(ch);
      if (i + 1 < chars.length) grams.push(ch + chars[i + 1]);
    });
    return ' ';
  });
  return { latin, cjk: grams.join(' ') };
}

export interface QueryText {
  /** The query without its CJK runs; Postgres normalises it with the chatbot's configuration. */
  latin: string;
  /** CJK terms: the bigrams of each run, or the character itself for a one-character run. */
  grams: string[];
}

/** Splits a query like indexText, keeping only the terms that identify a passage. */
export function queryText(query: string): QueryText {
  const grams = new Set<string>();
  const latin = query.replace(CJK_RUN, (run) => {
    const chars = [...run];
    if (chars.length === 1) grams.add(chars[0]);
    for (let i = 0; i + 1 < chars.length; i++) grams.add(chars[i] + chars[i + 1]);
    return ' ';
  });
  return { latin, grams: [...grams] };
}

/** The text-search configuration for a chatbot language: Chinese has no stemmer, so Latin words in it are matched as written. */
export function searchConfigFor(language: string): 'english' | 'french' | 'simple' {
  if (language === 'english' || language === 'french') return language;
  return 'simple';
}

/** searchConfigFor in SQL, for statements that read the language themselves; `language` is an SQL expression. */
export function searchConfigSql(language: string): string {
  return `(CASE ${language} WHEN 'english' THEN 'english' WHEN 'french' THEN 'french' ELSE 'simple' END)`;
}
