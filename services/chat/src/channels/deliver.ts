// Sends one message on a channel and keeps its delivery record (docs/adr/0044-messaging-channels.md):
// a ChannelDelivery row per message, written once its sending is over, which the owner sees with its
// status, attempts and last error.
// A stored message (an agent's reply, the wait's timeout message) is sent at most once per message
// id: its record is claimed (`sending`, ON CONFLICT on the message id) BEFORE the provider is called,
// and finished after. A second delivery of the same job finds the claim: done when the record is sent
// or failed, in flight (DeliveryInFlight, so the job is retried later) while its sender's claim
// lasts. A claim whose time is up belonged to a sender that died: a retry takes it over and sends.
// The one window for a double send is a process killed after the provider took the message and
// before the record was finished: the retry cannot tell it went out (Telegram's sendMessage has no
// idempotency key), so it sends again (docs/adr/0062-channel-replies-exactly-once.md).
// A send the provider rate-limits (429) or fails (5xx, unreachable) is tried again, after the
// provider's retry_after when it gives one, else after a doubling backoff; a refusal (a revoked token:
// 401/403, a chat that blocked the bot: 400/403) is final. A refused token marks the connection
// failing with the provider's words; a send that goes through marks a failing connection connected.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '@parley/common/logger.ts';
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import { channelOutbound, channelSendFailures } from './channel-metrics.ts';
import { TelegramError, TELEGRAM_MAX_TEXT, type TelegramApi } from './telegram-api.ts';
import { splitMessage } from './format.ts';
import { SlackError, SLACK_MAX_TEXT, type SlackApi } from './slack-api.ts';
import { slackDestination } from './slack.ts';
import { MetaError, type MetaApi } from './meta-api.ts';
import { isMetaChannel, META_CHANNEL_RULES, WINDOW_CLOSED } from './meta-channels.ts';
import { EmailError, type EmailApi } from './email-api.ts';
import { EMAIL_MAX_REFERENCES, EMAIL_MAX_TEXT, isThreadChatId, newMessageId } from './email.ts';
import { TwilioError, type TwilioApi } from './twilio-api.ts';
import { OPTED_OUT, SMS_MAX_TEXT } from './sms.ts';

/** A test message's subject (a new mail, in no thread). */
export const EMAIL_TEST_SUBJECT = 'Test message from Parley';

export interface SendPolicy {
  /** Attempts per message part, the first included. */
  attempts: number;
  /** The first backoff without a retry_after, doubled each time. */
  backoffMs: number;
  /** The longest wait honoured (a larger retry_after is waited this long). */
  maxWaitMs: number;
}

export interface DeliverDeps {
  db: PrismaClient;
  /** Prisma's pool (database.ts mainPool): an answer's delivery record is written through the driver, as a widget message's statements are. */
  pool: Pick<pg.Pool, 'query'>;
  telegram: TelegramApi;
  slack: SlackApi;
  meta: MetaApi;
  /** SMS (docs/adr/0070-sms-channel.md): Twilio's Messages API. */
  twilio: TwilioApi;
  logger: Logger;
  policy: SendPolicy;
  /** Email (docs/adr/0063-email-channel.md): the SMTP sender and the domain of Parley's Message-IDs. */
  email?: EmailApi;
  emailDomain?: string;
  sleep?: (ms: number) => Promise<void>;
}

/** answer: the bot's; test: the owner's test message; agent: an agent's reply; notice: the conversation's own message to the visitor (the wait ran out). */
export type DeliveryKind = 'answer' | 'test' | 'agent' | 'notice';

/**
 * How long a sender's claim on a stored message lasts: longer than any send (parts × attempts ×
 * (the call's deadline + the longest wait)), shorter than the outbound job's retries (about half an
 * hour), so a retry after a dead sender takes the claim over.
 */
export const CLAIM_LEASE_MS = 10 * 60_000;

/** Another sender holds the message's claim: the job is retried later (and finds it sent, or takes a dead sender's claim over). */
export class DeliveryInFlight extends Error {
  constructor(messageId: bigint) {
    super(`message ${messageId} is being sent by another worker`);
    this.name = 'DeliveryInFlight';
  }
}

