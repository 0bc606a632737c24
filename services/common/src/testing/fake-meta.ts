// A local stand-in for Meta's Graph API, for tests and the end-to-end suite: what Parley calls for
// WhatsApp Cloud API, Messenger and Instagram — GET /{id}?fields=… (the account), POST
// /{phone-number-id}/messages, /me/messages, /{ig-id}/messages, and POST, GET and DELETE
// /{id}/subscribed_apps (the app's subscription of a page, Instagram account or WhatsApp Business
// account, kept per id with its subscribed_fields) — with a bearer token, answered as Meta does (the
// object, `{success: true}`, or `{error: {message, type, code, fbtrace_id}}`), plus what Meta itself
// does with a webhook: `deliver` posts an event to a URL signed X-Hub-Signature-256 under the app
// secret, and `handshake` makes the GET verification call. Its own endpoints for a test in another
// process live under /_fake/: POST /_fake/deliver {url, appSecret, event}, GET /_fake/sent, GET
// /_fake/subscriptions ({id: fields}).
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake } from './serve.ts';

export interface FakeMetaAccount {
  token: string;
  /** WhatsApp's display phone number, the page's name or the Instagram username. */
  name: string;
  /** WhatsApp: the business account the phone number is in, which the same token may subscribe (when not given: any other id). */
  businessAccountId?: string;
}

export interface FakeMetaBehaviour {
  /** Accounts by id (phone-number, page or Instagram account id); any other token is refused 401 (code 190). */
  accounts: Record<string, FakeMetaAccount>;
  /** The next N sends are answered 429 (code 80007, rate limited). */
  rateLimited: number;
  /** The next N sends are answered 503. */
  failures: number;
  /** The next N calls to /{id}/subscribed_apps are answered 503. */
  subscriptionFailures: number;
}

export interface MetaSentMessage {
  /** The account it went out as. */
  accountId: string;
  to: string;
  text: string;
  messageId: string;
}

