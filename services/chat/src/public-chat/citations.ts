// The sources of an answer, from the [n] markers the model wrote after the sentences that used the
// prompt's numbered passages (build-prompt.ts): only the entries it tagged are cited, and an answer
// that tags none cites none (docs/adr/0016-citations.md). The markers are rewritten so the visitor's
// [1] is sources[0]: numbered by first appearance, one number per entry however many of its
// chunks were used, and a marker naming no passage (or one that cannot be cited) taken out.
// One pass over the answer: the work is proportional to its length, whatever the knowledge.

/** What a numbered passage of the prompt says about where it comes from. */
export interface CitablePassage {
  /** Empty when the passage names no entry (an older chatbot service): it cannot be cited. */
  entryId: string;
  title: string;
  /** A website entry's address; empty otherwise. */
  url: string;
}

export interface Source {
  entryId: string;
  title: string;
  url: string;
}

export interface CitedAnswer {
  message: string;
  /** In the order the message first cites them: [1] is sources[0]. */
  sources: Source[];
}

/**
 * One marker, or several side by side: [1], [1, 3], [1][3], [1] [3]. Numbers of 1 to 4 digits; not
 * a Markdown link's text ("[1](…)") nor a reference definition ("[1]: …").
 */
const MARKERS = /\[\s*\d{1,4}(?:\s*,\s*\d{1,4})*\s*\](?:[ \t]*\[\s*\d{1,4}(?:\s*,\s*\d{1,4})*\s*\])*(?![(:])/g;

function withoutTrailingBlanks(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\t')) end--;
  return text.slice(0, end);
}

/** Numbers entries as they are first cited: one number per entry, from 1; null for a passage that names none. */
export function citationNumbering() {
  const sources: Source[] = [];
  const numberOf = new Map<string, number>();
  return {
    sources,
    numberOf(passage: CitablePassage | undefined): number | null {
      if (!passage?.entryId) return null;
      let n = numberOf.get(passage.entryId);
      if (n === undefined) {
        n = sources.push({ entryId: passage.entryId, title: passage.title, url: passage.url });
        numberOf.set(passage.entryId, n);
      }
      return n;
    },
  };
}

export function citeSources(answer: string, passages: CitablePassage[]): CitedAnswer {
  const numbering = citationNumbering();
  const pieces: string[] = [];
  let from = 0;

  for (const run of answer.matchAll(MARKERS)) {
    const numbers: number[] = [];
    for (const digits of run[0].match(/\d+/g)!) {
      const n = numbering.numberOf(passages[Number(digits) - 1]);
      if (n !== null && !numbers.includes(n)) numbers.push(n);
    }
    const before = answer.slice(from, run.index);
    // A marker taken out takes the space before it along ("used [9]." reads "used.").
    pieces.push(numbers.length ? before : withoutTrailingBlanks(before));
    if (numbers.length) pieces.push(numbers.map((n) => `[${n}]`).join(''));
    from = run.index + run[0].length;
  }
  pieces.push(answer.slice(from));
  const message = pieces.join('');
  // An answer made of nothing but markers is left as it came rather than sent empty.
  return message.trim() ? { message, sources: numbering.sources } : { message: answer, sources: [] };
}

/** The answer's text without its markers, for a channel that shows text alone; its sources stay what it cited. */
export function withoutMarkers(answer: CitedAnswer): CitedAnswer {
  const pieces: string[] = [];
  let from = 0;
  for (const run of answer.message.matchAll(MARKERS)) {
    pieces.push(withoutTrailingBlanks(answer.message.slice(from, run.index)));
    from = run.index + run[0].length;
  }
  pieces.push(answer.message.slice(from));
  const message = pieces.join('');
  return message.trim() ? { message, sources: answer.sources } : answer;
}
