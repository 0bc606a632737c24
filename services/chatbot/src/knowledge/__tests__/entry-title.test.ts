import { describe, expect, it } from 'vitest';
import { entryTitle } from '../entry-title.ts';

describe('entryTitle', () => {
  it('is the whole text when it has at most eight words and 60 characters', () => {
    expect(entryTitle('Opening hours')).toBe('Opening hours');
    expect(entryTitle('one two three four five six seven eight')).toBe('one two three four five six seven eight');
  });

  it('collapses whitespace and newlines between words', () => {
    expect(entryTitle('  Opening\n\nhours:\t9  to 5  ')).toBe('Opening hours: 9 to 5');
  });

  it('keeps the first eight words and marks the cut with an ellipsis', () => {
    expect(entryTitle('one two three four five six seven eight nine ten')).toBe('one two three four five six seven eight…');
  });

  it('drops punctuation left dangling before the ellipsis', () => {
    expect(entryTitle('We open at nine, close at five, every day. Except Sunday.')).toBe('We open at nine, close at five, every…');
    expect(entryTitle('one two three four five six seven eight. nine')).toBe('one two three four five six seven eight…');
  });

  it('cuts long words at a word boundary within 60 characters', () => {
    const title = entryTitle('Supercalifragilistic expialidocious internationalization considerations notwithstanding');
    // The first 60 characters end inside "considerations": the title ends at the space before it.
    expect(title).toBe('Supercalifragilistic expialidocious internationalization…');
    expect([...title].length).toBeLessThanOrEqual(61);
  });

  it('cuts inside a word when the only space is in the first half', () => {
    const text = `Short ${'x'.repeat(80)}`;
    expect(entryTitle(text)).toBe(`Short ${'x'.repeat(54)}…`);
  });

  it('cuts text without spaces (Chinese) at 60 characters', () => {
    const text = '我们的营业时间是周一至周五上午九点到下午五点。'.repeat(4);
    const title = entryTitle(text);
    expect(title).toBe(`${[...text].slice(0, 60).join('')}…`);
  });

  it('counts characters, not UTF-16 units, and never leaves half an emoji', () => {
    const title = entryTitle('😀'.repeat(70));
    expect(title).toBe(`${'😀'.repeat(60)}…`);
    expect(title.isWellFormed()).toBe(true);
  });

  it('drops a trailing Chinese comma or full stop before the ellipsis', () => {
    const text = `${'营'.repeat(58)}，。${'业'.repeat(10)}`;
    expect(entryTitle(text)).toBe(`${'营'.repeat(58)}…`);
  });
});
