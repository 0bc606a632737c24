// The visitor asks for a person ("Talk to a person"): bot (or closed) becomes waiting. Checked like
// a message: a session id the service did not issue, or one of no conversation of this chatbot, is
// NOT_FOUND and creates nothing; the request counts against the visitor's rate limit and is refused
// where the chatbot may not run. The chatbot's handoff must be on and its owner on Pro.
//
// After the move commits: the mirror, the visitor's state and the inbox row (announce.ts), the
// wait's deadline as a delayed job (job id `<conversation>:<requested ms>`, so each request has
// one), and, once per conversation, the agents told (notifyAgentsOnce). Asking again while waiting
// or human answers the state as it is.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError } from '@connectrpc/connect';
import type { PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { HandoffRequestedSchema, HandoffTimeoutDueSchema } from '@parley/proto/parley/events/v1/handoff_requested_pb.js';
import { parseUniqueId, publicChatbotNotFound } from '@parley/common/public-chatbot.ts';
import { failedPrecondition, notFound } from '@parley/common/rpc-errors.ts';
import { webhookEvent } from '@parley/common/webhook-events.ts';
import { handoffView, type HandoffView } from '../core/handoff.ts';
import { parseClientIp } from '../core/message-input.ts';
import { answerFailed, chatbotUnavailable } from '../core/visitor-errors.ts';
import { checkSite, parseVisitorSite } from '../core/visitor-site.ts';
import { announceMove } from './announce.ts';
import { findVisitorConversation, loadConversation, moveConversation, type ConversationRow } from './conversation-moves.ts';
import { CONVERSATION_NOT_FOUND, isPro, type HandoffDeps } from './handoff-deps.ts';
import { excerpt } from './live-events.ts';

export const HANDOFF_OFF = 'This chatbot does not offer a person to talk to.';
export const DEFAULT_TIMEOUT_SECONDS = 300;
export const MIN_TIMEOUT_SECONDS = 30;
export const MAX_TIMEOUT_SECONDS = 3600;

/** The chatbot's wait in seconds: its setting within 30–3600, the default when unset. */
export function waitSeconds(chatbot: Pick<PublicChatbot, 'handoff'>): number {
  const set = chatbot.handoff?.timeoutSeconds ?? 0;
  if (!set) return DEFAULT_TIMEOUT_SECONDS;
  return Math.min(MAX_TIMEOUT_SECONDS, Math.max(MIN_TIMEOUT_SECONDS, set));
}

/** The deadline job's id: one per request for a person. */
export const timeoutJobId = (conversationId: string, requestedAt: Date) => `${conversationId}:${requestedAt.getTime()}`;

export interface RawHandoffRequest {
  uniqueId: string;
  sessionId: string;
  clientIp: string;
  siteHost?: string;
  embedded?: boolean;
}

/** The visitor's chatbot and conversation, checked as a visitor's call is: NOT_FOUND, the rate limit, the site. */
export async function visitorConversation(
  deps: Pick<HandoffDeps, 'sessionIds' | 'admission' | 'chatbots' | 'logger' | 'db'>,
  raw: RawHandoffRequest,
  opts: { count: boolean },
): Promise<{ chatbot: PublicChatbot; conversation: ConversationRow }> {
  const uniqueId = parseUniqueId(raw.uniqueId);
  const sessionId = deps.sessionIds.accept(raw.sessionId);
  if (!sessionId) throw notFound(CONVERSATION_NOT_FOUND);
  if (opts.count) {
    try {
      await deps.admission.admit({ uniqueId, clientIp: parseClientIp(raw.clientIp) }, []);
    } catch (err) {
      if (err instanceof ConnectError) throw err; // the visitor's limit
      deps.logger.warn({ err: (err as Error).message }, 'rate limit check failed');
      throw answerFailed();
    }
  }
  let chatbot: PublicChatbot | undefined;
  try {
    chatbot = (await deps.chatbots.getPublicChatbot({ uniqueId })).chatbot;
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.NotFound) throw publicChatbotNotFound();
    deps.logger.warn({ err: (err as Error).message }, 'chatbot GetPublicChatbot failed');
    throw chatbotUnavailable();
  }
  if (!chatbot) throw publicChatbotNotFound();
  checkSite(parseVisitorSite(raw), chatbot);
  const conversation = await findVisitorConversation(deps.db, chatbot.id, sessionId);
  if (!conversation) throw notFound(CONVERSATION_NOT_FOUND);
  return { chatbot, conversation };
}

