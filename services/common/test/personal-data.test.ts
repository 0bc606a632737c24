// Personal data kept from the model: numbered placeholders for every detail of the 200 generated
// messages, none on the 240 ordinary sentences (under 1 % allowed), the model's echo put back
// (streamed, a placeholder split anywhere), and the owner's patterns checked before they are used.
import { describe, expect, it } from 'vitest';
import {
  compileRedactionPatterns,
  redactionPatternProblem,
  redactor,
  REDACTION_PATTERN_EMPTY,
  REDACTION_PATTERN_INVALID,
  REDACTION_PATTERN_TOO_LONG,
  REDACTION_PATTERN_UNSAFE,
} from '../src/personal-data.ts';
import { passesLuhn, passesMod97 } from '../src/redaction.ts';
import { compactDetail, ORDINARY_SENTENCES, PERSONAL_DATA_SAMPLES } from '../src/testing/personal-data-corpus.ts';

const PLACEHOLDER = /\[(EMAIL|PHONE|CARD|IBAN|CUSTOM)_\d+\]/;

describe('redactor', () => {
  it('replaces every detail of the 200 generated messages, and restores the text exactly', () => {
    expect(PERSONAL_DATA_SAMPLES).toHaveLength(200);
    for (const { text, details } of PERSONAL_DATA_SAMPLES) {
      const r = redactor();
      const redacted = r.redact(text);
      for (const detail of details) {
        expect(redacted, text).not.toContain(detail);
        expect(redacted.replace(/[^0-9A-Za-z@.]/g, ''), text).not.toContain(compactDetail(detail));
      }
      expect(redacted).toMatch(PLACEHOLDER);
      expect(r.restore(redacted)).toBe(text);
    }
  });

  it('leaves at most 1 % of 240 ordinary sentences changed', () => {
    expect(ORDINARY_SENTENCES.length).toBeGreaterThanOrEqual(200);
    const changed = ORDINARY_SENTENCES.filter((s) => redactor().redact(s) !== s);
    expect(changed.length / ORDINARY_SENTENCES.length, changed.join('\n')).toBeLessThan(0.01);
  });

  it('numbers each kind, and gives the same detail the same placeholder in every text', () => {
    const r = redactor();
    expect(r.redact('mail jo@example.com or ann@example.com, call +44 20 7946 0958')).toBe('mail [EMAIL_1] or [EMAIL_2], call [PHONE_1]');
    expect(r.redact('again: jo@example.com')).toBe('again: [EMAIL_1]');
    expect(r.replaced).toBe(3);
  });

  it('checks card numbers with Luhn and IBANs with mod 97', () => {
    expect(redactor().redact('card 4111 1111 1111 1111')).toBe('card [CARD_1]');
    expect(redactor().redact('ref 4111 1111 1111 1112')).toBe('ref 4111 1111 1111 1112');
    expect(redactor().redact('pay DE89 3704 0044 0532 0130 00 now')).toBe('pay [IBAN_1] now');
    expect(redactor().redact('pay GB82WEST12345698765432.')).toBe('pay [IBAN_1].');
    expect(redactor().redact('code DE89 3704 0044 0532 0130 01')).toBe('code DE89 3704 0044 0532 0130 01');
    expect(passesLuhn('378282246310005')).toBe(true);
    expect(passesMod97('FR1420041010050500013M02606')).toBe(true);
  });

  it('numbers on after the placeholders a history already holds', () => {
    const r = redactor();
    expect(r.redact('I wrote [EMAIL_1] before')).toBe('I wrote [EMAIL_1] before');
    expect(r.redact('now b@example.com')).toBe('now [EMAIL_2]');
    // A placeholder this redactor did not give stays as written.
    expect(r.restore('[EMAIL_1] and [EMAIL_2]')).toBe('[EMAIL_1] and b@example.com');
  });

  it('restores a streamed answer whatever the split', () => {
    const r = redactor();
    r.redact('jo@example.com and +44 20 7946 0958');
    const answer = 'Hi! I wrote to [EMAIL_1] and will call [PHONE_1] [1]. See [link] too [';
    const expected = 'Hi! I wrote to jo@example.com and will call +44 20 7946 0958 [1]. See [link] too [';
    for (let size = 1; size <= 8; size++) {
      for (let offset = 0; offset < size; offset++) {
        const s = r.restoring();
        let out = s.push(answer.slice(0, offset));
        for (let i = offset; i < answer.length; i += size) out += s.push(answer.slice(i, i + size));
        out += s.end();
        expect(out).toBe(expected);
      }
    }
  });

  it("replaces what the owner's patterns match, after the built-in kinds", () => {
    const r = redactor({ custom: compileRedactionPatterns(['CUST-\\d{6}', '(?:member|client) no\\. [A-Z]{3}\\d{3}']) });
    expect(r.redact('I am CUST-123456, client no. ABC123, jo@example.com')).toBe('I am [CUSTOM_1], [CUSTOM_2], [EMAIL_1]');
  });
});

describe("the owner's patterns", () => {
  it.each([
    ['CUST-\\d{6}', null],
    ['', REDACTION_PATTERN_EMPTY],
    ['a*', REDACTION_PATTERN_EMPTY],
    ['x'.repeat(201), REDACTION_PATTERN_TOO_LONG],
    ['(unclosed', REDACTION_PATTERN_INVALID],
    ['(a+)+$', REDACTION_PATTERN_UNSAFE],
    ['(\\d*)*x', REDACTION_PATTERN_UNSAFE],
    ['(?:[a-z]+\\s?)+@', REDACTION_PATTERN_UNSAFE],
  ])('%j: %s', (pattern, problem) => {
    expect(redactionPatternProblem(pattern)).toBe(problem);
  });

  it('leaves out a stored pattern that is now refused', () => {
    expect(compileRedactionPatterns(['(a+)+$', 'ok\\d'])).toHaveLength(1);
  });
});