export interface FakeMeta {
  url: string;
  sent: MetaSentMessage[];
  calls: { method: string; path: string }[];
  /** The app's subscriptions by page, Instagram account or WhatsApp Business account id: the subscribed fields ([] for WhatsApp's). */
  subscriptions: Map<string, string[]>;
  set(patch: Partial<FakeMetaBehaviour>): void;
  sentCount(count: number): Promise<void>;
  /** Posts the event to the URL signed under the app secret as Meta would; resolves to the webhook's status. */
  deliver(url: string, appSecret: string, event: unknown): Promise<number>;
  /** Meta's GET verification of a callback URL: resolves to the status and the body. */
  handshake(url: string, verifyToken: string, challenge?: string): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

let seq = 1;

/** A WhatsApp user's text message as the Cloud API's webhook carries it. */
export function whatsappTextEvent(phoneNumberId: string, from: string, text: string, opts: { id?: string; name?: string } = {}) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: opts.name ?? 'Ada' }, wa_id: from }],
              messages: [
                {
                  from,
                  id: opts.id ?? `wamid.IN${seq++}`,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'text',
                  text: { body: text },
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

/** A WhatsApp status callback about a message sent. */
export function whatsappStatusEvent(phoneNumberId: string, messageId: string, status: string, recipient: string) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
              statuses: [
                {
                  id: messageId,
                  status,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  recipient_id: recipient,
                  ...(status === 'failed' ? { errors: [{ code: 131047, title: 'Re-engagement message' }] } : {}),
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

/** A Messenger (object page) or Instagram (object instagram) user's text message. */
export function messagingTextEvent(object: 'page' | 'instagram', accountId: string, from: string, text: string, mid?: string) {
  return {
    object,
    entry: [
      {
        id: accountId,
        time: Date.now(),
        messaging: [
          { sender: { id: from }, recipient: { id: accountId }, timestamp: Date.now(), message: { mid: mid ?? `m_${seq++}`, text } },
        ],
      },
    ],
  };
}

export const metaSignature = (appSecret: string, body: string | Buffer) =>
  `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const reply = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const refuse = (res: ServerResponse, status: number, code: number, message: string, type = 'OAuthException') =>
  reply(res, status, { error: { message, type, code, fbtrace_id: 'AbCdEfGh' } });

const MAX_TEXT: Record<string, number> = { whatsapp: 4096, messenger: 2000, instagram: 1000 };

export async function startFakeMeta(opts: Partial<FakeMetaBehaviour> & { port?: number; host?: string } = {}): Promise<FakeMeta> {
  const { port = 0, host = '127.0.0.1', ...initial } = opts;
  const behaviour: FakeMetaBehaviour = { accounts: {}, rateLimited: 0, failures: 0, subscriptionFailures: 0, ...initial };
  const sent: MetaSentMessage[] = [];
  const subscriptions = new Map<string, string[]>();
  const calls: { method: string; path: string }[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  const onSent = () => {
    for (let i = waiting.length - 1; i >= 0; i--) if (sent.length >= waiting[i].count) waiting.splice(i, 1)[0].resolve();
  };

  const deliver = async (url: string, appSecret: string, event: unknown) => {
    const body = JSON.stringify(event);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(appSecret, body) },
      body,
    });
    await res.arrayBuffer();
    return res.status;
  };
  const handshake = async (url: string, verifyToken: string, challenge = '1158201444') => {
    const q = new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.verify_token': verifyToken, 'hub.challenge': challenge });
    const res = await fetch(`${url}?${q}`);
    return { status: res.status, body: await res.text() };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/^\/v\d+\.\d+/, '');
    if (path === '/_fake/sent' && req.method === 'GET') return reply(res, 200, sent);
    if (path === '/_fake/subscriptions' && req.method === 'GET') return reply(res, 200, Object.fromEntries(subscriptions));
    if (path === '/_fake/deliver' && req.method === 'POST') {
      const { url: to, appSecret, event } = JSON.parse(await readBody(req)) as { url: string; appSecret: string; event: unknown };
      return reply(res, 200, { status: await deliver(to, appSecret, event) });
    }
    calls.push({ method: req.method ?? '', path });
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const byToken = Object.entries(behaviour.accounts).find(([, a]) => a.token === token);
    if (!byToken) return refuse(res, 401, 190, 'Invalid OAuth access token - Cannot parse access token');
    const [tokenAccountId, account] = byToken;
    const match = /^\/(me|\d+)(\/messages|\/subscribed_apps)?$/.exec(path);
    if (!match) return refuse(res, 400, 100, 'Unknown path components', 'GraphMethodException');
    const id = match[1] === 'me' ? tokenAccountId : match[1];
    const business = account.businessAccountId ? id === account.businessAccountId : id !== tokenAccountId;
    if (match[2] === '/subscribed_apps' && (id === tokenAccountId || business)) return subscribedApps(req, res, url, id, business);
    if (id !== tokenAccountId)
      return refuse(res, 400, 100, `Unsupported get request. Object with ID '${id}' does not exist`, 'GraphMethodException');
    if (!match[2] && req.method === 'GET')
      return reply(res, 200, {
        id,
        display_phone_number: account.name,
        verified_name: account.name,
        name: account.name,
        username: account.name,
      });
    if (!match[2] || req.method !== 'POST') return refuse(res, 400, 100, 'Unsupported request', 'GraphMethodException');
    const body = JSON.parse((await readBody(req)) || '{}') as {
      messaging_product?: string;
      to?: string;
      text?: { body?: string };
      recipient?: { id?: string };
      message?: { text?: string };
    };
    if (behaviour.rateLimited > 0) {
      behaviour.rateLimited--;
      return refuse(res, 429, 80007, 'Rate limit hit', 'OAuthException');
    }
    if (behaviour.failures > 0) {
      behaviour.failures--;
      return refuse(res, 503, 2, 'Service temporarily unavailable', 'OAuthException');
    }
    const whatsapp = body.messaging_product === 'whatsapp';
    const channel = whatsapp ? 'whatsapp' : match[1] === 'me' ? 'messenger' : 'instagram';
    const text = whatsapp ? body.text?.body : body.message?.text;
    const to = whatsapp ? body.to : body.recipient?.id;
    if (typeof text !== 'string' || !text) return refuse(res, 400, 100, 'Param text must be non-empty', 'OAuthException');
    if ([...text].length > MAX_TEXT[channel]) return refuse(res, 400, 100, 'Param text is too long', 'OAuthException');
    if (typeof to !== 'string' || !to) return refuse(res, 400, 100, 'Param recipient is required', 'OAuthException');
    const messageId = whatsapp ? `wamid.OUT${seq++}` : `m_out${seq++}`;
    sent.push({ accountId: id, to, text, messageId });
    onSent();
    if (whatsapp)
      return reply(res, 200, { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: messageId }] });
    return reply(res, 200, { recipient_id: to, message_id: messageId });
  };

  /** An app's subscription: a page's or Instagram account's needs subscribed_fields, a WhatsApp Business account's takes none. */
  const subscribedApps = async (req: IncomingMessage, res: ServerResponse, url: URL, id: string, business: boolean) => {
    if (behaviour.subscriptionFailures > 0) {
      behaviour.subscriptionFailures--;
      return refuse(res, 503, 2, 'Service temporarily unavailable', 'OAuthException');
    }
    if (req.method === 'GET')
      return reply(res, 200, { data: subscriptions.has(id) ? [{ id: '1234567890', subscribed_fields: subscriptions.get(id) }] : [] });
    if (req.method === 'DELETE') {
      subscriptions.delete(id);
      return reply(res, 200, { success: true });
    }
    if (req.method !== 'POST') return refuse(res, 400, 100, 'Unsupported request', 'GraphMethodException');
    const raw = await readBody(req);
    const body = (raw ? JSON.parse(raw) : {}) as { subscribed_fields?: unknown };
    const given = typeof body.subscribed_fields === 'string' ? body.subscribed_fields : (url.searchParams.get('subscribed_fields') ?? '');
    const fields = given.split(',').filter(Boolean);
    if (!business && fields.length === 0) return refuse(res, 400, 100, 'The parameter subscribed_fields is required.', 'OAuthException');
    subscriptions.set(id, fields);
    return reply(res, 200, { success: true });
  };

  const server = await serveFake(
    'Meta',
    handle,
    (res, message) => refuse(res, 500, 1, `An unknown error occurred: ${message}`),
    host,
    port,
  );
  return {
    url: `${server.origin}/v21.0`,
    sent,
    calls,
    subscriptions,
    set(patch) {
      Object.assign(behaviour, patch);
    },
    deliver,
    handshake,
    sentCount: (count) => (sent.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ count, resolve }))),
    close: server.close,
  };
}
