// Each check of a test case against crafted answers, passing and failing.
import { Code, ConnectError } from '@connectrpc/connect';
import { beforeAll, describe, expect, it } from 'vitest';
import { normalise, parseCheck, parseChecks, prepareChecks, runCheck, runChecks, type CheckedAnswer } from '../checks.ts';

const ENTRY = '5b1f8c1e-3a59-4c4b-9f0e-2d7f4f8a6b01';
const OTHER = '0c9b2d44-7e1a-4f53-8a6d-91b3e0f2c7aa';

const answer = (over: Partial<CheckedAnswer> = {}): CheckedAnswer => ({
  text: 'The museum opens at  Ten [1] and closes at six.',
  sources: [{ entryId: ENTRY, title: 'Opening hours' }],
  unanswered: false,
  offerHandoff: false,
  ...over,
});

describe('contains', () => {
  it('finds a phrase whatever its case, its white space and the [n] markers', () => {
    expect(runCheck({ kind: 'contains', phrases: ['opens at ten and closes'] }, answer())).toEqual({
      check: { kind: 'contains', phrases: ['opens at ten and closes'] },
      passed: true,
      detail: '',
    });
    expect(runCheck({ kind: 'contains', phrases: ['OPENS\nAT TEN'] }, answer()).passed).toBe(true);
  });

  it('passes on any one of the acceptable phrasings, and fails naming them when none is there', () => {
    expect(runCheck({ kind: 'contains', phrases: ['at 10', 'at ten'] }, answer()).passed).toBe(true);
    expect(runCheck({ kind: 'contains', phrases: ['at 9', 'at nine'] }, answer())).toMatchObject({
      passed: false,
      detail: 'Missing: at 9 / at nine',
    });
  });

  it('compares Unicode forms alike', () => {
    expect(normalise('Ｃafé  OPEN')).toBe('café open');
    expect(runCheck({ kind: 'contains', phrases: ['café'] }, answer({ text: 'The CAFE\u0301 is open.' })).passed).toBe(true);
  });
});

describe('must not contain', () => {
  it('passes when none is there and fails naming the ones found', () => {
    expect(runCheck({ kind: 'not_contains', phrases: ['monday', 'free entry'] }, answer()).passed).toBe(true);
    expect(runCheck({ kind: 'not_contains', phrases: ['closes at SIX', 'monday'] }, answer())).toMatchObject({
      passed: false,
      detail: 'Contains: closes at SIX',
    });
  });
});

describe('cites', () => {
  it('passes when a source is the entry, fails when the answer cites another or nothing', () => {
    expect(runCheck({ kind: 'cites', entryId: ENTRY }, answer()).passed).toBe(true);
    expect(runCheck({ kind: 'cites', entryId: OTHER }, answer())).toMatchObject({ passed: false, detail: 'Cites Opening hours instead' });
    expect(runCheck({ kind: 'cites', entryId: ENTRY }, answer({ sources: [] }))).toMatchObject({ passed: false, detail: 'Cites nothing' });
  });
});

describe('says it does not know, offers a person', () => {
  it('follows the turn’s own verdicts', () => {
    expect(runCheck({ kind: 'no_answer' }, answer({ unanswered: true, sources: [] })).passed).toBe(true);
    expect(runCheck({ kind: 'no_answer' }, answer())).toMatchObject({
      passed: false,
      detail: 'Answered instead of saying it does not know',
    });
    expect(runCheck({ kind: 'offers_person' }, answer({ offerHandoff: true })).passed).toBe(true);
    expect(runCheck({ kind: 'offers_person' }, answer())).toMatchObject({ passed: false, detail: 'Does not offer a person' });
  });
});

describe('a case passes when every check does', () => {
  it('fails on one failing check and keeps each result', () => {
    const { passed, results } = runChecks(
      [
        { kind: 'contains', phrases: ['opens at ten'] },
        { kind: 'cites', entryId: OTHER },
      ],
      answer(),
    );
    expect(passed).toBe(false);
    expect(results.map((r) => r.passed)).toEqual([true, false]);
    expect(runChecks([{ kind: 'contains', phrases: ['opens at ten'] }], answer()).passed).toBe(true);
  });
});

