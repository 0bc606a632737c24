import { describe, expect, it } from 'vitest';
import { hasControlCharacters, withoutControlCharacters } from '../src/control-characters.ts';

const C0 = ['\u0000', '\u0001', '\u0008', '\u000b', '\u000c', '\u000e', '\u001b', '\u001f'];
const BREAKS = ['\t', '\n', '\r'];
const DEL_AND_C1 = ['\u007f', '\u0080', '\u0085', '\u009f'];

describe('control characters, one rule', () => {
  it.each([...C0, ...BREAKS, ...DEL_AND_C1])('refuses U+%s in a one-line value', (c) => {
    expect(hasControlCharacters(`a${c}b`)).toBe(true);
    expect(hasControlCharacters(`a${c}b`, 'one line')).toBe(true);
  });

  it.each([...C0, ...DEL_AND_C1])('refuses U+%s in multi-line text', (c) => {
    expect(hasControlCharacters(`line one\n${c}line two`, 'multi-line')).toBe(true);
  });

  it('keeps tab and line breaks in multi-line text, and everything printable everywhere', () => {
    expect(hasControlCharacters('one\ttwo\r\nthree\n', 'multi-line')).toBe(false);
    for (const text of ['Ada Lovelace', 'café ☕ 中文 👩🏽‍💻', '\u00a0non-breaking', '\u200bzero width', '\u2028']) {
      expect(hasControlCharacters(text)).toBe(false);
      expect(hasControlCharacters(text, 'multi-line')).toBe(false);
    }
  });

  it('strips every control character, line breaks included', () => {
    expect(withoutControlCharacters('\u0000Ada\n\u0085 Love\u007flace\t')).toBe('Ada Lovelace');
    expect(withoutControlCharacters('plain')).toBe('plain');
  });

  it.each([...C0, ...DEL_AND_C1])('strips U+%s from multi-line text and keeps tab and line breaks', (c) => {
    expect(withoutControlCharacters(`a${c}\tb\r\nc${c}`, 'multi-line')).toBe('a\tb\r\nc');
  });
});