export async function requestHandoff(deps: HandoffDeps, raw: RawHandoffRequest): Promise<HandoffView> {
  const { chatbot, conversation } = await visitorConversation(deps, raw, { count: true });
  if (chatbot.handoff?.enabled !== true) throw failedPrecondition(HANDOFF_OFF);
  if (!(await isPro(deps, chatbot.ownerId, 'This chatbot is temporarily unavailable. Please try again later.'))) {
    throw failedPrecondition(HANDOFF_OFF);
  }
  const requestedAt = new Date();
  // A limit that stopped the visitor's last message makes the request limit_reached (ADR 65); unreadable: not known.
  const limitStoppedAt = await deps.mirror.readLimitStopped(chatbot.id, conversation.sessionId).catch((err: Error) => {
    deps.logger.warn({ err: err.message }, 'reading the limit stop failed');
    return null;
  });
  const moved = await moveConversation(deps.db, { conversationId: conversation.id }, { move: 'request', requestedAt, limitStoppedAt });
  if (!moved) {
    // Already waiting or human (or moved by a concurrent call): the state as it is.
    const current = await loadConversation(deps.db, { conversationId: conversation.id });
    if (!current) throw notFound(CONVERSATION_NOT_FOUND);
    return handoffView(current);
  }
  await announceMove(deps, moved);
  await deps.timeouts
    .publish(
      create(HandoffTimeoutDueSchema, { conversationId: moved.id, requestedAt: timestampFromDate(requestedAt) }),
      timeoutJobId(moved.id, requestedAt),
      { delayMs: waitSeconds(chatbot) * 1000 },
    )
    .catch((err: Error) => deps.logger.error({ err: err.message, conversationId: moved.id }, "the handoff's deadline was not queued"));
  await notifyAgentsOnce(deps, moved, requestedAt);
  return handoffView(moved);
}

/**
 * The agents are told once per conversation: only the call whose UPDATE set `notifiedAt` publishes
 * HandoffRequested (auth mails them) and the handoff.requested webhook. When the publish fails,
 * `notifiedAt` is cleared again so the next request tells them.
 */
export async function notifyAgentsOnce(
  deps: Pick<HandoffDeps, 'db' | 'logger' | 'handoffRequested' | 'webhooks'>,
  conversation: ConversationRow,
  requestedAt: Date,
): Promise<boolean> {
  const [first] = await deps.db.$queryRaw<{ lastMessage: string | null; leadName: string | null }[]>`
    UPDATE "Conversation" SET "notifiedAt" = now()
     WHERE "id" = ${conversation.id}::uuid AND "notifiedAt" IS NULL
    RETURNING (SELECT m."content" FROM "Message" AS m
                WHERE m."conversationId" = ${conversation.id}::uuid AND m."role" = 'user'
                ORDER BY m."id" DESC LIMIT 1) AS "lastMessage",
              (SELECT l."name" FROM "Lead" AS l WHERE l."conversationId" = ${conversation.id}::uuid) AS "leadName"`;
  if (!first) return false;
  const lastMessage = excerpt(first.lastMessage ?? '');
  try {
    await deps.handoffRequested.publish(
      create(HandoffRequestedSchema, {
        conversationId: conversation.id,
        ownerId: conversation.ownerId,
        chatbotId: conversation.chatbotId,
        requestedAt: timestampFromDate(requestedAt),
        // The mail names the visitor as the inbox does: their lead's name first.
        visitorName: first.leadName || conversation.visitorName || '',
        lastMessage,
      }),
      conversation.id,
    );
  } catch (err) {
    deps.logger.error({ err: (err as Error).message, conversationId: conversation.id }, 'HandoffRequested not published');
    await deps.db.$executeRaw`UPDATE "Conversation" SET "notifiedAt" = NULL WHERE "id" = ${conversation.id}::uuid`.catch(() => {});
    return false;
  }
  // Webhooks name a conversation by its session id, as message.created does.
  await deps.webhooks.publish([
    webhookEvent('handoff.requested', {
      id: `handoff:${conversation.id}`,
      ownerId: conversation.ownerId,
      occurredAt: requestedAt,
      data: {
        chatbotId: conversation.chatbotId,
        conversationId: conversation.sessionId,
        requestedAt: requestedAt.toISOString(),
        lastMessage,
      },
    }),
  ]);
  return true;
}
