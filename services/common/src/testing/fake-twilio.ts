// A local stand-in for Twilio's REST API, for tests and the end-to-end suite: what Parley calls for
// SMS — GET /2010-04-01/Accounts/{AccountSid}.json (the account), GET …/IncomingPhoneNumbers.json
// ?PhoneNumber= (its numbers), GET and POST …/IncomingPhoneNumbers/{Sid}.json (a number, and its
// form-encoded SmsUrl and SmsMethod, kept per number) and POST …/Messages.json (form-encoded To,
// From, Body, StatusCallback) — with the Account SID and Auth Token as basic auth, answered as Twilio
// does (the resource's JSON, 201 for a message, or `{code, message, more_info, status}`), plus what Twilio itself does with a
// webhook: `deliver` posts an inbound SMS to a URL form-encoded and signed X-Twilio-Signature
// (HMAC-SHA1 under the Auth Token of the URL and the sorted parameters, base64), and `status` posts
// a message's status callback the same way. Its own endpoints for a test in another process live
// under /_fake/: POST /_fake/deliver {url, from, body, messageSid?}, POST /_fake/status {url,
// messageSid, status}, GET /_fake/sent, GET /_fake/numbers (each number's webhook).
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake } from './serve.ts';

export interface FakeTwilioAccount {
  authToken: string;
  /** The account's incoming phone numbers, E.164. */
  numbers: string[];
  name?: string;
}

export interface FakeTwilioBehaviour {
  /** Accounts by Account SID; any other SID or token is refused 401 (code 20003). */
  accounts: Record<string, FakeTwilioAccount>;
  /** The next N sends are answered 429 (code 20429), with Retry-After: 1. */
  rateLimited: number;
  /** The next N sends are answered 503. */
  failures: number;
  /** The next N calls to a number's resource (GET or POST …/IncomingPhoneNumbers/{Sid}.json) are answered 503. */
  numberFailures: number;
}

/** A number's "A message comes in" webhook as Twilio keeps it. */
export interface FakeTwilioNumber {
  phoneNumber: string;
  sid: string;
  smsUrl: string;
  smsMethod: string;
}

export interface TwilioSentMessage {
  accountSid: string;
  from: string;
  to: string;
  body: string;
  statusCallback: string;
  sid: string;
}

export interface FakeTwilio {
  url: string;
  sent: TwilioSentMessage[];
  set(patch: Partial<FakeTwilioBehaviour>): void;
  sentCount(count: number): Promise<void>;
  /** The number's webhook as it is set now (any account's number, E.164). */
  number(phoneNumber: string): FakeTwilioNumber;
  /** Sets the number's webhook as its owner would in Twilio's console. */
  setNumber(phoneNumber: string, patch: Partial<Pick<FakeTwilioNumber, 'smsUrl' | 'smsMethod'>>): void;
  /** Posts an inbound SMS as Twilio would, signed under the account's Auth Token; resolves to the webhook's status and body. */
  deliver(url: string, sms: InboundSms): Promise<{ status: number; body: string }>;
  /** Posts a status callback about a message sent (to its StatusCallback); resolves to the webhook's status. */
  status(message: TwilioSentMessage, status: string, errorCode?: string): Promise<number>;
  close(): Promise<void>;
}

export interface InboundSms {
  accountSid: string;
  authToken: string;
  from: string;
  to: string;
  body: string;
  messageSid?: string;
}

/** A fresh SMS sid, as Twilio names one (SM and 32 hexadecimal characters). */
export const smsSid = () => `SM${randomBytes(16).toString('hex')}`;

/** A number's SID in the fake: PN and its digits padded to 32 hexadecimal characters, as stable as Twilio's. */
export const numberSidOf = (phoneNumber: string) => `PN${phoneNumber.slice(1).padEnd(32, '0')}`;

/** Twilio's X-Twilio-Signature: base64(HMAC-SHA1(auth token, url + each parameter's name and value, sorted by name)). */
export function twilioSignatureOf(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, name) => acc + name + params[name], url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

/** The parameters of an inbound SMS as Twilio's webhook sends them. */
export function inboundSmsParams(sms: InboundSms): Record<string, string> {
  const sid = sms.messageSid ?? smsSid();
  return {
    ToCountry: 'US',
    ToState: 'CA',
    SmsMessageSid: sid,
    NumMedia: '0',
    ToCity: '',
    FromZip: '',
    SmsSid: sid,
    FromState: '',
    SmsStatus: 'received',
    FromCity: '',
    Body: sms.body,
    FromCountry: 'GB',
    To: sms.to,
    ToZip: '',
    NumSegments: '1',
    MessageSid: sid,
    AccountSid: sms.accountSid,
    From: sms.from,
    ApiVersion: '2010-04-01',
  };
}

