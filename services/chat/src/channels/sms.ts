// SMS through Twilio (docs/adr/0070-sms-channel.md): the channel's rules in one place. The shapes of
// what the owner types (Account SID, Auth Token, phone number in E.164), X-Twilio-Signature as
// Twilio's webhook security defines it (HMAC-SHA1 under the Auth Token, base64, over the exact URL
// Twilio called followed by every POST parameter sorted by name, each name then its value, no
// separators), compared in constant time; the bodies of an inbound message and of a status callback;
// the opt-out keywords Twilio itself answers on a long code (never answered by Parley); the size of a
// part (Twilio's 1,600 characters per message).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { invalid } from '@parley/common/rpc-errors.ts';

/** Twilio takes at most 1,600 characters in one message's Body (it splits them into segments itself). */
export const SMS_MAX_TEXT = 1600;
export const TWILIO_ACCOUNT_SID_SHAPE = /^AC[0-9a-f]{32}$/;
export const TWILIO_AUTH_TOKEN_SHAPE = /^[0-9a-f]{32}$/;
/** A phone number in E.164: a +, a country code that does not start with 0, 7 to 15 digits in all. */
export const E164_SHAPE = /^\+[1-9]\d{6,14}$/;
/** An SMS's or MMS's sid as Twilio names it. */
export const MESSAGE_SID_SHAPE = /^(SM|MM)[0-9a-f]{32}$/;
/** X-Twilio-Signature is the base64 of a 20-byte HMAC-SHA1: 28 characters; longer is cut by the gateway. */
export const MAX_TWILIO_SIGNATURE_CHARS = 40;

export const SMS_PHONE_INVALID = 'The phone number must be your Twilio number in E.164 form (+15550100100).';
export const SMS_RECIPIENT_INVALID = 'The recipient must be a phone number in E.164 form (+15550100100).';
export const SMS_BODY_INVALID = 'The body is not a Twilio webhook request.';
/** Told on the delivery record when a number that wrote STOP is sent to (Twilio would refuse it: error 21610). */
export const OPTED_OUT = 'Not sent: this number opted out by writing STOP, and Twilio delivers nothing to it until it writes START.';

/** Twilio's default opt-out, opt-in and help keywords on a long code: Twilio answers them itself, Parley never does. */
const KEYWORDS: Record<string, SmsKeyword> = {
  STOP: 'opt_out',
  STOPALL: 'opt_out',
  UNSUBSCRIBE: 'opt_out',
  CANCEL: 'opt_out',
  END: 'opt_out',
  QUIT: 'opt_out',
  REVOKE: 'opt_out',
  OPTOUT: 'opt_out',
  START: 'opt_in',
  YES: 'opt_in',
  UNSTOP: 'opt_in',
  HELP: 'help',
  INFO: 'help',
};
export type SmsKeyword = 'opt_out' | 'opt_in' | 'help';

/** The keyword a message is (the whole message, any case, surrounding spaces and a final full stop or ! ignored), or null. */
export function keywordOf(text: string): SmsKeyword | null {
  return KEYWORDS[text.trim().replace(/[.!]$/, '').toUpperCase()] ?? null;
}

/** Twilio's signature of a request: base64(HMAC-SHA1(auth token, url + each sorted name and value)). */
export function twilioSignature(authToken: string, url: string, params: readonly (readonly [string, string])[]): string {
  const sorted = [...params].sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  const hmac = createHmac('sha1', authToken).update(url, 'utf8');
  for (const [name, value] of sorted) hmac.update(name, 'utf8').update(value, 'utf8');
  return hmac.digest('base64');
}

/** The header against the expected signature in constant time: two SHA-256 digests, equal lengths whatever was sent. */
export function twilioSignatureValid(
  authToken: string,
  header: string,
  url: string,
  params: readonly (readonly [string, string])[],
): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(header), digest(twilioSignature(authToken, url, params)));
}

/** What the gateway hands chat: the public URL Twilio called (PUBLIC_URL and the path with its query) and the form's parameters in order. */
export interface SmsWebhookRequest {
  url: string;
  params: [string, string][];
}

export function parseSmsWebhookRequest(body: Uint8Array): SmsWebhookRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    throw invalid(SMS_BODY_INVALID);
  }
  const { url, params } = (parsed ?? {}) as { url?: unknown; params?: unknown };
  if (typeof url !== 'string' || !/^https?:\/\//.test(url) || !Array.isArray(params)) throw invalid(SMS_BODY_INVALID);
  const pairs: [string, string][] = [];
  for (const p of params.slice(0, 200)) {
    if (!Array.isArray(p) || typeof p[0] !== 'string' || typeof p[1] !== 'string') throw invalid(SMS_BODY_INVALID);
    pairs.push([p[0], p[1]]);
  }
  return { url, params: pairs };
}

export type SmsEvent =
  | { kind: 'message'; messageSid: string; accountSid: string; from: string; to: string; text: string }
  | { kind: 'status'; messageSid: string; accountSid: string; status: 'sent' | 'delivered' | 'failed'; error: string }
  | { kind: 'ignored' };

/** The statuses a delivery moves forward on; queued, accepted and sending say nothing new. */
const STATUSES: Record<string, 'sent' | 'delivered' | 'failed'> = {
  sent: 'sent',
  delivered: 'delivered',
  undelivered: 'failed',
  failed: 'failed',
};

/** A verified request's parameters: an inbound message (SmsStatus received) or a status callback about a message Parley sent. */
export function readSmsEvent(params: readonly (readonly [string, string])[], maxText: number): SmsEvent {
  const get = (name: string) => params.find(([n]) => n === name)?.[1] ?? '';
  const messageSid = get('MessageSid') || get('SmsSid');
  if (!MESSAGE_SID_SHAPE.test(messageSid)) throw invalid(SMS_BODY_INVALID);
  const accountSid = get('AccountSid');
  const messageStatus = get('MessageStatus');
  if (messageStatus && messageStatus !== 'received') {
    const status = STATUSES[messageStatus];
    if (!status) return { kind: 'ignored' };
    const code = get('ErrorCode');
    const error = status === 'failed' ? `Twilio: ${messageStatus}${code ? ` (error ${code.slice(0, 10)})` : ''}` : '';
    return { kind: 'status', messageSid, accountSid, status, error };
  }
  const from = get('From');
  const text = get('Body').trim();
  // A message without text (a picture alone) or from no phone number (a short code's alphanumeric sender) is taken and left.
  if (!E164_SHAPE.test(from) || !text) return { kind: 'ignored' };
  return { kind: 'message', messageSid, accountSid, from, to: get('To'), text: [...text].slice(0, maxText).join('') };
}
