// The unanswered-question loop as owners see it, shared by REST and GraphQL: the groups of questions
// a chatbot could not answer (or a visitor rated down), answering one with a Q&A pair, dismissing
// one, and the open groups per chatbot for the chatbot cards. The chat service owns every rule
// (pro only, another owner's chatbot or group NOT_FOUND, "Answer is required").
import type { UnansweredQuestion } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';
import { isoDate } from '../../http/dates.ts';

export interface UnansweredQuestionView {
  id: string;
  question: string;
  count: number;
  examples: string[];
  lastSeen: string;
  /** open, resolved or dismissed. */
  status: string;
  /** The Q&A entry that answered it (resolved only). */
  answerEntryId: string | null;
  /** Why its latest question went unanswered (a reason code, docs/adr/0065-reason-codes.md); null for a group filed before reasons were kept. */
  reason: string | null;
}

export function unansweredQuestionView(q: UnansweredQuestion | undefined): UnansweredQuestionView {
  // A contract violation, not a user error: it surfaces as a logged 500.
  if (!q || !q.lastSeen) throw new ConnectError('chat service returned no unanswered question', Code.Internal);
  return {
    id: q.id,
    question: q.question,
    count: q.count,
    examples: [...q.examples],
    lastSeen: isoDate(q.lastSeen)!,
    status: q.status,
    answerEntryId: q.answerEntryId || null,
    reason: q.reason || null,
  };
}

export interface ChatbotOfOwner {
  ownerId: string;
  chatbotId: string;
}

/**
 * The chatbot's groups, most asked first; status open (the service's default when absent), resolved,
 * dismissed or all; `reason` keeps one reason code's groups (the chat service checks it).
 */
export async function listUnansweredQuestions(
  clients: Clients,
  { ownerId, chatbotId }: ChatbotOfOwner,
  status: string | undefined,
  reason?: string,
): Promise<UnansweredQuestionView[]> {
  const { questions } = await clients.chat.listUnansweredQuestions({ ownerId, chatbotId, status: status ?? '', reason: reason ?? '' });
  return questions.map(unansweredQuestionView);
}

/** Answers a group with one Q&A pair (the group's question unless another is given); the group is then resolved. */
export async function answerUnansweredQuestion(
  clients: Clients,
  { ownerId, chatbotId }: ChatbotOfOwner,
  input: { questionId: string; answer: string; question?: string },
): Promise<UnansweredQuestionView> {
  const { question } = await clients.chat.answerUnansweredQuestion({
    ownerId,
    chatbotId,
    questionId: input.questionId,
    answer: input.answer,
    question: input.question ?? '',
  });
  return unansweredQuestionView(question);
}

export async function dismissUnansweredQuestion(
  clients: Clients,
  { ownerId, chatbotId }: ChatbotOfOwner,
  questionId: string,
): Promise<UnansweredQuestionView> {
  const { question } = await clients.chat.dismissUnansweredQuestion({ ownerId, chatbotId, questionId });
  return unansweredQuestionView(question);
}

/** Open groups per chatbot of the owner, in one call for all of them; a chatbot with none is absent. */
export async function loadOpenUnansweredCounts(clients: Clients, ownerId: string): Promise<ReadonlyMap<string, number>> {
  const { openByChatbot } = await clients.chat.countUnansweredQuestions({ ownerId });
  return new Map(Object.entries(openByChatbot));
}
