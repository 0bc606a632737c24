// A Q&A pair: an owner-written answer to a question. Ready at once, like typed text, and indexed
// as "question, answer" so retrieval finds it too; while a chatbot has pairs, a visitor message
// matching a question is answered with its answer (qa-match.ts).
import { invalid } from '@parley/common/rpc-errors.ts';
import type { TextEntry } from '../generated/prisma/client.ts';
import { parseOwnedRef, type OwnedChatbotRef } from '../core/owned-chatbot.ts';
import { charCount, insertReadyEntry, type AddTextEntryDeps } from './add-text-entry.ts';
import { ENTRY_SEPARATOR, SOURCE_TYPE } from './knowledge-base.ts';

export const QUESTION_REQUIRED = 'Question is required';
export const ANSWER_REQUIRED = 'Answer is required';
export const QUESTION_MAX_CHARS = 500;
export const QUESTION_TOO_LONG = `Question is too long (maximum ${QUESTION_MAX_CHARS} characters)`;
export const answerTooLong = (max: number) => `Answer is too long (maximum ${max.toLocaleString('en-US')} characters)`;

/** The text a pair is searched by, and given to the model as, when it is not the reply itself. */
export const qaText = (question: string, answer: string) => `${question}${ENTRY_SEPARATOR}${answer}`;

export async function addQaEntry(
  deps: AddTextEntryDeps,
  input: OwnedChatbotRef & { question: string; answer: string },
): Promise<TextEntry> {
  const ref = parseOwnedRef(input);
  const question = input.question.trim().replace(/\s+/g, ' ');
  const answer = input.answer.trim();
  if (!question) throw invalid(QUESTION_REQUIRED);
  if (charCount(question) > QUESTION_MAX_CHARS) throw invalid(QUESTION_TOO_LONG);
  if (!answer) throw invalid(ANSWER_REQUIRED);
  if (charCount(answer) > deps.maxEntryChars) throw invalid(answerTooLong(deps.maxEntryChars));
  return insertReadyEntry(deps, {
    ...ref,
    title: question,
    content: answer,
    indexed: qaText(question, answer),
    sourceType: SOURCE_TYPE.qa,
    question,
  });
}
