// A test case as the owner writes it (docs/adr/0050-quality-loop.md): each "must contain" line is a
// fact, its acceptable phrasings separated by "|"; each "must not contain" line a phrase; the entries
// it must cite; the two verdicts; and the language it must be written in (a code such as "fr"). Turned into the checks the server keeps, and back.
import type { TestCaseFieldsFragment, TestCaseInput } from '../../gql/graphql';

export interface TestCaseFormValues {
  question: string;
  expectedAnswer: string;
  mustContain: string;
  mustNotContain: string;
  cites: string[];
  noAnswer: boolean;
  offersPerson: boolean;
  /** The language the answer must be written in ("fr"), or empty. */
  language: string;
}

export const emptyTestCase = (question = '', expectedAnswer = ''): TestCaseFormValues => ({
  question,
  expectedAnswer,
  mustContain: '',
  mustNotContain: '',
  cites: [],
  noAnswer: false,
  offersPerson: false,
  language: '',
});

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

export const NO_CHECK_MESSAGE = 'Add at least one check: a fact it must contain, a phrase it must not, a source, a verdict, or a language.';

/** The input the server reads, or the message saying what is missing. */
export function testCaseInput(form: TestCaseFormValues, source: string): TestCaseInput | string {
  if (!form.question.trim()) return 'Write the question.';
  const checks = [
    ...lines(form.mustContain).map((fact) => ({
      kind: 'contains',
      phrases: fact
        .split('|')
        .map((p) => p.trim())
        .filter(Boolean),
    })),
    ...(lines(form.mustNotContain).length ? [{ kind: 'not_contains', phrases: lines(form.mustNotContain) }] : []),
    ...form.cites.map((entryId) => ({ kind: 'cites', entryId })),
    ...(form.noAnswer ? [{ kind: 'no_answer' }] : []),
    ...(form.offersPerson ? [{ kind: 'offers_person' }] : []),
    ...(form.language.trim() ? [{ kind: 'language', language: form.language.trim() }] : []),
  ];
  if (checks.length === 0) return NO_CHECK_MESSAGE;
  return { question: form.question.trim(), expectedAnswer: form.expectedAnswer.trim(), checks, source };
}

export function testCaseForm(c: TestCaseFieldsFragment): TestCaseFormValues {
  const of = (kind: string) => c.checks.filter((k) => k.kind === kind);
  return {
    question: c.question,
    expectedAnswer: c.expectedAnswer,
    mustContain: of('contains')
      .map((k) => k.phrases.join(' | '))
      .join('\n'),
    mustNotContain: of('not_contains')
      .flatMap((k) => k.phrases)
      .join('\n'),
    cites: of('cites').flatMap((k) => (k.entryId ? [k.entryId] : [])),
    noAnswer: of('no_answer').length > 0,
    offersPerson: of('offers_person').length > 0,
    language: of('language')[0]?.language ?? '',
  };
}

/** One line per check, as the list shows a case. */
export function describeCheck(
  check: { kind: string; phrases: string[]; entryId?: string | null; language?: string | null },
  titleOf: (id: string) => string,
): string {
  switch (check.kind) {
    case 'contains':
      return `Contains: ${check.phrases.join(' / ')}`;
    case 'not_contains':
      return `Must not contain: ${check.phrases.join(', ')}`;
    case 'cites':
      return `Cites: ${titleOf(check.entryId ?? '')}`;
    case 'no_answer':
      return 'Says it does not know';
    case 'offers_person':
      return 'Offers a person';
    case 'language':
      return `Written in: ${check.language ?? ''}`;
    default:
      return check.kind;
  }
}

/** The entries a case may require to be cited: the knowledge base's, by title. */
export const knowledgeEntries = (kb: { textEntries: ReadonlyArray<{ id: string; title: string }> } | null | undefined) =>
  (kb?.textEntries ?? []).map((e) => ({ id: e.id, title: e.title }));
