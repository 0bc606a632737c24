// The channel worker's use case (docs/adr/0044-messaging-channels.md): a channel user's queued
// message, answered through the same turn as the widget's (public-chat/send-message.ts) on the
// channel's rules (public-chat/channels/telegram.ts), and the answer sent back through the provider.
//
//   1. taken once: the provider's message id inserted (ChannelInbound); a message already taken (a
//      provider's retry that reached the queue again, a job retried) is left, so it is answered and
//      billed once
//   2. the connection and its token; a connection removed meanwhile: nothing to answer
//   3. the channel user's conversation (ChannelThread): its session id, issued by this service at
//      the chat's first message, so the chat's messages continue one conversation; the chat kept as
//      the connection's last one
//   (1 to 3 are ONE statement; a chat's first message adds the thread's insert and read)
//   4. the turn: knowledge, model, rate limits, the visitor's day limit, the spend limit, the credit
//      hold and billing exactly as the widget's, the visitor being `telegram:{chat id}`
//   5. the answer with its sources as links, split by the channel's size limit and sent with
//      retries (deliver.ts); a person holding the conversation: the bot stays silent (an agent's
//      reply reaches the channel user through send-reply.ts); on a chatbot with handoff on, a
//      channel user who asks for a person in words is handed to the inbox (ADR 34)
//   (a channel user's email written back to the wait's timeout message is taken as their lead instead
//   of a turn: leads/channel-lead.ts)
//   6. at the thread's first answer, the conversation marked as the channel's (History shows it)
//
// A refusal of the turn (the rate or day limit, no credit, the spend limit, a message too long) is
// told to the channel user in the turn's own words; any other failure in a general sentence. The job
// is not retried after the message was taken: a retry could bill it twice.
import { ConnectError, Code } from '@connectrpc/connect';
import type { ChannelMessageReceived } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import type pg from 'pg';
import type { Logger } from '@parley/common/logger.ts';
import type { ChannelConnection, PrismaClient } from '../generated/prisma/client.ts';
import type { ProviderKeyCiphers } from '../provider-keys/provider-keys.ts';
import type { SessionIds } from '../core/session-id.ts';
import { asksForPerson } from '../core/handoff.ts';
import type { Channel } from '../public-chat/channels/channel.ts';
import { telegram } from '../public-chat/channels/telegram.ts';
import { slack } from '../public-chat/channels/slack.ts';
import { whatsapp } from '../public-chat/channels/whatsapp.ts';
import { messenger } from '../public-chat/channels/messenger.ts';
import { instagram } from '../public-chat/channels/instagram.ts';
import { email } from '../public-chat/channels/email.ts';
import { sms } from '../public-chat/channels/sms.ts';
import { sendMessage, type PublicChatDeps } from '../public-chat/send-message.ts';
import { isConnectionId, sendingConnection } from './connections.ts';
import { deliver, type DeliverDeps } from './deliver.ts';
import { withSourcesFooter } from './format.ts';
import { withSlackSourcesFooter } from './slack.ts';

export const COULD_NOT_ANSWER = 'Sorry, I could not answer just now. Please try again in a little while.';
/** Told after the bot's answer when the channel user asked for a person and the conversation now waits for one. */
export const WAITING_FOR_PERSON = 'A person from our team will answer you here.';
/** Told after an answer the knowledge could not give, on a chatbot with handoff on. */
export const ASK_FOR_PERSON = 'Write "talk to a person" to reach our team.';
/** Each messaging channel's rules for the turn, by the connection's channel. */
const CHANNEL_RULES: Record<string, Channel> = { telegram, slack, whatsapp, messenger, instagram, email, sms };
/** How each channel lists an answer's sources after it: numbered plain lines, or Slack's mrkdwn links. */
const SOURCES_FOOTER: Record<string, typeof withSourcesFooter> = { slack: withSlackSourcesFooter };

/** The turn's refusals whose words are the visitor's to read (visitor-errors.ts, the limits, credit). */
const TOLD_CODES = new Set([Code.ResourceExhausted, Code.InvalidArgument, Code.FailedPrecondition]);

export interface AnswerUpdateDeps {
  db: PrismaClient;
  /** Prisma's pool (database.ts mainPool): the statement that takes a message goes through the driver, as a widget message's do. */
  pool: Pick<pg.Pool, 'query'>;
  ciphers: ProviderKeyCiphers;
  sessionIds: SessionIds;
  publicChat: PublicChatDeps;
  deliver: DeliverDeps;
  logger: Logger;
  /** The visitor's request for a person (handoff/request-handoff.ts, ADR 34), made when the channel user asks for one in words. */
  requestHandoff?: (raw: { uniqueId: string; sessionId: string; clientIp: string }) => Promise<unknown>;
  /**
   * The email a channel user wrote back to the wait's timeout message, taken as their lead
   * (leads/channel-lead.ts): what to tell them; null when the message is no such email.
   */
  takeLead?: (input: { chatbotId: string; sessionId: string; channel: string; chatId: string; text: string }) => Promise<string | null>;
}

/** `duplicate`: already taken, or its connection is gone; `lead`: the email asked for when the wait ran out, taken. */
export type AnswerOutcome = 'answered' | 'silent' | 'refused' | 'duplicate' | 'gone' | 'lead';

type Taken = ChannelConnection & { threadSessionId: string | null; conversationMarked: boolean | null };

/**
 * Steps 1 to 3 in ONE statement: the provider message taken (when its connection still exists and it
 * was not taken before), the chat kept as the connection's last one, and then the connection and the
 * channel user's thread read. No row: already taken, or the connection is gone.
 */
