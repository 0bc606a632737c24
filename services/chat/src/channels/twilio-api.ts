// Twilio's REST API as Parley calls it for SMS (docs/adr/0070-sms-channel.md):
// {TWILIO_API_BASE}/2010-04-01/Accounts/{AccountSid}/… with the Account SID and Auth Token as basic
// auth, form-encoded requests, JSON answers or Twilio's `{code, message, status}`. The Account SID is
// checked to be Twilio's shape before it goes into a path, so an owner's input cannot change where a
// call goes (the base is the operator's), and so is a number's SID. A handful of calls do not warrant
// Twilio's SDK: the account, its number, the number's "A message comes in" webhook read and set
// (docs/adr/0076-registrations-at-the-provider.md), and sending a message. A call is bounded in time
// and in the size it reads back; an answer's fields are taken only when they have the expected type.
import { TWILIO_ACCOUNT_SID_SHAPE, TWILIO_AUTH_TOKEN_SHAPE } from './sms.ts';

const MAX_RESPONSE_BYTES = 64 * 1024;

/** A refusal or failure of Twilio's API: its HTTP status (0 when unreachable), Twilio's error code and words. */
export class TwilioError extends Error {
  readonly status: number;
  readonly code: number | null;
  readonly retryAfterSeconds: number | null;
  constructor(message: string, status: number, code: number | null = null, retryAfterSeconds: number | null = null) {
    super(message);
    this.name = 'TwilioError';
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
  /** Worth another try later: too many requests, Twilio's own failure, or unreachable. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

/** An incoming phone number's SID as Twilio names it: PN and 32 hexadecimal characters. */
export const TWILIO_NUMBER_SID_SHAPE = /^PN[0-9a-f]{32}$/;
/** The longest webhook URL Parley reads back from a number (Twilio's own limit is far below it). */
const MAX_URL_CHARS = 2048;

/** Twilio's error 21610: the recipient wrote STOP to this number. */
export const TWILIO_UNSUBSCRIBED = 21610;

export interface TwilioApi {
  /** The account's friendly name; refused (401) for a wrong SID or token. */
  account(accountSid: string, authToken: string): Promise<{ name: string }>;
  /** The account's incoming phone number with this E.164 number: its SID, or null when the account has no such number. */
  findNumber(accountSid: string, authToken: string, phoneNumber: string): Promise<{ sid: string } | null>;
  /** The number's "A message comes in" webhook, as set now (an empty string when none). */
  smsWebhook(accountSid: string, authToken: string, numberSid: string): Promise<{ smsUrl: string }>;
  /** Sets the number's "A message comes in" webhook to this URL with HTTP POST; an empty URL clears it. */
  setSmsWebhook(accountSid: string, authToken: string, numberSid: string, smsUrl: string): Promise<void>;
  /** Sends one message; resolves to its sid, which the status callbacks name. */
  sendMessage(
    accountSid: string,
    authToken: string,
    msg: { from: string; to: string; body: string; statusCallback: string },
  ): Promise<{ messageSid: string }>;
}

export function twilioApi(opts: { baseUrl: string; timeoutMs: number }): TwilioApi {
  const base = opts.baseUrl.replace(/\/+$/, '');
  async function call<T>(accountSid: string, authToken: string, method: 'GET' | 'POST', path: string, form?: Record<string, string>) {
    if (!TWILIO_ACCOUNT_SID_SHAPE.test(accountSid) || !TWILIO_AUTH_TOKEN_SHAPE.test(authToken))
      throw new TwilioError('Authenticate', 401, 20003);
    let res: Response;
    try {
      res = await fetch(`${base}/2010-04-01/Accounts/${accountSid}${path}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`,
          accept: 'application/json',
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: form ? new URLSearchParams(form).toString() : undefined,
        redirect: 'error',
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
    } catch (err) {
      throw new TwilioError(`Twilio could not be reached (${(err as Error).name})`, 0);
    }
    const text = await res.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text.length <= MAX_RESPONSE_BYTES ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      // Not Twilio's JSON (a proxy's page): the status says enough.
    }
    if (res.ok) return parsed as T;
    const code = typeof parsed.code === 'number' ? parsed.code : null;
    const message = typeof parsed.message === 'string' ? parsed.message.slice(0, 200) : `HTTP ${res.status}`;
    const retryAfter = Number(res.headers.get('retry-after'));
    throw new TwilioError(message, res.status, code, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
  }
  const numberPath = (numberSid: string) => {
    if (!TWILIO_NUMBER_SID_SHAPE.test(numberSid)) throw new TwilioError('Invalid phone number SID', 400);
    return `/IncomingPhoneNumbers/${numberSid}.json`;
  };
  return {
    async account(accountSid, authToken) {
      const found = await call<{ friendly_name?: unknown }>(accountSid, authToken, 'GET', '.json');
      return { name: typeof found.friendly_name === 'string' ? found.friendly_name.slice(0, 64) : '' };
    },
    async findNumber(accountSid, authToken, phoneNumber) {
      const found = await call<{ incoming_phone_numbers?: unknown }>(
        accountSid,
        authToken,
        'GET',
        `/IncomingPhoneNumbers.json?${new URLSearchParams({ PhoneNumber: phoneNumber })}`,
      );
      const numbers = Array.isArray(found.incoming_phone_numbers) ? (found.incoming_phone_numbers as unknown[]) : [];
      const number = numbers.find(
        (n): n is { phone_number: string; sid: unknown } => (n as { phone_number?: unknown })?.phone_number === phoneNumber,
      );
      if (!number) return null;
      if (typeof number.sid !== 'string' || !TWILIO_NUMBER_SID_SHAPE.test(number.sid))
        throw new TwilioError('Twilio answered a number without its SID', 502);
      return { sid: number.sid };
    },
    async smsWebhook(accountSid, authToken, numberSid) {
      const found = await call<{ sms_url?: unknown }>(accountSid, authToken, 'GET', numberPath(numberSid));
      return { smsUrl: typeof found.sms_url === 'string' ? found.sms_url.slice(0, MAX_URL_CHARS) : '' };
    },
    async setSmsWebhook(accountSid, authToken, numberSid, smsUrl) {
      // Cleared: the method is left as it is, the number's own.
      await call(accountSid, authToken, 'POST', numberPath(numberSid), smsUrl ? { SmsUrl: smsUrl, SmsMethod: 'POST' } : { SmsUrl: '' });
    },
    async sendMessage(accountSid, authToken, msg) {
      const sent = await call<{ sid?: unknown }>(accountSid, authToken, 'POST', '/Messages.json', {
        To: msg.to,
        From: msg.from,
        Body: msg.body,
        StatusCallback: msg.statusCallback,
      });
      return { messageSid: typeof sent.sid === 'string' ? sent.sid.slice(0, 64) : '' };
    },
  };
}