describe('reading checks', () => {
  it('accepts each kind, trimmed, and refuses what is wrong with a clear message', () => {
    expect(parseCheck({ kind: ' Contains ', phrases: [' at ten ', ''] })).toEqual({ kind: 'contains', phrases: ['at ten'] });
    expect(parseCheck({ kind: 'cites', entryId: ENTRY.toUpperCase() })).toEqual({ kind: 'cites', entryId: ENTRY });
    expect(parseCheck({ kind: 'no_answer', phrases: ['ignored'] })).toEqual({ kind: 'no_answer' });
    expect(parseCheck({ kind: 'sounds_nice' })).toBe(
      'Unknown check "sounds_nice" (use contains, not_contains, cites, no_answer, offers_person, language)',
    );
    expect(parseCheck({ kind: 'contains', phrases: [] })).toBe('A "contains" check needs at least one phrase');
    expect(parseCheck({ kind: 'contains', phrases: [3] })).toBe('Phrases must be text');
    expect(parseCheck({ kind: 'cites', entryId: 'entry-1' })).toBe('A "cites" check needs a knowledge entry id');
  });

  it('refuses a case without checks, or naming the check at fault', () => {
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err instanceof ConnectError ? [err.code, err.rawMessage] : err;
      }
      return null;
    };
    expect(refusal(() => parseChecks([]))).toEqual([Code.InvalidArgument, 'A test case needs at least one check.']);
    expect(refusal(() => parseChecks([{ kind: 'no_answer' }, { kind: 'cites' }]))).toEqual([
      Code.InvalidArgument,
      'Check 2: A "cites" check needs a knowledge entry id.',
    ]);
  });
});

describe('language', () => {
  // franc-min is loaded before the first language check (a test run's first case), not at start.
  beforeAll(() => prepareChecks([{ kind: 'language', language: 'fr' }]));
  const said = (text: string): CheckedAnswer => ({ text, sources: [], unanswered: false, offerHandoff: false });
  const french = 'Nous sommes ouverts du lundi au vendredi, de neuf heures à dix-huit heures [1]. Le samedi, le magasin ferme à midi.';
  const english = 'We are open from Monday to Friday, from nine in the morning until six in the evening [1]. On Saturday we close at noon.';

  it('passes an answer written in the language the case names, by ISO 639-1 code, ISO 639-3 code or name', () => {
    expect(runCheck({ kind: 'language', language: 'fr' }, said(french)).passed).toBe(true);
    expect(runCheck({ kind: 'language', language: 'fra' }, said(french)).passed).toBe(true);
    expect(runCheck({ kind: 'language', language: 'english' }, said(english)).passed).toBe(true);
    expect(
      runCheck({ kind: 'language', language: 'zh' }, said('我们周一至周五上午九点到下午六点营业，周六中午关门。欢迎光临我们的商店。'))
        .passed,
    ).toBe(true);
  });

  it('fails an answer in another language, and one too short to tell, saying which', () => {
    expect(runCheck({ kind: 'language', language: 'fr' }, said(english))).toMatchObject({
      passed: false,
      detail: 'Not written in fr (eng)',
    });
    expect(runCheck({ kind: 'language', language: 'fr' }, said('OK [1]'))).toMatchObject({
      passed: false,
      detail: 'Not written in fr: too short to tell its language',
    });
  });

  it('reads a language check with a code it knows, and refuses one without', () => {
    expect(parseCheck({ kind: 'language', language: ' FR ' })).toEqual({ kind: 'language', language: 'fr' });
    expect(parseCheck({ kind: 'language', language: 'xx' })).toMatch(/needs a language code/);
    expect(parseCheck({ kind: 'language' })).toMatch(/needs a language code/);
  });
});
