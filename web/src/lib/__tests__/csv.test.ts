import { describe, expect, it } from 'vitest';
import { csvField, toCsv } from '../csv';

describe('csvField', () => {
  it('writes plain text and numbers as they are', () => {
    expect(csvField('support bot')).toBe('support bot');
    expect(csvField(1200)).toBe('1200');
    expect(csvField(0)).toBe('0');
    expect(csvField('0.00036')).toBe('0.00036');
  });

  it('writes missing values and non-finite numbers as empty fields', () => {
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField(Number.NaN)).toBe('');
    expect(csvField(Number.POSITIVE_INFINITY)).toBe('');
    expect(csvField('')).toBe('');
  });

  it('quotes a field holding a comma, a quote, a CR or an LF, doubling inner quotes (RFC 4180)', () => {
    expect(csvField('Sales, EU')).toBe('"Sales, EU"');
    expect(csvField('the "best" bot')).toBe('"the ""best"" bot"');
    expect(csvField('"')).toBe('""""');
    expect(csvField('line one\nline two')).toBe('"line one\nline two"');
    expect(csvField('a\r\nb')).toBe('"a\r\nb"');
    expect(csvField('ends with\r')).toBe('"ends with\r"');
  });

  it('leaves other punctuation, spaces and non-ASCII text unquoted', () => {
    expect(csvField("O'Brien's bot; v2 (beta)")).toBe("O'Brien's bot; v2 (beta)");
    expect(csvField('  padded  ')).toBe('  padded  ');
    expect(csvField('Assistant de vente — été 日本')).toBe('Assistant de vente — été 日本');
  });

  it.each([
    ['=HYPERLINK("http://evil.example","click")', `"'=HYPERLINK(""http://evil.example"",""click"")"`],
    ['=1+2', "'=1+2"],
    ['+1 555 0100', "'+1 555 0100"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\tcmd', "'\tcmd"],
    ['\r=1', `"'\r=1"`],
    ["=cmd|' /C calc'!A0", `'=cmd|' /C calc'!A0`],
  ])('defuses a formula-looking text %j with a leading apostrophe', (text, expected) => {
    expect(csvField(text)).toBe(expected);
  });

  it('only looks at the first character for formulas', () => {
    expect(csvField('bot = helper')).toBe('bot = helper');
    expect(csvField('a-b')).toBe('a-b');
    expect(csvField('me@example.com')).toBe('me@example.com');
  });

  it('does not touch numbers, even negative ones (they are data, not text a user typed)', () => {
    expect(csvField(-5)).toBe('-5');
  });
});

describe('toCsv', () => {
  it('joins fields with commas and ends every record with CRLF', () => {
    expect(
      toCsv([
        ['a', 'b'],
        [1, 'x,y'],
      ]),
    ).toBe('a,b\r\n1,"x,y"\r\n');
  });

  it('keeps empty fields so every record has the same number of fields', () => {
    expect(toCsv([['a', null, 'c']])).toBe('a,,c\r\n');
  });

  it('is empty for no rows', () => {
    expect(toCsv([])).toBe('');
  });

  it('round-trips through a strict RFC 4180 reader', () => {
    const rows = [
      ['Name', 'Note'],
      ['x, "y"', 'multi\nline'],
      ['plain', ''],
    ];
    expect(parseRfc4180(toCsv(rows))).toEqual(rows);
  });
});

/** A small strict reader, so the writer is checked against the grammar rather than against itself. */
function parseRfc4180(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (char === '"') {
        quoted = false;
        i += 1;
      } else {
        field += char;
        i += 1;
      }
    } else if (char === '"' && field === '') {
      quoted = true;
      i += 1;
    } else if (char === ',') {
      record.push(field);
      field = '';
      i += 1;
    } else if (char === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else if (char === '"' || char === '\r' || char === '\n') {
      throw new Error(`bare ${JSON.stringify(char)} at ${i}`);
    } else {
      field += char;
      i += 1;
    }
  }
  if (field !== '' || record.length > 0) throw new Error('last record not ended by CRLF');
  return records;
}
