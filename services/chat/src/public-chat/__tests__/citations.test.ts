import { describe, expect, it } from 'vitest';
import { citeSources, withoutMarkers, type CitablePassage } from '../citations.ts';

const hours = { entryId: 'e-hours', title: 'Opening hours', url: '' };
const refunds = { entryId: 'e-refunds', title: 'Refunds', url: 'https://shop.example/refunds' };
const shipping = { entryId: 'e-shipping', title: 'Shipping.pdf', url: '' };
/** The prompt's numbered passages: [1] hours, [2] refunds, [3] hours again (another chunk), [4] shipping. */
const passages: CitablePassage[] = [hours, refunds, hours, shipping];
const cite = (answer: string, list = passages) => citeSources(answer, list);

describe('citeSources', () => {
  it('cites nothing for an answer without markers, and leaves it as it is', () => {
    expect(cite('We open at nine.')).toEqual({ message: 'We open at nine.', sources: [] });
    expect(cite('')).toEqual({ message: '', sources: [] });
  });

  it('cites the one passage used, as [1]', () => {
    expect(cite('Refunds take 30 days [2].')).toEqual({ message: 'Refunds take 30 days [1].', sources: [refunds] });
  });

  it('renumbers by first appearance, so [1] is sources[0]', () => {
    expect(cite('Shipping is free [4]. We open at nine [1]. Refunds take 30 days [2]. Free again [4].')).toEqual({
      message: 'Shipping is free [1]. We open at nine [2]. Refunds take 30 days [3]. Free again [1].',
      sources: [shipping, hours, refunds],
    });
  });

  it('gives several chunks of one entry one source and one number', () => {
    expect(cite('Nine [3]. Also nine [1].')).toEqual({ message: 'Nine [1]. Also nine [1].', sources: [hours] });
    expect(cite('Nine [1][3].')).toEqual({ message: 'Nine [1].', sources: [hours] });
    expect(cite('Nine [3, 1].')).toEqual({ message: 'Nine [1].', sources: [hours] });
  });

  it('recognises [n, m], [n][m] and [n] [m], and writes them as [a][b]', () => {
    expect(cite('Both [4, 2].').message).toBe('Both [1][2].');
    expect(cite('Both [4][2].').message).toBe('Both [1][2].');
    expect(cite('Both [4] [2].').message).toBe('Both [1][2].');
    expect(cite('Both [ 4 ,2 ].').message).toBe('Both [1][2].');
    expect(cite('Both [4, 2, 4].').sources).toEqual([shipping, refunds]);
  });

  it('takes out markers that name no passage, with the space before them', () => {
    expect(cite('Made up [9]. Also [0]. Real [2].')).toEqual({ message: 'Made up. Also. Real [1].', sources: [refunds] });
    expect(cite('Partly [9, 2][7].')).toEqual({ message: 'Partly [1].', sources: [refunds] });
    expect(cite('Nothing real [5]', [])).toEqual({ message: 'Nothing real', sources: [] });
  });

  it('cannot cite a passage that names no entry (an older chatbot service): its markers go', () => {
    const anonymous = [{ entryId: '', title: '', url: '' }];
    expect(cite('The whole knowledge [1].', anonymous)).toEqual({ message: 'The whole knowledge.', sources: [] });
  });

  it('leaves Markdown links, reference definitions and other brackets alone', () => {
    expect(cite('See [1](https://example.com) and [the page][2]. [note] [a1] [12345]').message).toBe(
      'See [1](https://example.com) and [the page][1]. [note] [a1] [12345]',
    );
    expect(cite('[1]: https://example.com').message).toBe('[1]: https://example.com');
  });

  it('keeps the layout around markers', () => {
    expect(cite('- first [1]\n- second [2]\n\nDone [9].\n').message).toBe('- first [1]\n- second [2]\n\nDone.\n');
  });

  it('leaves an answer of nothing but unknown markers as it came rather than empty', () => {
    expect(cite('[9]')).toEqual({ message: '[9]', sources: [] });
  });

  it('works through a long answer in one pass', () => {
    const answer = `${'word '.repeat(20_000)}[2]${' '.repeat(20_000)}x [9]${'['.repeat(10_000)}`;
    const result = cite(answer);
    expect(result.sources).toEqual([refunds]);
    expect(result.message.endsWith('x' + '['.repeat(10_000))).toBe(true);
  });
});

describe('withoutMarkers', () => {
  const sources = [{ entryId: 'e1', title: 'Hours', url: '' }];

  it('takes every marker out with the blank before it, keeping the sources and a Markdown link', () => {
    expect(withoutMarkers({ message: 'We open at nine [1][2].\nSee [the page](https://x.example) [1, 2]', sources })).toEqual({
      message: 'We open at nine.\nSee [the page](https://x.example)',
      sources,
    });
  });

  it('leaves an answer made of nothing but markers as it was', () => {
    expect(withoutMarkers({ message: '[1]', sources })).toEqual({ message: '[1]', sources });
  });
});
