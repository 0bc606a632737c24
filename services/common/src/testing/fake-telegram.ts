// A local stand-in for Telegram's Bot API, for tests, benchmarks and the end-to-end suite: the
// methods Parley calls (getMe, setWebhook, deleteWebhook, sendMessage) at POST /bot{token}/{method}
// with a JSON body, answered as Telegram does (`{ok: true, result}`, or `{ok: false, error_code,
// description, parameters?: {retry_after}}`), plus what Telegram itself does with a webhook: `deliver`
// posts an update to the registered URL with its `X-Telegram-Bot-Api-Secret-Token`, and answers with
// the webhook's status. The fake's own endpoints (for a test in another process) live under /_fake/:
// POST /_fake/deliver {token, update} and GET /_fake/sent.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake } from './serve.ts';

export interface FakeTelegramBehaviour {
  /** Tokens Telegram knows, each with its bot's username; any other token is answered 401 Unauthorized. */
  bots: Record<string, string>;
  /** The next N sendMessage calls are answered 429 with this retry_after (seconds). */
  rateLimited: { times: number; retryAfter: number };
  /** The next N sendMessage calls are answered 502 Bad Gateway. */
  failures: number;
  /** The next N deleteWebhook calls are answered 502 Bad Gateway. */
  webhookFailures: number;
}

export interface SentMessage {
  token: string;
  chat_id: string;
  text: string;
  [key: string]: unknown;
}

export interface FakeTelegram {
  /** The Bot API's root, for TELEGRAM_API_BASE (the client adds /bot{token}/{method}). */
  url: string;
  /** Every sendMessage that was accepted, oldest first. */
  sent: SentMessage[];
  /** Every call, accepted or not: method and token. */
  calls: { method: string; token: string }[];
  /** The webhook each token registered (setWebhook), until deleteWebhook. */
  webhooks: Map<string, { url: string; secretToken: string }>;
  set(patch: Partial<FakeTelegramBehaviour>): void;
  /** Resolves once `count` messages were sent in all (at once when they already were), without polling. */
  sentCount(count: number): Promise<void>;
  /** Posts the update to the token's webhook as Telegram would; resolves to the webhook's status. */
  deliver(token: string, update: unknown): Promise<number>;
  close(): Promise<void>;
}

let updateSeq = 1000;
let messageSeq = 1;

/** A private chat's text message as Telegram's update carries it (update_id new each call unless given). */
export function telegramTextUpdate(chatId: number, text: string, opts: { updateId?: number; firstName?: string } = {}) {
  const updateId = opts.updateId ?? ++updateSeq;
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chatId, type: 'private', first_name: opts.firstName ?? 'Ada' },
      from: { id: chatId, is_bot: false, first_name: opts.firstName ?? 'Ada' },
      text,
    },
  };
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const reply = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const refuse = (res: ServerResponse, status: number, description: string, parameters?: Record<string, unknown>) =>
  reply(res, status, { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) });

export async function startFakeTelegram(
  opts: Partial<FakeTelegramBehaviour> & { port?: number; host?: string } = {},
): Promise<FakeTelegram> {
  const { port = 0, host = '127.0.0.1', ...initial } = opts;
  const behaviour: FakeTelegramBehaviour = {
    bots: {},
    rateLimited: { times: 0, retryAfter: 1 },
    failures: 0,
    webhookFailures: 0,
    ...initial,
  };
  const sent: SentMessage[] = [];
  const calls: { method: string; token: string }[] = [];
  const webhooks = new Map<string, { url: string; secretToken: string }>();
  const waiting: { count: number; resolve: () => void }[] = [];
  const onSent = () => {
    for (let i = waiting.length - 1; i >= 0; i--) {
      if (sent.length >= waiting[i].count) waiting.splice(i, 1)[0].resolve();
    }
  };

  const deliver = async (token: string, update: unknown): Promise<number> => {
    const hook = webhooks.get(token);
    if (!hook) throw new Error('fake Telegram: no webhook registered for this bot');
    const res = await fetch(hook.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': hook.secretToken },
      body: JSON.stringify(update),
    });
    await res.arrayBuffer();
    return res.status;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/_fake/sent' && req.method === 'GET') return reply(res, 200, sent);
    if (path === '/_fake/deliver' && req.method === 'POST') {
      const { token, update } = JSON.parse(await readBody(req)) as { token: string; update: unknown };
      return reply(res, 200, { status: await deliver(token, update) });
    }
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(path);
    if (!match || req.method !== 'POST') return refuse(res, 404, 'Not Found');
    const [, token, method] = match;
    calls.push({ method, token });
    const raw = await readBody(req);
    let body: Record<string, unknown> = {};
    if (raw) {
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return refuse(res, 400, "Bad Request: can't parse JSON object");
      }
    }
    const username = behaviour.bots[token];
    if (!username) return refuse(res, 401, 'Unauthorized');
    switch (method) {
      case 'getMe':
        return reply(res, 200, { ok: true, result: { id: 42, is_bot: true, first_name: username, username } });
      case 'setWebhook': {
        const url = typeof body.url === 'string' ? body.url : '';
        const secretToken = typeof body.secret_token === 'string' ? body.secret_token : '';
        if (!/^https?:\/\//.test(url)) return refuse(res, 400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
        if (!/^[A-Za-z0-9_-]{1,256}$/.test(secretToken)) return refuse(res, 400, 'Bad Request: secret token contains unallowed characters');
        webhooks.set(token, { url, secretToken });
        return reply(res, 200, { ok: true, result: true, description: 'Webhook was set' });
      }
      case 'deleteWebhook':
        if (behaviour.webhookFailures > 0) {
          behaviour.webhookFailures--;
          return refuse(res, 502, 'Bad Gateway');
        }
        webhooks.delete(token);
        return reply(res, 200, { ok: true, result: true, description: 'Webhook was deleted' });
      case 'sendMessage': {
        if (behaviour.rateLimited.times > 0) {
          behaviour.rateLimited = { ...behaviour.rateLimited, times: behaviour.rateLimited.times - 1 };
          const retryAfter = behaviour.rateLimited.retryAfter;
          return refuse(res, 429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
        }
        if (behaviour.failures > 0) {
          behaviour.failures--;
          return refuse(res, 502, 'Bad Gateway');
        }
        const text = typeof body.text === 'string' ? body.text : '';
        if (!text) return refuse(res, 400, 'Bad Request: message text is empty');
        if ([...text].length > 4096) return refuse(res, 400, 'Bad Request: message is too long');
        const chatId = String(body.chat_id ?? '');
        if (!chatId) return refuse(res, 400, 'Bad Request: chat not found');
        sent.push({ ...body, token, chat_id: chatId, text });
        onSent();
        return reply(res, 200, {
          ok: true,
          result: { message_id: messageSeq++, date: Math.floor(Date.now() / 1000), chat: { id: Number(chatId), type: 'private' }, text },
        });
      }
      default:
        return refuse(res, 404, 'Not Found: method not found');
    }
  };

  const server = await serveFake('Telegram', handle, (res, message) => refuse(res, 500, `Internal Server Error: ${message}`), host, port);
  return {
    url: server.origin,
    sent,
    calls,
    webhooks,
    set(patch) {
      Object.assign(behaviour, patch);
    },
    deliver,
    sentCount: (count) => (sent.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ count, resolve }))),
    close: server.close,
  };
}
