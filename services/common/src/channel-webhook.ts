// A messaging channel's webhook call as both the gateway and chat check it
// (docs/adr/0044-messaging-channels.md, docs/adr/0064-channels-for-operators.md): Telegram's update
// read from the raw body, the header's secret compared with the stored SHA-256 in constant time, and
// known connections' verifiers kept in process. The gateway answers Telegram's webhook with these
// alone (a verifier fetched from chat once, then kept); chat uses them for every channel.
import { createHash, timingSafeEqual } from 'node:crypto';
import { counter } from './metrics.ts';
import { invalid } from './rpc-errors.ts';

export const BODY_INVALID = 'The body is not a Telegram update.';
export const SECRET_MISSING = 'The webhook secret is missing.';
export const SECRET_REFUSED = 'The webhook secret does not match.';

/** A message longer than this is cut before it is queued (the turn then refuses what is past its own bound). */
export const MAX_QUEUED_TEXT = 16_000;

/** parley.channel-inbound's retries, the same from every producer (chat's webhook RPC, the gateway's Telegram webhook). */
export const CHANNEL_INBOUND_RETRIES = { attempts: 5, backoffMs: 1000 };

/** The job id of a channel user's message: the same update delivered again is queued once. */
export const inboundJobId = (channel: string, connectionId: string, providerMessageId: string) =>
  `${channel}:${connectionId}:${providerMessageId}`;

export const channelInbound = counter(
  'parley_channel_inbound_total',
  "Channel users' messages verified and queued from a provider's webhook, by channel.",
  ['channel'],
);
export const channelVerificationFailures = counter(
  'parley_channel_verification_failures_total',
  'Webhook calls refused because their secret or signature was missing or wrong, by channel.',
  ['channel'],
);

/** What a webhook's check needs of a connection: its channel and the secret's hash. */
export interface Verifier {
  id: string;
  channel: string;
  secretHash: string;
  /** Slack: the signing secret in plain text (kept in chat's process only, as the verifier). */
  signingSecret?: string;
  /** Meta's channels: the app secret in plain text (chat's process only). */
  appSecret?: string;
  /** The account the connection is for: Meta's phone-number, page or Instagram id; Slack's workspace (team_id); email's inbound address; SMS's Account SID. */
  accountId?: string | null;
  /** The operator's Slack app, kept per workspace: the connection installed there through the app (empty: none). */
  connectionId?: string;
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

export const secretHashOf = (secret: string | Buffer) => createHash('sha256').update(secret).digest('hex');

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
