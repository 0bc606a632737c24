import { describe, expect, it } from 'vitest';
import { citationRuns, splitMarkers } from '../citation-markers';

const sources = [
  { entryId: 'a', title: 'First' },
  { entryId: 'b', title: 'Second', url: 'https://example.com/b' },
];

/** Text pieces as themselves, citations as <title of their source>. */
function shape(text: string) {
  return splitMarkers(text, sources).map((piece) => (typeof piece === 'string' ? piece : `<${piece.source.title}>`));
}

describe('splitMarkers', () => {
  it('turns markers that name a source into citations and keeps the text around them', () => {
    expect(shape('Open at 9 [1]. Closed Sundays [2][1].')).toEqual([
      'Open at 9 ',
      '<First>',
      '. Closed Sundays ',
      '<Second>',
      '<First>',
      '.',
    ]);
    expect(splitMarkers('[2]', sources)).toEqual([{ number: 2, source: sources[1] }]);
  });

  it('leaves markers without a source, [0] and text without markers as they are', () => {
    expect(shape('See [3] and [0].')).toEqual(['See [3] and [0].']);
    expect(shape('[1]')).toEqual(['<First>']);
    expect(splitMarkers('No markers [a].', [])).toEqual(['No markers [a].']);
  });
});

/** Runs as `{before<titles>after}`, text as itself: what stays on one line. */
function runs(text: string) {
  return citationRuns(splitMarkers(text, sources)).map((piece) =>
    typeof piece === 'string' ? piece : `{${piece.before}${piece.citations.map((c) => `<${c.source.title}>`).join('')}${piece.after}}`,
  );
}

describe('citationRuns', () => {
  it('keeps each run of badges with the word before it and the punctuation after it', () => {
    expect(runs('Open at 9 [1]. Closed Sundays [2][1].')).toEqual(['Open at ', '{9 <First>.}', ' Closed ', '{Sundays <Second><First>.}']);
    expect(runs('Open at nine [1], closed at six [2]')).toEqual(['Open at ', '{nine <First>,}', ' closed at ', '{six <Second>}']);
  });

  it('joins the whole text when it is one word, and a badge that starts the text to what follows only', () => {
    expect(runs('Yes[1].')).toEqual(['{Yes<First>.}']);
    expect(runs('[1] opens at nine')).toEqual(['{<First>}', ' opens at nine']);
    expect(runs('[1]')).toEqual(['{<First>}']);
  });

  it('leaves a very long word, an address, where it was, and text without badges whole', () => {
    const address = 'https://example.com/a/very/long/path/to/the/opening-hours';
    expect(runs(`See ${address} [2]`)).toEqual([`See ${address}`, '{ <Second>}']);
    expect(runs('No sources here [3].')).toEqual(['No sources here [3].']);
  });
});
