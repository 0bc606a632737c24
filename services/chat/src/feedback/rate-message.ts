// A visitor's thumbs up or down on an answer of their own conversation. The visitor is whoever holds
// the conversation's session id (session-id.ts), so the message must be an answer in the conversation
// of that session with that chatbot; anything else, including an id that is not one, is the same
// NOT_FOUND, so a visitor learns nothing of other conversations. A rating counts against the
// visitor's rate limit exactly like a message (admission.ts), and is refused where the chatbot may
// not run (visitor-site.ts), like a message.
//
// One transaction stores the rating and moves the day's thumbs (analytics/aggregates.ts), so the two
// never disagree; a rating can be changed, and the same rating again changes nothing. A new thumbs
// down also files the visitor's question among the unanswered ones (analytics/question-clusters.ts).
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { DEFAULT_LANGUAGE, readLanguage } from '@parley/proto/language.ts';
import type { ChatbotService, PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { webhookEvent } from '@parley/common/webhook-events.ts';
import type { WebhookPublisher } from '@parley/common/webhook-publisher.ts';
import type { Logger } from '@parley/common/logger.ts';
import { parseUniqueId, publicChatbotNotFound } from '@parley/common/public-chatbot.ts';
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { applyRating, type Rating } from '../analytics/aggregates.ts';
import { lockDeletedChatbots } from '../core/deleted-chatbots.ts';
import { addQuestion } from '../analytics/question-clusters.ts';
import type { Admission } from '../core/admission.ts';
import { parseClientIp } from '../core/message-input.ts';
import type { SessionIds } from '../core/session-id.ts';
import { answerFailed, chatbotUnavailable } from '../core/visitor-errors.ts';
import { checkSite, parseVisitorSite } from '../core/visitor-site.ts';

export const RATING_INVALID = 'Rating must be up or down';
export const MESSAGE_NOT_FOUND = 'Message not found';

export const RATINGS: readonly Rating[] = ['up', 'down'];

/** A message id is a positive bigint (Message.id); anything longer cannot be one. */
const MESSAGE_ID = /^[1-9][0-9]{0,18}$/;
const MAX_MESSAGE_ID = 2n ** 63n - 1n;

export interface RawRating {
  uniqueId: string;
  sessionId: string;
  messageId: string;
  rating: string;
  clientIp: string;
  /** Where the request came from (visitor-site.ts); absent reads as Parley's own page. */
  siteHost?: string;
  embedded?: boolean;
}

export interface RatingInput {
  uniqueId: string;
  sessionId: string;
  messageId: bigint;
  rating: Rating;
  clientIp: string | null;
}

export interface RateMessageDeps {
  /** The main pool: a rating keeps the default durability (unlike an exchange, ADR 0007). */
  db: PrismaClient;
  logger: Logger;
  sessionIds: SessionIds;
  admission: Admission;
  chatbots: Client<typeof ChatbotService>;
  /** feedback.created for the owner's webhooks (only when subscribed; never waited on, never throws). */
  webhooks?: Pick<WebhookPublisher, 'publish'>;
}

export interface RateMessageResult {
  messageId: string;
  rating: Rating;
}

/**
 * Validated in this order, before anything is counted: a bad rating is INVALID_ARGUMENT, then an
 * impossible chatbot, session or message id is NOT_FOUND (a session id this service did not issue
 * owns no conversation).
 */
export function parseRating(raw: RawRating, ids: SessionIds): RatingInput {
  const rating = raw.rating.trim().toLowerCase();
  if (!(RATINGS as readonly string[]).includes(rating)) throw invalid(RATING_INVALID);
  const uniqueId = parseUniqueId(raw.uniqueId);
  const sessionId = ids.accept(raw.sessionId);
  const id = raw.messageId.trim();
  if (!sessionId || !MESSAGE_ID.test(id) || BigInt(id) > MAX_MESSAGE_ID) throw notFound(MESSAGE_NOT_FOUND);
  return { uniqueId, sessionId, messageId: BigInt(id), rating: rating as Rating, clientIp: parseClientIp(raw.clientIp) };
}

/** The chatbot behind the uniqueId, as the public page sees it: unknown or inactive is NOT_FOUND. */
async function publicChatbot(deps: RateMessageDeps, uniqueId: string): Promise<PublicChatbot> {
  try {
    const { chatbot } = await deps.chatbots.getPublicChatbot({ uniqueId });
    if (!chatbot) throw publicChatbotNotFound();
    return chatbot;
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.NotFound) throw publicChatbotNotFound();
    deps.logger.warn({ err: (err as Error).message }, 'chatbot GetPublicChatbot failed');
    throw chatbotUnavailable();
  }
}

