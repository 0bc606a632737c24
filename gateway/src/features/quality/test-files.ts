// A chatbot's test cases as files (docs/adr/0050-quality-loop.md): CSV, for a spreadsheet, and JSONL,
// one case per line in the API's own shape. importTestCases reads what exportTestCases writes. The
// CSV is Papa Parse's, as the exports' (RFC 4180, CRLF, a BOM so spreadsheets read UTF-8):
//
//   question, must_contain, must_not_contain, cites, says_it_does_not_know, offers_a_person,
//   expected_answer, earlier_turns, language
//
// must_contain holds the facts separated by ";" and each fact's acceptable phrasings by "|";
// must_not_contain phrases by "|"; cites knowledge entry ids by ";"; the two verdicts "yes" or empty;
// earlier_turns a JSON array of {"role","content"} (usually empty); language the code of the language the
// answer must be written in (a "language" check), or empty. The file is read here into
// cases, each with its line; the chat service checks every case and names each bad line.
import Papa from 'papaparse';
import { invalid } from '@parley/common/rpc-errors.ts';
import { HttpError } from '../../http/errors.ts';

export const TEST_FILE_FORMATS = ['csv', 'jsonl'] as const;
export type TestFileFormat = (typeof TEST_FILE_FORMATS)[number];
export const TEST_CSV_COLUMNS = [
  'question',
  'must_contain',
  'must_not_contain',
  'cites',
  'says_it_does_not_know',
  'offers_a_person',
  'expected_answer',
  'earlier_turns',
  'language',
] as const;
/** The largest file read, in characters: 500 cases of a few thousand characters each. */
export const MAX_TEST_FILE_CHARS = 2_000_000;

export interface FileCheck {
  kind: string;
  phrases: string[];
  entryId: string;
  language?: string;
}

export interface FileCase {
  line: number;
  question: string;
  earlierTurns: { role: string; content: string }[];
  checks: FileCheck[];
  expectedAnswer: string;
}

export function parseFormat(raw: string): TestFileFormat {
  const format = raw.trim().toLowerCase();
  if (!(TEST_FILE_FORMATS as readonly string[]).includes(format)) throw invalid('format must be csv or jsonl.');
  return format as TestFileFormat;
}

const YES = new Set(['yes', 'y', 'true', '1', 'x']);
const split = (cell: string, sep: string) =>
  cell
    .split(sep)
    .map((p) => p.trim())
    .filter(Boolean);

/** The cases of the file, each with its line; a malformed line is BAD_USER_INPUT naming it (all of them, at most 20). */
export function readTestFile(format: TestFileFormat, content: string): FileCase[] {
  if (content.length > MAX_TEST_FILE_CHARS)
    throw new HttpError(413, `The file is too large (at most ${MAX_TEST_FILE_CHARS.toLocaleString('en-US')} characters).`);
  const text = content.replace(/^\ufeff/, '');
  const errors: string[] = [];
  const cases = format === 'csv' ? readCsv(text, errors) : readJsonl(text, errors);
  if (errors.length) throw invalid(errors.slice(0, 20).join('\n'));
  if (cases.length === 0) throw invalid('The file has no test case.');
  return cases;
}

function readJsonl(text: string, errors: string[]): FileCase[] {
  const cases: FileCase[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      errors.push(`Line ${line}: not valid JSON.`);
      return;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      errors.push(`Line ${line}: each line is one JSON object.`);
      return;
    }
    const o = value as Record<string, unknown>;
    const checks = Array.isArray(o.checks) ? o.checks : null;
    const turns = o.earlierTurns === undefined ? [] : Array.isArray(o.earlierTurns) ? o.earlierTurns : null;
    if (typeof o.question !== 'string' || !checks || !turns) {
      errors.push(`Line ${line}: needs "question" (text) and "checks" (a list), and "earlierTurns" is a list when given.`);
      return;
    }
    cases.push({
      line,
      question: o.question,
      expectedAnswer: typeof o.expectedAnswer === 'string' ? o.expectedAnswer : '',
      earlierTurns: turns.map((t) => ({
        role: String((t as { role?: unknown })?.role ?? ''),
        content: String((t as { content?: unknown })?.content ?? ''),
      })),
      checks: checks.map((c) => {
        const check = (c ?? {}) as Record<string, unknown>;
        return {
          kind: String(check.kind ?? ''),
          phrases: Array.isArray(check.phrases) ? check.phrases.map(String) : [],
          entryId: typeof check.entryId === 'string' ? check.entryId : '',
          language: typeof check.language === 'string' ? check.language : '',
        };
      }),
    });
  });
  return cases;
}

