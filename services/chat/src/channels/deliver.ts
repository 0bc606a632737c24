// Sends one message on a channel and keeps its delivery record (docs/adr/0044-messaging-channels.md):
// a ChannelDelivery row per message, written once its sending is over, which the owner sees with its
// status, attempts and last error.
// A send the provider rate-limits (429) or fails (5xx, unreachable) is tried again, after the
// provider's retry_after when it gives one, else after a doubling backoff; a refusal (a revoked token:
// 401/403, a chat that blocked the bot: 400/403) is final. A refused token marks the connection
// failing with the provider's words; a send that goes through marks a failing connection connected.
import { randomUUID } from 'node:crypto';
import type { Logger } from '@parley/common/logger.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { channelOutbound, channelSendFailures } from './channel-metrics.ts';
import { TelegramError, TELEGRAM_MAX_TEXT, type TelegramApi } from './telegram-api.ts';
import { splitMessage } from './format.ts';
import { MetaError, type MetaApi } from './meta-api.ts';
import { isMetaChannel, META_CHANNEL_RULES, WINDOW_CLOSED } from './meta-channels.ts';

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
  telegram: TelegramApi;
  meta: MetaApi;
  logger: Logger;
  policy: SendPolicy;
  sleep?: (ms: number) => Promise<void>;
}

export type DeliveryKind = 'answer' | 'test' | 'agent';

export interface DeliveryView {
  id: string;
  connectionId: string;
  chatId: string;
  kind: DeliveryKind;
  /** delivered and read: WhatsApp's status callbacks about a sent one. */
  status: 'sent' | 'delivered' | 'read' | 'failed';
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
  /** Meta's channels: the phone-number, page or Instagram account id it sends as. */
  accountId: string;
}

type SendFailure = TelegramError | MetaError;

/** The channel's size limit and its one-part send (resolving to the provider's message id, when it gives one). */
function channelSender(deps: DeliverDeps, connection: SendingConnection, chatId: string) {
  const channel = connection.channel;
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

/** WhatsApp's customer service window: open while the user's last message is younger than its hours. */
async function windowClosed(deps: DeliverDeps, connection: SendingConnection, chatId: string): Promise<boolean> {
  const hours = isMetaChannel(connection.channel) ? META_CHANNEL_RULES[connection.channel].customerWindowHours : null;
  if (hours === null) return false;
  const thread = await deps.db.channelThread.findUnique({
    where: { connectionId_chatId: { connectionId: connection.id, chatId } },
    select: { lastInboundAt: true },
  });
  return !thread || thread.lastInboundAt.getTime() < Date.now() - hours * 3_600_000;
}

/** Sends `text` (split by the channel's size limit) to the chat; resolves to the delivery record, sent or failed. */
export async function deliver(
  deps: DeliverDeps,
  connection: SendingConnection,
  chatId: string,
  text: string,
  kind: DeliveryKind,
): Promise<DeliveryView> {
  const sleep = deps.sleep ?? realSleep;
  const createdAt = new Date();
  let attempts = 0;
  let failure: SendFailure | null = null;
  let providerMessageId: string | null = null;
  const sender = channelSender(deps, connection, chatId);
  const closed = await windowClosed(deps, connection, chatId);
  for (const part of closed ? [] : splitMessage(text, sender.maxText)) {
    failure = null;
    for (let attempt = 1; attempt <= deps.policy.attempts; attempt++) {
      attempts++;
      try {
        providerMessageId = (await sender.send(part)) || providerMessageId;
        failure = null;
        break;
      } catch (err) {
        failure = err instanceof TelegramError || err instanceof MetaError ? err : new TelegramError((err as Error).message, 0);
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
  const lastError = closed
    ? WINDOW_CLOSED
    : failure
      ? `${failure.status ? `${failure.status} ` : ''}${failure.message}`.slice(0, 300)
      : null;
  const failed = closed || failure !== null;
  // One write, once the sending is over (sent, or failed after every attempt).
  const [saved] = await deps.db.$queryRaw<DeliveryRow[]>`
    INSERT INTO "ChannelDelivery" ("id", "connectionId", "chatId", "kind", "status", "attempts", "lastError", "createdAt", "providerMessageId")
    VALUES (${randomUUID()}::uuid, ${connection.id}::uuid, ${chatId}, ${kind}, ${failed ? 'failed' : 'sent'}, ${attempts}, ${lastError}, ${createdAt}, ${providerMessageId})
    RETURNING "id"::text AS "id", "connectionId"::text AS "connectionId", "chatId", "kind", "status", "attempts", "lastError", "createdAt"`;
  if (!closed) await markConnection(deps, connection, failure, lastError);
  return deliveryView(saved);
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
