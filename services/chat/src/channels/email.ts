// Email's rules (docs/adr/0063-email-channel.md): Mailgun's webhook signature, the inbound mail's
// fields as Parley reads them (each bounded), the mails never answered, quote-stripping, and the
// Message-IDs that tie a thread together.
//
// - Verification: Mailgun signs `timestamp` + `token` (not the body) with the webhook signing key:
//   `signature` is their hex HMAC-SHA256, compared in constant time over two 32-byte digests; a
//   timestamp more than five minutes from now (either way) is refused, and so is a token seen before
//   within that window (email-receive.ts keeps them in Redis), so a captured request can be replayed
//   neither as it was nor with another body.
// - Never answered (taken and recorded with the reason, no model call, nothing billed): auto-replies
//   (Auto-Submitted other than `no`, X-Autoreply, X-Autorespond, Precedence bulk/junk/list, List-Id,
//   List-Unsubscribe), bounces (a MAILER-DAEMON or postmaster sender, an empty Return-Path, a
//   multipart/report or message/delivery-status body), and loops (EMAIL_MAX_HOPS of Parley's own
//   Message-IDs in References, the bot's own address as the sender, or a contact past the rate cap).
// - Threads: Parley's Message-IDs are `<parley.{uuid}@{inbound domain}>`; a mail whose In-Reply-To or
//   References names a Message-ID of one of the contact's threads continues it, any other opens one
//   whose chat id derives from its own Message-ID (so a duplicate delivery opens the same one).
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Redis } from '@parley/common/redis.ts';
import { invalid } from '@parley/common/rpc-errors.ts';

/** The oldest (and most future) timestamp taken, in seconds from now. */
export const EMAIL_MAX_SKEW_SECONDS = 5 * 60;
/** Parley's own Message-IDs in a mail's References past which the thread is a loop. */
export const EMAIL_MAX_HOPS = 10;
/** Mails one contact may send one connection per hour; past it they are taken as a loop ("rate"). */
export const EMAIL_CONTACT_RATE_PER_HOUR = 30;
/** The longest answer sent in one mail (an answer is far shorter; the bound keeps a mail a mail). */
export const EMAIL_MAX_TEXT = 50_000;
/** Message-IDs kept per thread for References. */
export const EMAIL_MAX_REFERENCES = 20;

export const EMAIL_BODY_INVALID = 'The body is not an inbound mail of Mailgun.';
export const EMAIL_MESSAGE_ID_MISSING = 'The mail has no Message-Id.';
export const EMAIL_SENDER_INVALID = 'The mail has no valid sender address.';
/** A Mailgun webhook signing key as its dashboard shows it (`key-…` or hexadecimal). */
export const MAILGUN_SIGNING_KEY_SHAPE = /^(key-)?[A-Za-z0-9]{24,128}$/;

/** What email's inbound side needs beside a channel's webhook (email-receive.ts). */
export interface EmailInboundDeps {
  /** Where the webhook's tokens are remembered for the signature's window. */
  redis: Redis;
  /** EMAIL_INBOUND_DOMAIN: the inbound addresses' and Parley's Message-IDs' domain. */
  domain: string;
  /** The Redis keys' prefix (the queues'), so two deployments on one Redis keep their tokens apart. */
  prefix: string;
}

export type SkipReason = 'auto_reply' | 'bounce' | 'loop' | 'own_address' | 'rate' | 'empty';

const BOUNDS = {
  address: 254,
  subject: 998,
  messageId: 998,
  references: 50,
  headers: 200,
  headerValue: 2000,
  name: 200,
  body: 64 * 1024,
};