export interface DeliveryView {
  id: string;
  connectionId: string;
  chatId: string;
  kind: DeliveryKind;
  /** delivered and read: WhatsApp's status callbacks about a sent one; sending: a stored message's claimed send. */
  status: 'sent' | 'delivered' | 'read' | 'failed' | 'sending';
  attempts: number;
  lastError: string;
  createdAt: Date;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The connection as the sender needs it: its id, channel, status and token in plain text. */
export interface SendingConnection {
  id: string;
  channel: string;
  status: string;
  token: string;
  /** Meta's channels: the phone-number, page or Instagram account id it sends as; SMS: the Twilio Account SID. */
  accountId: string;
  /** Who the connection answers as (SMS: the Twilio number, every message's From). */
  botName: string;
  /** SMS: the connection's webhook URL, each message's StatusCallback. */
  callbackUrl: string;
}

type SendFailure = TelegramError | SlackError | MetaError | EmailError | TwilioError;

/** The channel's size limit and its one-part send (resolving to the provider's message id, when it gives one). */
function channelSender(deps: DeliverDeps, connection: SendingConnection, chatId: string) {
  const channel = connection.channel;
  if (channel === 'slack') {
    const { channel: slackChannel, threadTs } = slackDestination(chatId);
    return {
      maxText: SLACK_MAX_TEXT,
      send: async (part: string) => void (await deps.slack.postMessage(connection.token, slackChannel, part, threadTs)),
    };
  }
  if (channel === 'email') return { maxText: EMAIL_MAX_TEXT, send: (part: string) => sendEmail(deps, connection, chatId, part) };
  if (channel === 'sms')
    return {
      maxText: SMS_MAX_TEXT,
      send: async (part: string) =>
        (
          await deps.twilio.sendMessage(connection.accountId, connection.token, {
            from: connection.botName,
            to: chatId,
            body: part,
            statusCallback: connection.callbackUrl,
          })
        ).messageSid,
    };
  if (isMetaChannel(channel))
    return {
      maxText: META_CHANNEL_RULES[channel].maxText,
      send: async (part: string) => (await deps.meta.sendText(channel, connection.token, connection.accountId, chatId, part)).messageId,
    };
  return {
    maxText: TELEGRAM_MAX_TEXT,
    send: async (part: string) => void (await deps.telegram.sendMessage(connection.token, chatId, part)),
  };
}

/**
 * One mail From the chatbot's inbound address: a test to the address its chat id is; an answer or a
 * reply to the thread's contact, "Re: {subject}", In-Reply-To the thread's newest Message-ID and
 * References its chain; the Message-ID sent then joins the thread, so the contact's reply to it
 * continues the conversation. Resolves to the Message-ID.
 */
async function sendEmail(deps: DeliverDeps, connection: SendingConnection, chatId: string, text: string): Promise<string> {
  if (!deps.email || !deps.emailDomain) throw new EmailError('email is not set up on this Parley', 400);
  const messageId = newMessageId(deps.emailDomain);
  const from = connection.accountId;
  if (!isThreadChatId(chatId)) {
    await deps.email.send({ from, to: chatId, subject: EMAIL_TEST_SUBJECT, text, messageId });
    return messageId;
  }
  const thread = await deps.db.emailThread.findUnique({ where: { connectionId_chatId: { connectionId: connection.id, chatId } } });
  if (!thread) throw new EmailError('the mail thread is gone', 400);
  const references = thread.references.split(' ').filter(Boolean);
  await deps.email.send({
    from,
    to: thread.contact,
    subject: `Re: ${thread.subject}`,
    text,
    messageId,
    inReplyTo: thread.lastMessageId,
    references,
  });
  const chain = [...references, messageId].slice(-EMAIL_MAX_REFERENCES).join(' ');
  await deps.db.$executeRaw`
    WITH recorded AS (
      INSERT INTO "EmailMessage" ("connectionId", "messageId", "chatId", "direction", "contact")
      VALUES (${connection.id}::uuid, ${messageId}, ${chatId}, 'out', ${thread.contact})
      ON CONFLICT DO NOTHING
    )
    UPDATE "EmailThread" SET "lastMessageId" = ${messageId}, "references" = ${chain}, "updatedAt" = now()
     WHERE "connectionId" = ${connection.id}::uuid AND "chatId" = ${chatId}`;
  return messageId;
}

/**
 * Why nothing may be sent to the chat now, or null: WhatsApp's customer service window is closed (the
 * user's last message is older than its hours), or an SMS number wrote STOP.
 */
async function blockedReason(deps: DeliverDeps, connection: SendingConnection, chatId: string): Promise<string | null> {
  if (connection.channel === 'sms') {
    const optedOut = await deps.db.smsOptOut.findUnique({ where: { connectionId_phone: { connectionId: connection.id, phone: chatId } } });
    return optedOut ? OPTED_OUT : null;
  }
  const hours = isMetaChannel(connection.channel) ? META_CHANNEL_RULES[connection.channel].customerWindowHours : null;
  if (hours === null) return null;
  const thread = await deps.db.channelThread.findUnique({
    where: { connectionId_chatId: { connectionId: connection.id, chatId } },
    select: { lastInboundAt: true },
  });
  return !thread || thread.lastInboundAt.getTime() < Date.now() - hours * 3_600_000 ? WINDOW_CLOSED : null;
}

/** A provider's status callback about a message sent: the delivery it names. */
export interface DeliveryStatus {
  /** The provider's id of the message (WhatsApp's wamid, Twilio's MessageSid). */
  messageId: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  /** The provider's reason, for failed. */
  error: string;
}

/** A status only moves its delivery forward (callbacks can arrive out of order); failed is final, with the provider's reason. */
export async function moveDeliveries(db: PrismaClient, connectionId: string, statuses: readonly DeliveryStatus[]) {
  for (const s of statuses) {
    await db.$executeRaw`
      UPDATE "ChannelDelivery" SET "status" = ${s.status}, "lastError" = COALESCE(NULLIF(${s.error}, ''), "lastError")
       WHERE "connectionId" = ${connectionId}::uuid AND "providerMessageId" = ${s.messageId} AND "status" <> 'failed'
         AND array_position(ARRAY['sent', 'delivered', 'read', 'failed'], "status") < array_position(ARRAY['sent', 'delivered', 'read', 'failed'], ${s.status})`;
  }
}

const DELIVERY_COLUMN_LIST = `"id"::text AS "id", "connectionId"::text AS "connectionId", "chatId", "kind", "status", "attempts", "lastError", "createdAt"`;
const DELIVERY_COLUMNS = Prisma.raw(DELIVERY_COLUMN_LIST);

/**
 * Sends `text` (split by the channel's size limit) to the chat; resolves to the delivery record, sent
 * or failed. With `messageId` (a stored message), at most once per message: a record already
 * finished is answered as it is, nothing sent; one another sender holds throws DeliveryInFlight.
 */
export async function deliver(
  deps: DeliverDeps,
  connection: SendingConnection,
  chatId: string,
  text: string,
  kind: DeliveryKind,
  opts: { messageId?: bigint } = {},
): Promise<DeliveryView> {
  const createdAt = new Date();
  if (opts.messageId === undefined) {
    const outcome = await send(deps, connection, chatId, text);
    // One write, once the sending is over (sent, or failed after every attempt).
    const {
      rows: [saved],
    } = await deps.pool.query<DeliveryRow>(
      `INSERT INTO "ChannelDelivery" ("id", "connectionId", "chatId", "kind", "status", "attempts", "lastError", "createdAt", "providerMessageId")
       VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, $7, $8, $9)
       RETURNING ${DELIVERY_COLUMN_LIST}`,
      [
        randomUUID(),
        connection.id,
        chatId,
        kind,
        outcome.status,
        outcome.attempts,
        outcome.lastError,
        createdAt,
        outcome.providerMessageId,
      ],
    );
    if (!outcome.closed) await markConnection(deps, connection, outcome.failure, outcome.lastError);
    return deliveryView(saved);
  }
  const { messageId } = opts;
  // The claim: a new record, or a dead sender's whose time is up. No row: someone else's, or finished.
  const [claimed] = await deps.db.$queryRaw<{ id: string }[]>`
    INSERT INTO "ChannelDelivery" ("id", "connectionId", "chatId", "kind", "status", "attempts", "createdAt", "messageId", "claimedUntil")
    VALUES (${randomUUID()}::uuid, ${connection.id}::uuid, ${chatId}, ${kind}, 'sending', 0, ${createdAt}, ${messageId},
            now() + make_interval(secs => ${CLAIM_LEASE_MS / 1000}))
    ON CONFLICT ("messageId") DO UPDATE SET "claimedUntil" = EXCLUDED."claimedUntil"
     WHERE "ChannelDelivery"."status" = 'sending' AND "ChannelDelivery"."claimedUntil" < now()
    RETURNING "id"::text AS "id"`;
  if (!claimed) {
    const [current] = await deps.db.$queryRaw<DeliveryRow[]>`
      SELECT ${DELIVERY_COLUMNS} FROM "ChannelDelivery" WHERE "messageId" = ${messageId}`;
    if (!current || current.status === 'sending') throw new DeliveryInFlight(messageId);
    return deliveryView(current);
  }
  const outcome = await send(deps, connection, chatId, text);
  const [saved] = await deps.db.$queryRaw<DeliveryRow[]>`
    UPDATE "ChannelDelivery"
       SET "status" = ${outcome.status}, "attempts" = "attempts" + ${outcome.attempts}, "lastError" = ${outcome.lastError},
           "claimedUntil" = NULL, "providerMessageId" = ${outcome.providerMessageId}
     WHERE "id" = ${claimed.id}::uuid
    RETURNING ${DELIVERY_COLUMNS}`;
  if (!outcome.closed) await markConnection(deps, connection, outcome.failure, outcome.lastError);
  return deliveryView(saved);
}

interface SendOutcome {
  status: 'sent' | 'failed';
  attempts: number;
  failure: SendFailure | null;
  lastError: string | null;
  /** The provider's id of the last part sent, when it gives one (WhatsApp's status callbacks name it). */
  providerMessageId: string | null;
  /** WhatsApp's customer service window was closed, or the SMS number opted out: nothing was sent, and the connection is not failing for it. */
  closed: boolean;
}

/** Every part sent with its retries; stops at the first part that fails. */
async function send(deps: DeliverDeps, connection: SendingConnection, chatId: string, text: string): Promise<SendOutcome> {
  const sleep = deps.sleep ?? realSleep;
  let attempts = 0;
  let failure: SendFailure | null = null;
  let providerMessageId: string | null = null;
  const sender = channelSender(deps, connection, chatId);
  const blocked = await blockedReason(deps, connection, chatId);
  const closed = blocked !== null;
  for (const part of closed ? [] : splitMessage(text, sender.maxText)) {
    failure = null;
    for (let attempt = 1; attempt <= deps.policy.attempts; attempt++) {
      attempts++;
      try {
        providerMessageId = (await sender.send(part)) || providerMessageId;
        failure = null;
        break;
      } catch (err) {
        failure =
          err instanceof TelegramError ||
          err instanceof SlackError ||
          err instanceof MetaError ||
          err instanceof EmailError ||
          err instanceof TwilioError
            ? err
            : new TelegramError((err as Error).message, 0);
        if (!failure.retryable || attempt === deps.policy.attempts) break;
        const waitMs = failure.retryAfterSeconds !== null ? failure.retryAfterSeconds * 1000 : deps.policy.backoffMs * 2 ** (attempt - 1);
        deps.logger.info({ connectionId: connection.id, status: failure.status, waitMs }, 'channel send refused for now: trying again');
        await sleep(Math.min(waitMs, deps.policy.maxWaitMs));
      }
    }
    if (failure) break;
  }
  const series = { channel: connection.channel };
  if (closed) {
    channelSendFailures.series(series).inc();
  } else if (failure) {
    channelSendFailures.series(series).inc();
    deps.logger.warn({ connectionId: connection.id, status: failure.status, err: failure.message }, 'channel send failed');
  } else channelOutbound.series(series).inc();
  const lastError = closed ? blocked : failure ? `${failure.status ? `${failure.status} ` : ''}${failure.message}`.slice(0, 300) : null;
  return { status: closed || failure ? 'failed' : 'sent', attempts, failure, lastError, providerMessageId, closed };
}

/** A refused token (401, or 404 for a deleted bot) marks the connection failing; a send that went through clears it. */
async function markConnection(deps: DeliverDeps, connection: SendingConnection, failure: SendFailure | null, lastError: string | null) {
  const tokenRefused = failure !== null && (failure.status === 401 || failure.status === 404);
  if (tokenRefused) {
    await deps.db.channelConnection.update({ where: { id: connection.id }, data: { status: 'failing', lastError } });
  } else if (!failure && connection.status !== 'connected') {
    await deps.db.channelConnection.update({ where: { id: connection.id }, data: { status: 'connected', lastError: null } });
  }
}

interface DeliveryRow {
  id: string;
  connectionId: string;
  chatId: string;
  kind: string;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
}

export const deliveryView = (r: DeliveryRow): DeliveryView => ({
  id: r.id,
  connectionId: r.connectionId,
  chatId: r.chatId,
  kind: r.kind as DeliveryKind,
  status: r.status as DeliveryView['status'],
  attempts: r.attempts,
  lastError: r.lastError ?? '',
  createdAt: r.createdAt,
});
