// The unanswered-question paths (docs/product.md, Feedback, analytics and unanswered questions), each question in the GraphQL shape (./unanswered-questions.ts):
//   GET  /api/chatbot/{id}/unanswered-questions?status=open|resolved|dismissed|all&reason=<code>   → [question] (open by default; every reason)
//   POST /api/chatbot/{id}/unanswered-questions/{qid}/answer  { answer, question? }   → question (resolved)
//   POST /api/chatbot/{id}/unanswered-questions/{qid}/dismiss                          → question (dismissed)
// Pro only (403 "Upgrade to Pro to see unanswered questions"); another owner's chatbot or question is
// 404. The chat service decides all of it; the gateway only checks the JSON types.
import { Router, type Request } from 'express';
import type { Clients } from '../../http/clients.ts';
import { ownerId } from '../../access/members.ts';
import { answerUnansweredQuestion, dismissUnansweredQuestion, listUnansweredQuestions } from './unanswered-questions.ts';
import { jsonObject, optionalString, stringField } from '../../http/input.ts';

/** Mounted under /chatbot, beside the chatbot routes. */
export function unansweredQuestionRoutes(clients: Clients): Router {
  const router = Router();
  const chatbotOf = async (req: Request<{ id: string }>) => ({
    ownerId: await ownerId(clients, req),
    chatbotId: req.params.id,
  });

  router.get('/:id/unanswered-questions', async (req, res) => {
    const chatbot = await chatbotOf(req);
    res.json(await listUnansweredQuestions(clients, chatbot, optionalString(req.query, 'status'), optionalString(req.query, 'reason')));
  });

  router.post('/:id/unanswered-questions/:questionId/answer', async (req, res) => {
    const chatbot = await chatbotOf(req);
    const body = jsonObject(req.body);
    const answered = await answerUnansweredQuestion(clients, chatbot, {
      questionId: req.params.questionId,
      answer: stringField(body, 'answer'),
      question: optionalString(body, 'question'),
    });
    res.json(answered);
  });

  router.post('/:id/unanswered-questions/:questionId/dismiss', async (req, res) => {
    const chatbot = await chatbotOf(req);
    res.json(await dismissUnansweredQuestion(clients, chatbot, req.params.questionId));
  });

  return router;
}
