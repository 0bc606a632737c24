// The judge (docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md): what phrases
// cannot check, graded by a model of the catalogue against the chatbot's rubric (faithful to the
// cited passages, answers the question, tone; the owner words it), one verdict with a short reason
// per criterion. The checks alone decide whether a case passes: the verdicts are shown beside them.
// The judge's reply is parsed strictly (one JSON object of the schema below, one verdict per
// criterion in order); anything else is a judge error, never a pass.
import { LanguageModelError, type ModelMessage } from '../models/language-model.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { exactObject, replyJson } from './billed-call.ts';

export const DEFAULT_RUBRIC = [
  'Faithful: everything the answer states is supported by the cited passages.',
  'Answers the question: the answer addresses what was asked.',
  'Tone: the answer is polite, clear and concise.',
];
export const MAX_CRITERIA = 8;
export const MAX_CRITERION_CHARS = 300;
export const MAX_REASON_CHARS = 300;
/** What the judge may write: a verdict and a short reason per criterion. */
export const JUDGE_MAX_TOKENS = 600;
/** The passages the judge reads of the cited entries, in all. */
export const JUDGE_PASSAGE_CHARS = 12_000;

export interface JudgeVerdict {
  criterion: string;
  passed: boolean;
  reason: string;
}

/** The owner's rubric, trimmed, blank lines dropped; INVALID_ARGUMENT out of bounds. Empty: the product's. */
export function parseRubric(raw: string[]): string[] {
  const rubric = raw.map((c) => c.replace(/\s+/gu, ' ').trim()).filter(Boolean);
  if (rubric.length === 0) return [...DEFAULT_RUBRIC];
  if (rubric.length > MAX_CRITERIA) throw invalid(`A rubric has at most ${MAX_CRITERIA} criteria.`);
  if (rubric.some((c) => [...c].length > MAX_CRITERION_CHARS)) throw invalid(`A criterion has at most ${MAX_CRITERION_CHARS} characters.`);
  return rubric;
}

/** The rubric as stored (JSON), read back; anything else: the product's. */
export function storedRubric(json: unknown): string[] {
  return Array.isArray(json) && json.length > 0 && json.every((c) => typeof c === 'string') ? (json as string[]) : [...DEFAULT_RUBRIC];
}

export const JUDGE_SCHEMA_NAME = 'parley_judge';

export const judgeSchema = (criteria: number): Record<string, unknown> => ({
  type: 'object',
  additionalProperties: false,
  required: ['verdicts'],
  properties: {
    verdicts: {
      type: 'array',
      description: `Exactly ${criteria} verdicts, one per criterion, in order.`,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['criterion', 'passed', 'reason'],
        properties: {
          criterion: { type: 'integer' },
          passed: { type: 'boolean' },
          reason: { type: 'string' },
        },
      },
    },
  },
});

const INSTRUCTIONS = `You grade one answer of a customer-support chatbot against numbered criteria.
Read the question, the answer and the knowledge passages the answer cites. For each criterion, decide
whether the answer meets it, with one short sentence saying why. Judge only from what is given: an
answer that cites nothing has no passage to be faithful to, so it fails a criterion about being
faithful unless it only says it does not know.
Reply with one JSON object and nothing else: {"verdicts":[{"criterion":1,"passed":true,"reason":"..."}]},
one verdict per criterion, in the criteria's order.`;

/** What the judge reads: the rubric, the question (after its earlier turns), the answer, the cited passages. */
export function judgePrompt(input: {
  rubric: string[];
  question: string;
  earlierTurns: { role: string; content: string }[];
  answer: string;
  passages: { title: string; content: string }[];
}): ModelMessage[] {
  const criteria = input.rubric.map((c, i) => `${i + 1}. ${c}`).join('\n');
  let room = JUDGE_PASSAGE_CHARS;
  const passages = input.passages
    .map((p, i) => {
      const text = [...p.content].slice(0, Math.max(0, room)).join('');
      room -= text.length;
      return `[${i + 1}] ${p.title}\n${text}`;
    })
    .filter((p) => p.trim())
    .join('\n\n');
  const turns = input.earlierTurns.map((t) => `${t.role}: ${t.content}`).join('\n');
  return [
    { role: 'system', content: `${INSTRUCTIONS}\n\n<judge_rubric>\n${criteria}\n</judge_rubric>` },
    {
      role: 'user',
      content:
        (turns ? `<earlier_turns>\n${turns}\n</earlier_turns>\n\n` : '') +
        `<question>\n${input.question}\n</question>\n\n<answer>\n${input.answer}\n</answer>\n\n<cited_passages>\n${passages || '(none)'}\n</cited_passages>`,
    },
  ];
}

export class JudgeReplyError extends Error {}

/** The judge's reply as verdicts, strictly: one per criterion, in order; else JudgeReplyError. */
export function parseVerdicts(text: string, rubric: string[]): JudgeVerdict[] {
  const root = exactObject(replyJson(text), ['verdicts']);
  const list = root?.verdicts;
  if (!Array.isArray(list)) throw new JudgeReplyError('the reply is not the verdicts asked for');
  if (list.length !== rubric.length) throw new JudgeReplyError(`${list.length} verdicts for ${rubric.length} criteria`);
  return list.map((raw, i) => {
    const v = exactObject(raw, ['criterion', 'passed', 'reason']);
    if (!v || v.criterion !== i + 1 || typeof v.passed !== 'boolean' || typeof v.reason !== 'string')
      throw new JudgeReplyError(`verdict ${i + 1} is malformed`);
    const reason = v.reason.replace(/\s+/gu, ' ').trim();
    if (!reason || [...reason].length > MAX_REASON_CHARS) throw new JudgeReplyError(`verdict ${i + 1} has no short reason`);
    return { criterion: rubric[i], passed: v.passed, reason };
  });
}

/** The owner's words for a judge that gave no verdict. */
export function judgeErrorMessage(err: unknown): string {
  if (err instanceof JudgeReplyError) return `Judge error: the judge's reply could not be read (${err.message}).`;
  if (err instanceof LanguageModelError) return `Judge error: the judge's model failed (${err.kind}).`;
  return 'Judge error: the judge could not grade this answer.';
}