const ADDRESS = /^[^\s@<>()",;:\\[\]]{1,64}@[A-Za-z0-9.-]{1,253}$/;
const MESSAGE_ID = /<[^<>\s]{1,996}>/g;
const SIGNATURE = /^[0-9a-f]{64}$/;

/** True when `signature` is Mailgun's over this timestamp and token under the key, and the timestamp is recent. */
export function mailgunSignatureValid(
  signingKey: string,
  req: { timestamp: string; token: string; signature: string },
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  if (!signingKey || !/^\d{1,12}$/.test(req.timestamp) || !/^[A-Za-z0-9]{10,200}$/.test(req.token)) return false;
  if (!SIGNATURE.test(req.signature)) return false;
  if (Math.abs(nowSeconds - Number(req.timestamp)) > EMAIL_MAX_SKEW_SECONDS) return false;
  const expected = createHmac('sha256', signingKey).update(req.timestamp).update(req.token).digest();
  const actual = Buffer.from(req.signature, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The fields of Mailgun's inbound POST Parley reads, as the gateway hands them over (JSON of strings). */
export interface InboundFields {
  timestamp?: string;
  token?: string;
  signature?: string;
  sender?: string;
  recipient?: string;
  subject?: string;
  'body-plain'?: string;
  'stripped-text'?: string;
  'Message-Id'?: string;
  'In-Reply-To'?: string;
  References?: string;
  'message-headers'?: string;
}

export const INBOUND_FIELD_NAMES = [
  'timestamp',
  'token',
  'signature',
  'sender',
  'recipient',
  'subject',
  'body-plain',
  'stripped-text',
  'Message-Id',
  'In-Reply-To',
  'References',
  'message-headers',
] as const;

/** The inbound mail as Parley reads it: every field bounded, headers lower-cased. */
export interface InboundMail {
  sender: string;
  senderName: string;
  recipient: string;
  subject: string;
  messageId: string;
  /** In-Reply-To first, then References newest first: where to look for the thread. */
  parents: string[];
  /** References as sent (oldest first), for the loop count. */
  references: string[];
  headers: [string, string][];
  text: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : '');

/** The handed-over body's fields; a body that is no JSON object of strings is INVALID_ARGUMENT. */
export function parseInboundFields(body: Uint8Array): InboundFields {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    throw invalid(EMAIL_BODY_INVALID);
  }
  if (!isObject(payload)) throw invalid(EMAIL_BODY_INVALID);
  const fields: InboundFields = {};
  for (const name of INBOUND_FIELD_NAMES) {
    const v = payload[name];
    if (v === undefined) continue;
    if (typeof v !== 'string') throw invalid(EMAIL_BODY_INVALID);
    fields[name] = v;
  }
  return fields;
}

const messageIds = (raw: string | undefined): string[] => (raw ?? '').match(MESSAGE_ID)?.slice(0, BOUNDS.references) ?? [];

/** A bare address from `Name <a@b>` or `a@b`, lower-cased; empty when there is none. */
export function addressOf(raw: string): string {
  const inAngles = /<([^<>]*)>/.exec(raw);
  const address = (inAngles ? inAngles[1] : raw).trim().toLowerCase();
  return address.length <= BOUNDS.address && ADDRESS.test(address) ? address : '';
}

function parseHeaders(raw: string | undefined): [string, string][] {
  if (!raw) return [];
  let list: unknown;
  try {
    list = JSON.parse(raw.slice(0, BOUNDS.body));
  } catch {
    throw invalid(EMAIL_BODY_INVALID);
  }
  if (!Array.isArray(list)) throw invalid(EMAIL_BODY_INVALID);
  const headers: [string, string][] = [];
  for (const h of list.slice(0, BOUNDS.headers)) {
    if (!Array.isArray(h) || typeof h[0] !== 'string' || typeof h[1] !== 'string') continue;
    headers.push([h[0].slice(0, 100).toLowerCase(), h[1].slice(0, BOUNDS.headerValue)]);
  }
  return headers;
}

/** The mail's reading of its fields; a mail without a sender or a Message-Id is INVALID_ARGUMENT. */
export function readInboundMail(fields: InboundFields, maxText: number): InboundMail {
  const headers = parseHeaders(fields['message-headers']);
  const header = (name: string) => headers.find(([n]) => n === name)?.[1] ?? '';
  const sender = addressOf(str(fields.sender, 1000) || header('from'));
  if (!sender) throw invalid(EMAIL_SENDER_INVALID);
  const [messageId] = messageIds(str(fields['Message-Id'], BOUNDS.messageId + 2) || header('message-id'));
  if (!messageId) throw invalid(EMAIL_MESSAGE_ID_MISSING);
  const inReplyTo = messageIds(fields['In-Reply-To'] ?? header('in-reply-to'));
  const references = messageIds(fields.References ?? header('references'));
  const fromHeader = header('from');
  const senderName = /^\s*"?([^"<]*)"?\s*</.exec(fromHeader)?.[1]?.trim().slice(0, BOUNDS.name) ?? '';
  const stripped = str(fields['stripped-text'], BOUNDS.body).trim();
  const text = (stripped || stripQuoted(str(fields['body-plain'], BOUNDS.body))).slice(0, maxText);
  return {
    sender,
    senderName,
    recipient: addressOf(str(fields.recipient, 1000).split(',')[0] ?? ''),
    subject: str(fields.subject, BOUNDS.subject) || header('subject').slice(0, BOUNDS.subject),
    messageId,
    parents: [...new Set([...inReplyTo, ...[...references].reverse()])],
    references,
    headers,
    text,
  };
}