function readCsv(text: string, errors: string[]): FileCase[] {
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: 'greedy' });
  for (const e of parsed.errors) errors.push(`Line ${lineAt(text, e.index ?? 0)}: ${e.message}.`);
  const [header, ...rows] = parsed.data;
  if (!header) return [];
  const column = new Map(header.map((h, i) => [h.trim().toLowerCase(), i]));
  if (!column.has('question')) {
    errors.push('Line 1: the header must name a "question" column.');
    return [];
  }
  // Each row's first line: rows are in order, so the search for the next one starts after the last.
  let from = text.indexOf('\n') + 1;
  return rows.map((row) => {
    const start = from;
    const line = lineAt(text, start);
    from = nextRowStart(text, start);
    const cell = (name: (typeof TEST_CSV_COLUMNS)[number]) => {
      const i = column.get(name);
      return i === undefined ? '' : (row[i] ?? '').trim();
    };
    const checks: FileCheck[] = [
      ...split(cell('must_contain'), ';').map((fact) => ({ kind: 'contains', phrases: split(fact, '|'), entryId: '' })),
      ...(cell('must_not_contain') ? [{ kind: 'not_contains', phrases: split(cell('must_not_contain'), '|'), entryId: '' }] : []),
      ...split(cell('cites'), ';').map((entryId) => ({ kind: 'cites', phrases: [], entryId })),
      ...(YES.has(cell('says_it_does_not_know').toLowerCase()) ? [{ kind: 'no_answer', phrases: [], entryId: '' }] : []),
      ...(YES.has(cell('offers_a_person').toLowerCase()) ? [{ kind: 'offers_person', phrases: [], entryId: '' }] : []),
      ...(cell('language') ? [{ kind: 'language', phrases: [], entryId: '', language: cell('language') }] : []),
    ];
    let earlierTurns: { role: string; content: string }[] = [];
    if (cell('earlier_turns')) {
      try {
        const turns = JSON.parse(cell('earlier_turns')) as unknown;
        if (!Array.isArray(turns)) throw new Error('not a list');
        earlierTurns = turns.map((t: { role?: unknown; content?: unknown }) => ({
          role: String(t?.role ?? ''),
          content: String(t?.content ?? ''),
        }));
      } catch {
        errors.push(`Line ${line}: earlier_turns must be a JSON list of {"role", "content"}.`);
      }
    }
    return { line, question: cell('question'), checks, expectedAnswer: cell('expected_answer'), earlierTurns };
  });
}

/** 1-based line of the character at `index`. */
function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Where the CSV row starting at `start` ends (after its newline), quotes spanning lines included. */
function nextRowStart(text: string, start: number): number {
  let quoted = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (ch === '\n' && !quoted) {
      // Blank lines are skipped by the parser: the next row starts at the next line with content.
      let next = i + 1;
      while (text[next] === '\r' || text[next] === '\n') next++;
      return next;
    }
  }
  return text.length;
}

interface CaseOut {
  question: string;
  earlierTurns: { role: string; content: string }[];
  checks: { kind: string; phrases: string[]; entryId: string | null; language?: string | null }[];
  expectedAnswer: string;
}

export function writeTestFile(format: TestFileFormat, cases: CaseOut[]): string {
  if (format === 'jsonl')
    return cases
      .map((c) =>
        JSON.stringify({
          question: c.question,
          earlierTurns: c.earlierTurns,
          checks: c.checks.map((k) => ({
            kind: k.kind,
            ...(k.phrases.length ? { phrases: k.phrases } : {}),
            ...(k.entryId ? { entryId: k.entryId } : {}),
            ...(k.language ? { language: k.language } : {}),
          })),
          expectedAnswer: c.expectedAnswer,
        }),
      )
      .map((l) => `${l}\n`)
      .join('');
  const rows = cases.map((c) => {
    const of = (kind: string) => c.checks.filter((k) => k.kind === kind);
    return [
      c.question,
      of('contains')
        .map((k) => k.phrases.join(' | '))
        .join('; '),
      of('not_contains')
        .flatMap((k) => k.phrases)
        .join(' | '),
      of('cites')
        .map((k) => k.entryId ?? '')
        .join('; '),
      of('no_answer').length ? 'yes' : '',
      of('offers_person').length ? 'yes' : '',
      c.expectedAnswer,
      c.earlierTurns.length ? JSON.stringify(c.earlierTurns) : '',
      of('language')[0]?.language ?? '',
    ];
  });
  return `\ufeff${Papa.unparse([[...TEST_CSV_COLUMNS], ...rows], { newline: '\r\n' })}\r\n`;
}