async function take(deps: AnswerUpdateDeps, event: ChannelMessageReceived): Promise<Taken | null> {
  const { rows } = await deps.pool.query<Taken>(
    `WITH taken AS (
      INSERT INTO "ChannelInbound" ("connectionId", "providerMessageId")
      SELECT c."id", $2::text FROM "ChannelConnection" c WHERE c."id" = $1::uuid
      ON CONFLICT DO NOTHING
      RETURNING "connectionId"
    ), touched AS (
      -- The channel user's last message (WhatsApp's 24-hour customer service window counts from it).
      UPDATE "ChannelThread" SET "lastInboundAt" = now()
       WHERE "connectionId" = $1::uuid AND "chatId" = $3::text AND EXISTS (SELECT 1 FROM taken)
    ), kept AS (
      -- The chat kept as the connection's last one (the owner's test message goes there by default).
      UPDATE "ChannelConnection" SET "lastChatId" = $3::text, "updatedAt" = now()
       WHERE "id" = $1::uuid AND "lastChatId" IS DISTINCT FROM $3::text AND EXISTS (SELECT 1 FROM taken)
    )
    SELECT c.*, t."sessionId" AS "threadSessionId", t."conversationMarked"
      FROM taken JOIN "ChannelConnection" c ON c."id" = taken."connectionId"
      LEFT JOIN "ChannelThread" t ON t."connectionId" = c."id" AND t."chatId" = $3::text`,
    [event.connectionId, event.providerMessageId, event.chatId],
  );
  return rows[0] ?? null;
}

/** The channel user's conversation: the session id issued at the chat's first message (the first writer's when two race). */
async function newThread(deps: AnswerUpdateDeps, connectionId: string, chatId: string) {
  const where = { connectionId_chatId: { connectionId, chatId } };
  await deps.db.channelThread.createMany({ data: [{ connectionId, chatId, sessionId: deps.sessionIds.issue() }], skipDuplicates: true });
  return deps.db.channelThread.findUniqueOrThrow({ where });
}

/** The conversation marked with its channel (History shows it), once: at the thread's first answer, which opened it. */
async function markConversation(
  deps: AnswerUpdateDeps,
  row: { id: string; chatbotId: string; channel: string },
  chatId: string,
  sessionId: string,
) {
  await deps.db.conversation.updateMany({ where: { chatbotId: row.chatbotId, sessionId, channel: null }, data: { channel: row.channel } });
  await deps.db.channelThread.update({
    where: { connectionId_chatId: { connectionId: row.id, chatId } },
    data: { conversationMarked: true },
  });
}

/**
 * A chatbot with handoff on offers a person as the widget does (its "Talk to a person" button): a
 * channel user who asked for one in words is put in the inbox's queue at once; otherwise they are
 * told how to ask.
 */
async function offerPerson(deps: AnswerUpdateDeps, uniqueId: string, sessionId: string, message: string): Promise<string> {
  if (!deps.requestHandoff || !asksForPerson(message)) return ASK_FOR_PERSON;
  try {
    await deps.requestHandoff({ uniqueId, sessionId, clientIp: '' });
    return WAITING_FOR_PERSON;
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'a channel user could not be handed to a person');
    return ASK_FOR_PERSON;
  }
}

export async function answerChannelMessage(deps: AnswerUpdateDeps, event: ChannelMessageReceived): Promise<AnswerOutcome> {
  const { connectionId, chatId } = event;
  if (!isConnectionId(connectionId)) return 'gone';
  const row = await take(deps, event);
  if (!row) return 'duplicate';
  const connection = sendingConnection(deps.ciphers, row);
  const thread =
    row.threadSessionId === null
      ? await newThread(deps, connectionId, chatId)
      : { sessionId: row.threadSessionId, conversationMarked: row.conversationMarked === true };
  const { sessionId } = thread;
  const log = deps.logger.child({ connectionId, channel: row.channel });
  const rules = CHANNEL_RULES[row.channel] ?? telegram;

  let text: string;
  let outcome: AnswerOutcome;
  // Only a message with an @ in it can be the email the timeout message asked for: no statement for any other.
  const leadTaken =
    deps.takeLead && event.text.includes('@')
      ? await deps.takeLead({
          chatbotId: row.chatbotId,
          sessionId,
          channel: row.channel,
          // Email's contact is the sender's address, not the thread's id.
          chatId: row.channel === 'email' ? event.userId : chatId,
          text: event.text,
        })
      : null;
  if (leadTaken) {
    text = leadTaken;
    outcome = 'lead';
  } else {
    try {
      const result = await sendMessage(
        deps.publicChat,
        {
          uniqueId: row.uniqueId,
          sessionId,
          message: event.text,
          model: '',
          clientIp: '',
          userAgent: rules.name,
          visitorId: `${row.channel}:${chatId}`,
          visitorName: event.userName,
        },
        rules,
      );
      if (result.handoff) {
        text = '';
        outcome = 'silent';
      } else {
        text = (SOURCES_FOOTER[row.channel] ?? withSourcesFooter)(result.message, result.sources);
        outcome = 'answered';
        if (result.offerHandoff) text += `\n\n${await offerPerson(deps, row.uniqueId, sessionId, event.text)}`;
      }
    } catch (err) {
      const told = err instanceof ConnectError && TOLD_CODES.has(err.code);
      if (!told) log.warn({ err: (err as Error).message }, 'a channel message could not be answered');
      text = told ? (err as ConnectError).rawMessage : COULD_NOT_ANSWER;
      outcome = 'refused';
    }
  }
  await Promise.all([
    text ? deliver(deps.deliver, connection, chatId, text, 'answer') : null,
    outcome === 'answered' && !thread.conversationMarked ? markConversation(deps, row, chatId, sessionId) : null,
  ]);
  return outcome;
}