/**
 * The mail's own words: the quoted lines (`>`) taken out, and everything from the first
 * "On … wrote:" line or an Outlook-style "-----Original Message-----" / "From: …" block on, and a
 * signature after "-- ".
 */
export function stripQuoted(body: string): string {
  const kept: string[] = [];
  for (const line of body.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^\s*>/.test(line)) continue;
    if (/^On .{1,300}wrote:\s*$/.test(line.trim())) break;
    if (/^-{2,}\s*Original Message\s*-{2,}$/i.test(line.trim())) break;
    if (/^_{10,}$/.test(line.trim())) break;
    if (line === '-- ') break;
    kept.push(line);
  }
  return kept.join('\n').trim();
}

/** True for a Message-ID Parley made for this domain. */
export const isOwnMessageId = (id: string, domain: string) => id.startsWith('<parley.') && id.endsWith(`@${domain}>`);

/** A new Message-ID of Parley's. */
export const newMessageId = (domain: string) => `<parley.${randomUUID()}@${domain}>`;

/** Why this mail is never answered, or null when it is a person's. (The per-contact rate is the receiver's: it reads the database.) */
export function skipReasonOf(mail: InboundMail, ownAddress: string, domain: string): SkipReason | null {
  const values = (name: string) => mail.headers.filter(([n]) => n === name).map(([, v]) => v.trim().toLowerCase());
  const has = (name: string) => values(name).length > 0;
  const local = mail.sender.split('@')[0];
  const contentType = values('content-type').join(' ');
  if (
    local === 'mailer-daemon' ||
    local === 'postmaster' ||
    values('return-path').some((v) => v === '<>' || v === '') ||
    contentType.includes('multipart/report') ||
    contentType.includes('message/delivery-status')
  )
    return 'bounce';
  if (
    values('auto-submitted').some((v) => v !== 'no') ||
    has('x-autoreply') ||
    has('x-autorespond') ||
    values('precedence').some((v) => v === 'bulk' || v === 'junk' || v === 'list') ||
    has('list-id') ||
    has('list-unsubscribe')
  )
    return 'auto_reply';
  if (ownAddress && mail.sender === ownAddress.toLowerCase()) return 'own_address';
  if (mail.references.filter((id) => isOwnMessageId(id, domain)).length >= EMAIL_MAX_HOPS) return 'loop';
  if (!mail.text) return 'empty';
  return null;
}

/** A new thread's chat id, from the Message-ID that opened it: the same mail delivered twice opens the same one. */
export const threadChatId = (connectionId: string, messageId: string) =>
  `t_${createHash('sha256').update(`${connectionId}\n${messageId}`).digest('hex').slice(0, 32)}`;

export const isThreadChatId = (chatId: string) => /^t_[0-9a-f]{32}$/.test(chatId);

/** The subject without its Re:/Fwd: prefixes; the answers' subject is "Re: " and this. */
export const baseSubject = (subject: string) =>
  subject
    .replace(/^(\s*(re|fw|fwd|aw|sv)(\[\d+\])?\s*:\s*)+/i, '')
    .trim()
    .slice(0, BOUNDS.subject) || '(no subject)';

/** A new inbound address's local part: 80 random bits, lower-case letters and digits. */
export const inboundLocalPart = () => `bot-${randomUUID().replace(/-/g, '').slice(0, 20)}`;

/** True for an address a test message may go to. */
export const emailAddressValid = (raw: string) => addressOf(raw) !== '' && !/[<>]/.test(raw.trim());
