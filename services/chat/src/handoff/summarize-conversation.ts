// The agent's summary of a conversation (docs/adr/0034-humans-in-the-loop.md): one model call
// through the same model as the answers, paid like an answer (a credit hold first, then a
// UsageRecorded that settles it and counts it in the workspace's usage), kept on the conversation
// with the number of messages it covered and made again only when messages came since. Internal
// notes never reach the model. Offline mode (no model): the visitor's first and latest questions,
// free.
import { randomUUID } from 'node:crypto';
import { notFound, unavailable } from '@parley/common/rpc-errors.ts';
import type { PromptMessage } from '../public-chat/build-prompt.ts';
import type { RoutedModel } from '../models/model-router.ts';
import { compileRedactionPatterns, redactor } from '@parley/common/personal-data.ts';
import { CONVERSATION_NOT_FOUND, assertInboxAccess, parseConversationId, type HandoffDeps } from './handoff-deps.ts';

export const SUMMARY_UNAVAILABLE = 'Could not summarize the conversation right now. Please try again.';
export const NOTHING_TO_SUMMARIZE = 'The visitor has not written anything yet.';
/** The newest messages the model reads at most, and their characters at most. */
export const SUMMARY_MESSAGES = 60;
export const SUMMARY_CHARS = 12_000;
export const SUMMARY_MAX_TOKENS = 300;

const INSTRUCTIONS =
  'You summarise a chat between a website visitor and a support chatbot (and possibly a human agent) for the agent taking it over. ' +
  'In at most five short bullet points: what the visitor wants, what they were told, and what is still open. ' +
  "Write in the visitor's language. Do not invent facts.";

interface TranscriptRow {
  role: 'user' | 'assistant' | 'system' | 'agent';
  content: string;
  authorName: string | null;
}

const speaker = (m: TranscriptRow) =>
  m.role === 'user' ? 'Visitor' : m.role === 'assistant' ? 'Bot' : m.role === 'agent' ? `Agent (${m.authorName ?? 'agent'})` : 'System';

/** The transcript the model reads: the newest messages within SUMMARY_CHARS, oldest first. */
export function transcript(messages: TranscriptRow[]): string {
  const lines: string[] = [];
  let chars = 0;
  for (const m of [...messages].reverse()) {
    const line = `${speaker(m)}: ${m.content}`;
    if (chars + line.length > SUMMARY_CHARS && lines.length > 0) break;
    lines.push(line.slice(0, SUMMARY_CHARS));
    chars += line.length;
  }
  return lines.reverse().join('\n');
}

/** Offline mode's summary: the visitor's first and latest questions (the same one when they asked once). */
export function offlineSummary(first: string | null, latest: string | null): string {
  if (!first || !latest) return NOTHING_TO_SUMMARIZE;
  if (first === latest) return `Question: ${first}`;
  return `First question: ${first}\nLatest question: ${latest}`;
}

export async function summarizeConversation(deps: HandoffDeps, raw: { ownerId: string; conversationId: string }): Promise<string> {
  const conversationId = parseConversationId(raw.conversationId);
  const ownerId = await assertInboxAccess(deps, raw.ownerId);
  const conversation = await deps.db.conversation.findFirst({
    where: { id: conversationId, ownerId },
    select: { id: true, chatbotId: true, messageCount: true, summary: true, summaryMessageCount: true },
  });
  if (!conversation) throw notFound(CONVERSATION_NOT_FOUND);
  if (conversation.summary && conversation.summaryMessageCount === conversation.messageCount) return conversation.summary;

  const newest = await deps.db.$queryRaw<TranscriptRow[]>`
    SELECT "role"::text AS "role", "content", "authorName" FROM "Message"
     WHERE "conversationId" = ${conversationId}::uuid AND "role" <> 'note'
     ORDER BY "id" DESC LIMIT ${SUMMARY_MESSAGES}`;
  const messages = newest.reverse();
  // The first question may be older than the newest messages: offline mode names it all the same.
  const [first] = await deps.db.$queryRaw<TranscriptRow[]>`
    SELECT "role"::text AS "role", "content", "authorName" FROM "Message"
     WHERE "conversationId" = ${conversationId}::uuid AND "role" = 'user' ORDER BY "id" LIMIT 1`;

  let summary: string;
  const model = deps.summary.model;
  const latest = messages.filter((m) => m.role === 'user').at(-1);
  if (!model || !latest) {
    summary = offlineSummary(first?.content ?? null, latest?.content ?? null);
  } else {
    summary = await modelSummary(deps, model, { ownerId, chatbotId: conversation.chatbotId }, messages);
  }
  // Raw, so the conversation's updatedAt (its last activity, the history's order) stays as it is.
  await deps.db.$executeRaw`
    UPDATE "Conversation" SET "summary" = ${summary}, "summaryMessageCount" = ${conversation.messageCount}
     WHERE "id" = ${conversationId}::uuid`;
  return summary;
}

async function modelSummary(
  deps: HandoffDeps,
  model: RoutedModel,
  chatbot: { ownerId: string; chatbotId: string },
  messages: TranscriptRow[],
): Promise<string> {
  const requestId = randomUUID();
  const found = await deps.chatbots
    .listChatbots({ ownerId: chatbot.ownerId, includeKnowledgeBase: false })
    .then((r) => r.chatbots.find((c) => c.id === chatbot.chatbotId) ?? null)
    .catch(() => undefined);
  const chatbotName = found?.name ?? '';
  // A chatbot keeping personal data from the model has its transcript read with placeholders, the
  // summary restored for the agent (docs/adr/0049-personal-data-kept-from-the-model.md); when the
  // chatbot could not be read, the built-in kinds are kept from the model all the same.
  const redaction =
    found === undefined || found?.privacy?.redactPersonalData
      ? redactor({ custom: compileRedactionPatterns(found?.privacy?.patterns ?? []) })
      : null;
  const read = transcript(messages);
  const prompt: PromptMessage[] = [
    { role: 'system', content: INSTRUCTIONS },
    { role: 'user', content: redaction ? redaction.redact(read) : read },
  ];
  try {
    await deps.summary.credit.reserve({
      requestId,
      ownerId: chatbot.ownerId,
      model: model.model.id,
      prompt,
      chatbotId: chatbot.chatbotId,
      dailySpendLimit: null,
    });
  } catch {
    throw unavailable(SUMMARY_UNAVAILABLE);
  }
  let answer;
  try {
    answer = await model.language.complete({ messages: prompt, maxTokens: SUMMARY_MAX_TOKENS });
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'the summary model call failed');
    await deps.summary.credit.release(requestId);
    throw unavailable(SUMMARY_UNAVAILABLE);
  }
  deps.summary.publishUsage({
    requestId,
    ownerId: chatbot.ownerId,
    chatbotId: chatbot.chatbotId,
    chatbotName,
    model: answer.model,
    provider: answer.provider,
    promptTokens: answer.promptTokens,
    completionTokens: answer.completionTokens,
    cachedPromptTokens: answer.cachedPromptTokens,
    reasoningTokens: answer.reasoningTokens,
    fallback: answer.fallback,
    occurredAt: new Date(),
    apiKeyId: '',
  });
  const text = (redaction ? redaction.restore(answer.text) : answer.text).trim();
  if (!text) throw unavailable(SUMMARY_UNAVAILABLE);
  return text;
}
