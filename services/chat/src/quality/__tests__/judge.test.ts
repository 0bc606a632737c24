import { describe, expect, it } from 'vitest';
import { DEFAULT_RUBRIC, JudgeReplyError, parseRubric, parseVerdicts } from '../judge.ts';
import { GeneratedReplyError, knowledgeText, parseGenerated } from '../generate.ts';

const rubric = ['Faithful.', 'Tone.'];
const verdicts = (list: unknown[]) => JSON.stringify({ verdicts: list });

describe('the judge’s reply', () => {
  it('is one verdict per criterion, in order, each with a short reason', () => {
    const reply = verdicts([
      { criterion: 1, passed: true, reason: ' Supported  by [1]. ' },
      { criterion: 2, passed: false, reason: 'Curt.' },
    ]);
    expect(parseVerdicts(reply, rubric)).toEqual([
      { criterion: 'Faithful.', passed: true, reason: 'Supported by [1].' },
      { criterion: 'Tone.', passed: false, reason: 'Curt.' },
    ]);
    // A single code fence around the JSON is taken off.
    expect(parseVerdicts('```json\n' + reply + '\n```', rubric)).toHaveLength(2);
  });

  it.each([
    ['prose', 'It passes.'],
    ['too few verdicts', verdicts([{ criterion: 1, passed: true, reason: 'ok' }])],
    [
      'out of order',
      verdicts([
        { criterion: 2, passed: true, reason: 'ok' },
        { criterion: 1, passed: true, reason: 'ok' },
      ]),
    ],
    [
      'a passed that is not a boolean',
      verdicts([
        { criterion: 1, passed: 'yes', reason: 'ok' },
        { criterion: 2, passed: true, reason: 'ok' },
      ]),
    ],
    [
      'no reason',
      verdicts([
        { criterion: 1, passed: true, reason: ' ' },
        { criterion: 2, passed: true, reason: 'ok' },
      ]),
    ],
    [
      'a reason too long',
      verdicts([
        { criterion: 1, passed: true, reason: 'x'.repeat(301) },
        { criterion: 2, passed: true, reason: 'ok' },
      ]),
    ],
    ['another key', JSON.stringify({ verdicts: [], score: 1 })],
    [
      'an extra field',
      verdicts([
        { criterion: 1, passed: true, reason: 'ok', score: 3 },
        { criterion: 2, passed: true, reason: 'ok' },
      ]),
    ],
  ])('is refused when it is %s', (_, reply) => {
    expect(() => parseVerdicts(reply, rubric)).toThrow(JudgeReplyError);
  });

  it('reads the rubric trimmed, the product’s when empty, bounded', () => {
    expect(parseRubric(['  Be  kind. ', ''])).toEqual(['Be kind.']);
    expect(parseRubric([])).toEqual(DEFAULT_RUBRIC);
    expect(() => parseRubric(['x'.repeat(301)])).toThrow('A criterion has at most 300 characters.');
  });
});

describe('generated cases', () => {
  const reply = (cases: unknown) => JSON.stringify({ cases });

  it('are read strictly and bounded', () => {
    expect(parseGenerated(reply([{ question: ' Hours? ', facts: ['ten', ' '] }]), 2, 100)).toEqual([
      { question: 'Hours?', facts: ['ten'] },
    ]);
    for (const bad of [
      reply([
        { question: 'a', facts: ['x'] },
        { question: 'b', facts: ['y'] },
        { question: 'c', facts: ['z'] },
      ]),
      reply([{ question: 'a', facts: [] }]),
      reply([{ question: 'a'.repeat(101), facts: ['x'] }]),
      reply([{ question: 'a', facts: ['1', '2', '3', '4', '5', '6'] }]),
      reply([{ question: 'a', facts: [3] }]),
      '{"cases": "many"}',
      'Here you go',
    ])
      expect(() => parseGenerated(bad, 2, 100)).toThrow(GeneratedReplyError);
  });

  it('read at most the knowledge bound, ready entries only', () => {
    const text = knowledgeText([
      { title: 'Hours', content: 'Open at ten.', question: '', status: 'ready' },
      { title: 'Draft', content: 'Not yet.', question: '', status: 'processing' },
      { title: '', content: 'x'.repeat(30_000), question: '', status: 'ready' },
    ]);
    expect(text.startsWith('# Hours\nOpen at ten.\n\nxxx')).toBe(true);
    expect(text).not.toContain('Not yet.');
    expect(text.length).toBeLessThanOrEqual(24_000);
  });
});
