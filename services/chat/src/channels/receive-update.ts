// An update a provider posted to Parley's public webhook (docs/adr/0044-messaging-channels.md),
// handed over by the gateway with its raw body and its authenticating header. Verification fails
// closed: no connection, no stored secret or no header is a refusal; the header's SHA-256 is
// compared with the stored hash in constant time (equal lengths whatever was sent), and no refusal
// says what was expected. Only then is the body read: Telegram's JSON, a text message of a chat, the
// rest (edits, stickers, members joining) taken and left. The message is queued for the channel
// worker under the provider's message id, so a retried update is queued once; nothing is written to
// the database here, and a known connection is not even read (its verifier is kept in process), so
// the webhook answers within a few milliseconds.
import { timingSafeEqual } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { ChannelMessageReceivedSchema } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import type { Producer } from '@parley/common/queues.ts';
import { forbidden, invalid, unauthenticated } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { channelInbound, channelVerificationFailures } from './channel-metrics.ts';
import { isConnectionId, openAppSecret, openSigningSecret, parseChannel, secretHashOf } from './connections.ts';
import type { ProviderKeyCiphers } from '../provider-keys/provider-keys.ts';
import { parseSlackEvent, slackSignatureValid } from './slack.ts';
import type { EmailInboundDeps } from './email.ts';

export const SECRET_MISSING = 'The webhook secret is missing.';
export const SECRET_REFUSED = 'The webhook secret does not match.';
export const BODY_INVALID = 'The body is not a Telegram update.';
export const SIGNATURE_MISSING = 'The request signature or its timestamp is missing.';
export const SIGNATURE_REFUSED = 'The request signature is not valid, or its timestamp is too old.';

/** A message longer than this is cut before it is queued (the turn then refuses what is past its own bound). */
export const MAX_QUEUED_TEXT = 16_000;

export interface ReceiveDeps {
  db: PrismaClient;
  inbound: Producer<typeof ChannelMessageReceivedSchema>;
  /** What verification reads of a connection, kept in process (verifiers.ts); absent: read each time. */
  verifiers?: VerifierCache;
  /** Opens a Slack connection's signing secret and a Meta connection's app secret, which their webhooks' signatures are checked under. */
  ciphers: ProviderKeyCiphers;
  /** Email (docs/adr/0063-email-channel.md): the webhook's spent tokens and the inbound domain; absent, email's webhook is refused. */
  email?: EmailInboundDeps;
}

/** What a webhook's check needs of a connection: its channel and the secret's hash. */
export interface Verifier {
  id: string;
  channel: string;
  secretHash: string;
  /** Slack: the signing secret in plain text (kept in process only, as the verifier). */
  signingSecret?: string;
  /** Meta's channels: the app secret in plain text (in process only) and the account the connection is for. */
  appSecret?: string;
  accountId?: string | null;
}

/**
 * Known connections' verifiers, kept in process so that a webhook call costs no database read:
 * at most `max` (the least recently used out), each for `ttlMs` (so a connection removed on another
 * replica is refused here within that time; its updates queued meanwhile find no connection and are
 * left). Only connections that exist are kept: unknown ids are read each time and never stored.
 */
export interface VerifierCache {
  get(id: string): Verifier | undefined;
  set(v: Verifier): void;
  forget(id: string): void;
}

export function verifierCache(opts: { max: number; ttlMs: number; now?: () => number }): VerifierCache {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, { v: Verifier; until: number }>();
  return {
    get(id) {
      const hit = entries.get(id);
      if (!hit) return undefined;
      entries.delete(id);
      if (hit.until <= now()) return undefined;
      entries.set(id, hit);
      return hit.v;
    },
    set(v) {
      entries.delete(v.id);
      entries.set(v.id, { v, until: now() + opts.ttlMs });
      if (entries.size > opts.max) entries.delete(entries.keys().next().value!);
    },
    forget(id) {
      entries.delete(id);
    },
  };
}

export async function verifierOf(deps: ReceiveDeps, connectionId: string): Promise<Verifier | null> {
  if (!isConnectionId(connectionId)) return null;
  const kept = deps.verifiers?.get(connectionId);
  if (kept) return kept;
  const found = await deps.db.channelConnection.findUnique({
    where: { id: connectionId },
    select: { id: true, channel: true, secretHash: true, signingSecretCiphertext: true, appSecretCiphertext: true, accountId: true },
  });
  if (!found) return null;
  const row: Verifier = { id: found.id, channel: found.channel, secretHash: found.secretHash };
  if (found.signingSecretCiphertext) row.signingSecret = openSigningSecret(deps.ciphers, found.id, found.signingSecretCiphertext);
  // Email: the inbound address (a mail from it is the bot's own, never answered).
  if (found.channel === 'email') row.accountId = found.accountId;
  if (found.appSecretCiphertext) Object.assign(row, { appSecret: openAppSecret(deps.ciphers, found), accountId: found.accountId });
  deps.verifiers?.set(row);
  return row;
}