/** Posts form parameters to a URL signed as Twilio signs them (or with the signature given). */
export async function postSigned(
  url: string,
  authToken: string,
  params: Record<string, string>,
  o: { signature?: string | null } = {},
): Promise<{ status: number; body: string }> {
  const signature = o.signature === undefined ? twilioSignatureOf(authToken, url, params) : o.signature;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'i-twilio-idempotency-token': randomBytes(8).toString('hex'),
      ...(signature === null ? {} : { 'x-twilio-signature': signature }),
    },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: await res.text() };
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const reply = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

const refuse = (res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  reply(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, headers);

export async function startFakeTwilio(opts: Partial<FakeTwilioBehaviour> & { port?: number; host?: string } = {}): Promise<FakeTwilio> {
  const { port = 0, host = '127.0.0.1', ...initial } = opts;
  const behaviour: FakeTwilioBehaviour = { accounts: {}, rateLimited: 0, failures: 0, numberFailures: 0, ...initial };
  const sent: TwilioSentMessage[] = [];
  const webhooks = new Map<string, Pick<FakeTwilioNumber, 'smsUrl' | 'smsMethod'>>();
  const numberOf = (phoneNumber: string): FakeTwilioNumber => ({
    phoneNumber,
    sid: numberSidOf(phoneNumber),
    ...(webhooks.get(phoneNumber) ?? { smsUrl: '', smsMethod: 'POST' }),
  });
  const numberResource = (accountSid: string, n: FakeTwilioNumber) => ({
    sid: n.sid,
    account_sid: accountSid,
    phone_number: n.phoneNumber,
    friendly_name: n.phoneNumber,
    sms_url: n.smsUrl,
    sms_method: n.smsMethod,
    capabilities: { sms: true, mms: false, voice: true },
  });
  const waiting: { count: number; resolve: () => void }[] = [];
  const onSent = () => {
    for (let i = waiting.length - 1; i >= 0; i--) if (sent.length >= waiting[i].count) waiting.splice(i, 1)[0].resolve();
  };
  const tokenOf = (sid: string) => behaviour.accounts[sid]?.authToken ?? '';

  const deliver = (url: string, sms: InboundSms) => postSigned(url, sms.authToken, inboundSmsParams(sms));
  const status = async (message: TwilioSentMessage, messageStatus: string, errorCode?: string) => {
    const params: Record<string, string> = {
      SmsSid: message.sid,
      SmsStatus: messageStatus,
      MessageStatus: messageStatus,
      To: message.to,
      MessageSid: message.sid,
      AccountSid: message.accountSid,
      From: message.from,
      ApiVersion: '2010-04-01',
      ...(errorCode ? { ErrorCode: errorCode } : {}),
    };
    return (await postSigned(message.statusCallback, tokenOf(message.accountSid), params)).status;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    if (path === '/_fake/sent' && req.method === 'GET') return reply(res, 200, sent);
    if (path === '/_fake/numbers' && req.method === 'GET')
      return reply(
        res,
        200,
        Object.values(behaviour.accounts).flatMap((a) => a.numbers.map(numberOf)),
      );
    if (path === '/_fake/deliver' && req.method === 'POST') {
      const o = JSON.parse(await readBody(req)) as {
        url: string;
        from: string;
        body: string;
        accountSid: string;
        to: string;
        messageSid?: string;
      };
      return reply(res, 200, await deliver(o.url, { ...o, authToken: tokenOf(o.accountSid) }));
    }
    if (path === '/_fake/status' && req.method === 'POST') {
      const o = JSON.parse(await readBody(req)) as { messageSid: string; status: string; errorCode?: string };
      const message = sent.find((m) => m.sid === o.messageSid);
      if (!message) return refuse(res, 404, 20404, 'No such message');
      return reply(res, 200, { status: await status(message, o.status, o.errorCode) });
    }
    const match =
      /^\/2010-04-01\/Accounts\/([^/]+?)(\.json|\/IncomingPhoneNumbers\.json|\/IncomingPhoneNumbers\/[^/]+\.json|\/Messages\.json)$/.exec(
        path,
      );
    if (!match) return refuse(res, 404, 20404, `The requested resource ${path} was not found`);
    const [, sid, resource] = match;
    const [user, pass] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
      .toString('utf8')
      .split(':');
    const account = behaviour.accounts[sid];
    if (!account || user !== sid || pass !== account.authToken) return refuse(res, 401, 20003, 'Authenticate');
    if (resource === '.json' && req.method === 'GET')
      return reply(res, 200, { sid, friendly_name: account.name ?? 'My first Twilio account', status: 'active', type: 'Full' });
    if (resource === '/IncomingPhoneNumbers.json' && req.method === 'GET') {
      const wanted = url.searchParams.get('PhoneNumber');
      const numbers = account.numbers.filter((n) => !wanted || n === wanted);
      return reply(res, 200, { incoming_phone_numbers: numbers.map((n) => numberResource(sid, numberOf(n))) });
    }
    if (resource.startsWith('/IncomingPhoneNumbers/')) return numberCall(req, res, sid, account, resource);
    if (resource !== '/Messages.json' || req.method !== 'POST') return refuse(res, 405, 20004, 'Method not allowed');
    const form = new URLSearchParams(await readBody(req));
    if (behaviour.rateLimited > 0) {
      behaviour.rateLimited--;
      return refuse(res, 429, 20429, 'Too Many Requests', { 'retry-after': '1' });
    }
    if (behaviour.failures > 0) {
      behaviour.failures--;
      return refuse(res, 503, 20500, 'Service unavailable');
    }
    const to = form.get('To') ?? '';
    const from = form.get('From') ?? '';
    const body = form.get('Body') ?? '';
    if (!/^\+[1-9]\d{6,14}$/.test(to)) return refuse(res, 400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    if (!account.numbers.includes(from))
      return refuse(res, 400, 21606, `The From phone number ${from} is not a valid, SMS-capable inbound phone number.`);
    if (!body) return refuse(res, 400, 21602, 'Message body is required.');
    if ([...body].length > 1600) return refuse(res, 400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
    const message: TwilioSentMessage = { accountSid: sid, from, to, body, statusCallback: form.get('StatusCallback') ?? '', sid: smsSid() };
    sent.push(message);
    onSent();
    return reply(res, 201, {
      sid: message.sid,
      account_sid: sid,
      from,
      to,
      body,
      status: 'queued',
      num_segments: '1',
      api_version: '2010-04-01',
    });
  };

  /** GET or POST one number's resource: unknown to the account 404 (20404), SmsUrl checked to be a URL or empty (21502). */
  const numberCall = async (
    req: IncomingMessage,
    res: ServerResponse,
    accountSid: string,
    account: FakeTwilioAccount,
    resource: string,
  ) => {
    const phoneNumber = account.numbers.find((n) => resource === `/IncomingPhoneNumbers/${numberSidOf(n)}.json`);
    if (!phoneNumber) return refuse(res, 404, 20404, `The requested resource ${resource} was not found`);
    if (behaviour.numberFailures > 0) {
      behaviour.numberFailures--;
      return refuse(res, 503, 20500, 'Service unavailable');
    }
    if (req.method === 'GET') return reply(res, 200, numberResource(accountSid, numberOf(phoneNumber)));
    if (req.method !== 'POST') return refuse(res, 405, 20004, 'Method not allowed');
    const form = new URLSearchParams(await readBody(req));
    const smsUrl = form.get('SmsUrl');
    const smsMethod = form.get('SmsMethod');
    if (smsUrl !== null && smsUrl !== '' && !/^https?:\/\/\S+$/.test(smsUrl)) return refuse(res, 400, 21502, 'SmsUrl is not valid.');
    if (smsMethod !== null && smsMethod !== 'GET' && smsMethod !== 'POST') return refuse(res, 400, 21502, 'SmsMethod is not valid.');
    const now = numberOf(phoneNumber);
    webhooks.set(phoneNumber, { smsUrl: smsUrl ?? now.smsUrl, smsMethod: smsMethod ?? now.smsMethod });
    return reply(res, 200, numberResource(accountSid, numberOf(phoneNumber)));
  };

  const server = await serveFake('Twilio', handle, (res, message) => refuse(res, 500, 20500, `Internal error: ${message}`), host, port);
  return {
    url: server.origin,
    sent,
    set(patch) {
      Object.assign(behaviour, patch);
    },
    number: numberOf,
    setNumber(phoneNumber, patch) {
      const { smsUrl, smsMethod } = numberOf(phoneNumber);
      webhooks.set(phoneNumber, { smsUrl, smsMethod, ...patch });
    },
    deliver,
    status,
    sentCount: (count) => (sent.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ count, resolve }))),
    close: server.close,
  };
}
