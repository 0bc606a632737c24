// The unanswered-question paths (docs/product.md, Feedback, analytics and unanswered questions), each question in the GraphQL shape (./unanswered-questions.ts):
//   GET  /api/chatbot/{id}/unanswered-questions?status=open|resolved|dismissed|all&reason=<code>   → [question] (open by default; every reason)
//   POST /api/chatbot/{id}/unanswered-questions/{qid}/answer  { answer, question? }   → question (resolved)
//   POST /api/chatbot/{id}/unanswered-questions/{qid}/dismiss                          → question (dismissed)
// Pro only (403 "Upgrade to Pro to see unanswered questions"); another owner's chatbot or question is
// 404. The chat service decides all of it; the gateway only checks the JSON types. Rows of this
// operation table (http/operations.ts): reading them is reading conversations, acting on them writing them.
import { z } from 'zod';
import { answerUnansweredQuestion, dismissUnansweredQuestion, listUnansweredQuestions } from './unanswered-questions.ts';
import { operation, type Operation } from '../../http/operations.ts';
import { jsonBody, optionalText, text } from '../../http/input.ts';

const who = 'session';
const base = '/api/chatbot/:id/unanswered-questions';

export const unansweredQuestionOperations: Operation[] = [
  operation(
    {
      method: 'GET',
      path: base,
      who,
      permission: 'conversations:read',
      query: z.object({ status: optionalText('status'), reason: optionalText('reason') }),
    },
    async ({ app: { clients }, member, params, query }) =>
      listUnansweredQuestions(clients, { ownerId: member.ownerId, chatbotId: params.id }, query.status, query.reason),
  ),
  operation(
    {
      method: 'POST',
      path: `${base}/:questionId/answer`,
      who,
      permission: 'conversations:write',
      body: jsonBody({ answer: text('answer'), question: optionalText('question') }),
    },
    async ({ app: { clients }, member, params, body }) =>
      answerUnansweredQuestion(clients, { ownerId: member.ownerId, chatbotId: params.id }, { questionId: params.questionId, ...body }),
  ),
  operation(
    { method: 'POST', path: `${base}/:questionId/dismiss`, who, permission: 'conversations:write' },
    async ({ app: { clients }, member, params }) =>
      dismissUnansweredQuestion(clients, { ownerId: member.ownerId, chatbotId: params.id }, params.questionId),
  ),
];
