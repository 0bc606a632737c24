// The unanswered-question loop: the groups of visitors' questions the knowledge could not answer (or
// that a visitor rated down), kept by the analytics worker; the owner answers a group with one Q&A
// pair on the chatbot service, which then answers the next similar question verbatim, or dismisses
// it. Listing and acting are Pro only; the count of open groups on the chatbot cards is every plan's.
import { conflict, forbidden, invalid, notFound, unavailable } from '@parley/common/rpc-errors.ts';
import type { QuestionCluster } from '../generated/prisma/client.ts';
import { chatbotAccess } from '../core/history-access.ts';
import { isUuid } from '@parley/common/ids.ts';
import type { InsightsDeps } from './get-analytics.ts';
import { parseReasonFilter } from '../core/reasons.ts';

export const UNANSWERED_PRO_ONLY = 'Upgrade to Pro to see unanswered questions';
export const UNANSWERED_UNAVAILABLE = 'Could not load unanswered questions. Please try again.';
export const QUESTION_NOT_FOUND = 'Unanswered question not found';
export const ANSWER_REQUIRED = 'Answer is required';
export const ALREADY_ANSWERED = 'This question has already been answered.';
export const BAD_STATUS = 'Status must be open, resolved, dismissed or all';

const STATUSES = ['open', 'resolved', 'dismissed'] as const;
export type UnansweredStatus = (typeof STATUSES)[number];
/** The page lists groups without paging; this bounds one answer. */
export const MAX_LISTED_QUESTIONS = 500;

interface OwnerChatbot {
  ownerId: string;
  chatbotId: string;
}

/** The owner's chatbot, when the owner is on Pro; NOT_FOUND for another owner's, PERMISSION_DENIED on free. */
async function proChatbot(deps: InsightsDeps, input: OwnerChatbot): Promise<string> {
  const { chatbotId, pro } = await chatbotAccess(deps, input, UNANSWERED_UNAVAILABLE);
  if (!pro) throw forbidden(UNANSWERED_PRO_ONLY);
  return chatbotId;
}

/** One unanswered group of the chatbot, or NOT_FOUND (another chatbot's, an asked group, a malformed id). */
async function findGroup(deps: InsightsDeps, chatbotId: string, questionId: string): Promise<QuestionCluster> {
  if (!isUuid(questionId)) throw notFound(QUESTION_NOT_FOUND);
  const group = await deps.db.questionCluster.findFirst({
    where: { id: questionId.trim().toLowerCase(), chatbotId, kind: 'unanswered' },
  });
  if (!group) throw notFound(QUESTION_NOT_FOUND);
  return group;
}

/** open (default), resolved, dismissed or all; anything else is INVALID_ARGUMENT. */
export function parseStatusFilter(raw: string | undefined): UnansweredStatus | 'all' {
  const status = (raw ?? '').trim().toLowerCase() || 'open';
  if (status === 'all' || (STATUSES as readonly string[]).includes(status)) return status as UnansweredStatus | 'all';
  throw invalid(BAD_STATUS);
}

/** The chatbot's unanswered groups: open first, then the most asked, then the most recent. */
export async function listUnansweredQuestions(
  deps: InsightsDeps,
  input: OwnerChatbot & { status?: string; reason?: string },
): Promise<QuestionCluster[]> {
  const status = parseStatusFilter(input.status);
  const reason = parseReasonFilter(input.reason);
  const chatbotId = await proChatbot(deps, input);
  // A group filed before reasons were kept is missing_knowledge's: the only rule there was.
  const byReason = reason === 'missing_knowledge' ? { OR: [{ reason }, { reason: null }] } : reason ? { reason } : {};
  const groups = await deps.db.questionCluster.findMany({
    where: { chatbotId, kind: 'unanswered', ...(status === 'all' ? {} : { status }), ...byReason },
    orderBy: [{ count: 'desc' }, { lastSeen: 'desc' }, { id: 'asc' }],
    take: MAX_LISTED_QUESTIONS,
  });
  // Stable: open groups first, each status keeping the order above.
  return groups.sort((a, b) => Number(b.status === 'open') - Number(a.status === 'open'));
}

/**
 * Answers a group: one Q&A pair on the chatbot service (its own validation of question and answer
 * applies), then the group resolved with the pair's id. The pair is added first, so a failure leaves
 * the group open to answer again, never resolved without an answer.
 */
export async function answerUnansweredQuestion(
  deps: InsightsDeps,
  input: OwnerChatbot & { questionId: string; answer: string; question?: string },
): Promise<QuestionCluster> {
  const answer = input.answer.trim();
  if (!answer) throw invalid(ANSWER_REQUIRED);
  const chatbotId = await proChatbot(deps, input);
  const group = await findGroup(deps, chatbotId, input.questionId);
  // The group is claimed before the pair is added: of two answers at once (two tabs, a double click)
  // one adds its pair and the other is told, so a group never gets two pairs for one wording. A group
  // the worker reopened (a new wording its pair did not catch) can be answered again.
  const claimed = await deps.db.questionCluster.updateMany({
    where: { id: group.id, status: { not: 'resolved' } },
    data: { status: 'resolved' },
  });
  if (claimed.count === 0) throw conflict(ALREADY_ANSWERED);
  let entryId: string | null;
  try {
    const { entry } = await deps.chatbots.addQaEntry({
      ownerId: input.ownerId.trim(),
      chatbotId,
      question: input.question?.trim() || group.question,
      answer,
    });
    entryId = entry?.id ?? null;
  } catch (err) {
    // No pair: the group goes back to what it was, for the owner to try again.
    await deps.db.questionCluster.update({ where: { id: group.id }, data: { status: group.status } });
    throw err;
  }
  return deps.db.questionCluster.update({ where: { id: group.id }, data: { answerEntryId: entryId } });
}

export async function dismissUnansweredQuestion(
  deps: InsightsDeps,
  input: OwnerChatbot & { questionId: string },
): Promise<QuestionCluster> {
  const chatbotId = await proChatbot(deps, input);
  const group = await findGroup(deps, chatbotId, input.questionId);
  return deps.db.questionCluster.update({ where: { id: group.id }, data: { status: 'dismissed' } });
}

/**
 * Open groups per chatbot of the owner (chatbots with none absent), on every plan: the chatbot cards'
 * counter. The owner's chatbots come from the chatbot service, so the count reads the groups' index
 * by chatbot rather than every owner's groups.
 */
export async function countUnansweredQuestions(deps: InsightsDeps, input: { ownerId: string }): Promise<Record<string, number>> {
  const ownerId = input.ownerId.trim();
  if (!ownerId) throw invalid('owner_id is required.');
  let chatbotIds: string[];
  try {
    const { chatbots } = await deps.chatbots.listChatbots({ ownerId, includeKnowledgeBase: false });
    chatbotIds = chatbots.map((c) => c.id);
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'chatbot ListChatbots failed');
    throw unavailable(UNANSWERED_UNAVAILABLE);
  }
  if (!chatbotIds.length) return {};
  const counts = await deps.db.questionCluster.groupBy({
    by: ['chatbotId'],
    where: { chatbotId: { in: chatbotIds }, ownerId, kind: 'unanswered', status: 'open' },
    _count: { _all: true },
  });
  return Object.fromEntries(counts.map((c) => [c.chatbotId, c._count._all]));
}