export async function rateMessage(deps: RateMessageDeps, raw: RawRating): Promise<RateMessageResult> {
  const input = parseRating(raw, deps.sessionIds);
  try {
    await deps.admission.admit(input, []);
  } catch (err) {
    if (err instanceof ConnectError) throw err; // the visitor's limit
    deps.logger.warn({ err: (err as Error).message }, 'rate limit check failed');
    throw answerFailed();
  }
  const chatbot = await publicChatbot(deps, input.uniqueId);
  checkSite(parseVisitorSite(raw), chatbot);
  const language = readLanguage(chatbot) ?? DEFAULT_LANGUAGE;

  const rated = await deps.db.$transaction(async (tx) => {
    // A chatbot deleted since it was looked up keeps no rating (its figures are gone and stay gone).
    if ((await lockDeletedChatbots(tx, [chatbot.id])).size > 0) throw publicChatbotNotFound();
    // The answer, locked, only within the visitor's own conversation with this chatbot.
    const [message] = await tx.$queryRaw<{ rating: string | null; createdAt: Date; conversationId: string; answered: boolean | null }[]>`
      SELECT m."rating", m."createdAt", m."conversationId", m."answered"
        FROM "Message" AS m JOIN "Conversation" AS c ON c."id" = m."conversationId"
       WHERE m."id" = ${input.messageId.toString()}::bigint AND m."role" = 'assistant'
         AND c."chatbotId" = ${chatbot.id}::uuid AND c."sessionId" = ${input.sessionId}
         FOR UPDATE OF m`;
    if (!message) throw notFound(MESSAGE_NOT_FOUND);
    const from = message.rating === 'up' || message.rating === 'down' ? message.rating : null;
    if (from === input.rating) return false;

    await tx.$executeRaw`UPDATE "Message" SET "rating" = ${input.rating}, "ratedAt" = now() WHERE "id" = ${input.messageId.toString()}::bigint`;
    await applyRating(tx, { chatbotId: chatbot.id, ownerId: chatbot.ownerId, day: message.createdAt, from, to: input.rating });
    // An answer the knowledge did not give is already among the unanswered (the analytics worker filed it).
    if (input.rating !== 'down' || message.answered === false) return true;
    // The question the answer was given to: the visitor's message just before it.
    const [question] = await tx.$queryRaw<{ content: string; createdAt: Date }[]>`
      SELECT "content", "createdAt" FROM "Message"
       WHERE "conversationId" = ${message.conversationId}::uuid AND "role" = 'user' AND "id" < ${input.messageId.toString()}::bigint
       ORDER BY "id" DESC
       LIMIT 1`;
    if (question) {
      await addQuestion(tx, {
        chatbotId: chatbot.id,
        ownerId: chatbot.ownerId,
        kind: 'unanswered',
        question: question.content,
        language,
        at: question.createdAt,
        // A visitor rated the knowledge's answer down: what it holds did not answer them.
        reason: 'missing_knowledge',
      });
    }
    return true;
  });
  if (rated && deps.webhooks) {
    const at = new Date();
    void deps.webhooks.publish([
      webhookEvent('feedback.created', {
        id: `feedback.created:${input.messageId}:${at.getTime()}`,
        ownerId: chatbot.ownerId,
        occurredAt: at,
        data: {
          chatbotId: chatbot.id,
          conversationId: input.sessionId,
          messageId: input.messageId.toString(),
          rating: input.rating,
          createdAt: at.toISOString(),
        },
      }),
    ]);
  }
  return { messageId: input.messageId.toString(), rating: input.rating };
}
