import { describe, expect, it } from 'vitest';
import { describeCheck, emptyTestCase, NO_CHECK_MESSAGE, testCaseForm, testCaseInput } from '../test-case-form';

describe('a test case as the owner writes it', () => {
  it('turns "Written in" into a language check, alone enough to save, and back', () => {
    const input = testCaseInput({ ...emptyTestCase('Quelle heure ?'), language: ' fr ' }, 'manual');
    expect(input).toEqual({
      question: 'Quelle heure ?',
      expectedAnswer: '',
      checks: [{ kind: 'language', language: 'fr' }],
      source: 'manual',
    });
    const form = testCaseForm({
      id: 'c1',
      question: 'Quelle heure ?',
      expectedAnswer: '',
      source: 'manual',
      createdAt: '2026-12-02T00:00:00.000Z',
      earlierTurns: [],
      checks: [{ kind: 'language', phrases: [], entryId: null, language: 'fr' }],
    } as Parameters<typeof testCaseForm>[0]);
    expect(form.language).toBe('fr');
    expect(describeCheck({ kind: 'language', phrases: [], language: 'fr' }, () => '')).toBe('Written in: fr');
  });

  it('with no check at all, says what is missing', () => {
    expect(testCaseInput(emptyTestCase('Hello?'), 'manual')).toBe(NO_CHECK_MESSAGE);
  });
});