export interface TelegramMessage {
  updateId: string;
  chatId: string;
  userId: string;
  userName: string;
  text: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The update's text message, null for an update with none; a body that is no update is INVALID_ARGUMENT. */
export function parseTelegramUpdate(body: Uint8Array): TelegramMessage | null {
  let update: unknown;
  try {
    update = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    throw invalid(BODY_INVALID);
  }
  if (!isObject(update) || !Number.isSafeInteger(update.update_id)) throw invalid(BODY_INVALID);
  const message = update.message;
  if (!isObject(message) || typeof message.text !== 'string' || !isObject(message.chat)) return null;
  const chatId = message.chat.id;
  if (!Number.isSafeInteger(chatId)) throw invalid(BODY_INVALID);
  const from = isObject(message.from) ? message.from : {};
  if (from.is_bot === true) return null;
  const name = [from.first_name, from.last_name].filter((p): p is string => typeof p === 'string').join(' ');
  return {
    updateId: String(update.update_id),
    chatId: String(chatId),
    userId: Number.isSafeInteger(from.id) ? String(from.id) : '',
    userName: name.slice(0, 200),
    text: message.text.slice(0, MAX_QUEUED_TEXT),
  };
}

/** True when the header's hash equals the stored one; constant time, whatever the header's length. */
export function secretMatches(received: string, storedHash: string): boolean {
  const expected = Buffer.from(storedHash, 'hex');
  const actual = Buffer.from(secretHashOf(received), 'hex');
  return expected.length === actual.length && expected.length > 0 && timingSafeEqual(expected, actual);
}

export async function receiveChannelUpdate(
  deps: ReceiveDeps,
  req: { channel: string; connectionId: string; secret: string; body: Uint8Array; timestamp?: string },
): Promise<{ queued: boolean; challenge?: string }> {
  const channel = parseChannel(req.channel);
  const refused = (err: Error) => {
    channelVerificationFailures.series({ channel }).inc();
    return err;
  };
  if (channel === 'slack') return receiveSlackEvent(deps, req, refused);

  if (!req.secret) throw refused(unauthenticated(SECRET_MISSING));
  const row = await verifierOf(deps, req.connectionId);
  // An unknown connection reads as a wrong secret: the refusal does not tell which connections exist.
  if (!row || row.channel !== channel || !row.secretHash || !secretMatches(req.secret, row.secretHash))
    throw refused(forbidden(SECRET_REFUSED));
  const message = parseTelegramUpdate(req.body);
  if (!message) return { queued: false };
  await deps.inbound.publish(
    create(ChannelMessageReceivedSchema, {
      channel,
      connectionId: row.id,
      providerMessageId: message.updateId,
      chatId: message.chatId,
      userId: message.userId,
      userName: message.userName,
      text: message.text,
    }),
    `${channel}:${row.id}:${message.updateId}`,
  );
  channelInbound.series({ channel }).inc();
  return { queued: true };
}

/**
 * A Slack Events API request (docs/adr/0057-slack-channel.md): `secret` is X-Slack-Signature,
 * `timestamp` X-Slack-Request-Timestamp. Verified before the body is read; a url_verification's
 * challenge is answered back, a message or mention queued under its event_id.
 */
async function receiveSlackEvent(
  deps: ReceiveDeps,
  req: { connectionId: string; secret: string; body: Uint8Array; timestamp?: string },
  refused: (err: Error) => Error,
): Promise<{ queued: boolean; challenge?: string }> {
  if (!req.secret || !req.timestamp) throw refused(unauthenticated(SIGNATURE_MISSING));
  const row = await verifierOf(deps, req.connectionId);
  if (
    !row ||
    row.channel !== 'slack' ||
    !row.signingSecret ||
    !slackSignatureValid(row.signingSecret, { signature: req.secret, timestamp: req.timestamp, body: req.body })
  )
    throw refused(forbidden(SIGNATURE_REFUSED));
  const event = parseSlackEvent(req.body, MAX_QUEUED_TEXT);
  if (event.kind === 'challenge') return { queued: false, challenge: event.challenge };
  if (event.kind === 'ignored') return { queued: false };
  await deps.inbound.publish(
    create(ChannelMessageReceivedSchema, {
      channel: 'slack',
      connectionId: row.id,
      providerMessageId: event.eventId,
      chatId: event.chatId,
      userId: event.userId,
      userName: '',
      text: event.text,
    }),
    `slack:${row.id}:${event.eventId}`,
  );
  channelInbound.series({ channel: 'slack' }).inc();
  return { queued: true };
}
