import { describe, expect, it } from 'vitest';
import { splitMarkers } from '../citation-markers';

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
