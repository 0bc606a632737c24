import { describe, expect, it } from 'vitest';
import { indexText, queryText, searchConfigFor } from '../search-text.ts';

describe('indexText', () => {
  it('leaves text without CJK characters to the chatbot configuration', () => {
    expect(indexText('The runner runs, e-mail ada@example.com!')).toEqual({ latin: 'The runner runs, e-mail ada@example.com!', cjk: '' });
  });

  it('indexes each CJK character followed by the bigram it starts, in order', () => {
    expect(indexText('营业时间')).toEqual({ latin: ' ', cjk: '营 营业 业 业时 时 时间 间' });
  });

  it('takes CJK runs out of mixed text, keeping Latin words apart', () => {
    const { latin, cjk } = indexText('Open 周一至周五 daily, 九点');
    expect(latin).toBe('Open   daily,  ');
    expect(cjk).toBe('周 周一 一 一至 至 至周 周 周五 五 九 九点 点');
    // The replaced run leaves a space, so the words around it do not run together.
    expect(indexText('open周五daily').latin).toBe('open daily');
  });

  it('treats Japanese kana as CJK, and leaves Korean (which has spaces) alone', () => {
    expect(indexText('カタカナ').cjk).toBe('カ カタ タ タカ カ カナ ナ');
    expect(indexText('ひらがな').cjk.split(' ')).toContain('がな');
    expect(indexText('한국어 텍스트')).toEqual({ latin: '한국어 텍스트', cjk: '' });
  });

  it('does not treat CJK punctuation as a character to index', () => {
    expect(indexText('你好。世界').cjk).toBe('你 你好 好 世 世界 界');
  });

  it('handles characters outside the BMP (CJK extension B) as single characters', () => {
    expect(indexText('𠀀好').cjk).toBe('𠀀 𠀀好 好');
  });
});

describe('queryText', () => {
  it('queries the bigrams of a CJK run', () => {
    expect(queryText('营业时间')).toEqual({ latin: ' ', grams: ['营业', '业时', '时间'] });
  });

  it('queries a one-character run as itself', () => {
    expect(queryText('猫')).toEqual({ latin: ' ', grams: ['猫'] });
  });

  it('keeps Latin words for the chatbot configuration and removes repeated grams', () => {
    expect(queryText('opening 时间 hours 时间')).toEqual({ latin: 'opening   hours  ', grams: ['时间'] });
  });

  it('has no grams for a Latin-only query', () => {
    expect(queryText('When do you open?')).toEqual({ latin: 'When do you open?', grams: [] });
  });

  it('produces only grams that indexText produced for a text containing the query', () => {
    const text = '我们的营业时间是周一至周五';
    const indexed = new Set(indexText(text).cjk.split(' '));
    for (const query of ['营业时间', '周五', '至', '我们的营业时间是周一至周五']) {
      for (const gram of queryText(query).grams) expect(indexed.has(gram), gram).toBe(true);
    }
  });
});

describe('searchConfigFor', () => {
  it('stems English and French, and matches Chinese (and anything else) as written', () => {
    expect(searchConfigFor('english')).toBe('english');
    expect(searchConfigFor('french')).toBe('french');
    expect(searchConfigFor('chinese')).toBe('simple');
    expect(searchConfigFor('klingon')).toBe('simple');
    expect(searchConfigFor('')).toBe('simple');
  });
});
