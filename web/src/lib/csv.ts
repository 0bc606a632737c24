// Writes CSV as RFC 4180 describes it (comma-separated, CRLF line ends, fields holding a comma, a
// quote or a line break wrapped in quotes with inner quotes doubled), and keeps spreadsheets from
// running text as a formula: a text cell starting with = + - @ TAB or CR gets a leading apostrophe
// (OWASP's "CSV injection" advice), since a chatbot name is whatever its owner typed.

export type CsvValue = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One field. Numbers are written as they are; text is defused, then quoted when it must be. */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A whole document: one record per row, each ended by CRLF. */
export function toCsv(rows: ReadonlyArray<ReadonlyArray<CsvValue>>): string {
  return rows.map((row) => row.map(csvField).join(',') + '\r\n').join('');
}
