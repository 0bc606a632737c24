// Meta's Graph API as Parley calls it for WhatsApp Cloud API, Messenger and Instagram
// (docs/adr/0056-meta-channels.md): {META_GRAPH_API_BASE}/{id}… with the owner's token as a bearer
// header, answered with JSON or `{error: {message, type, code}}`. Every id that goes into a path is
// checked to be digits first and the token's alphabet too, so an owner's input cannot change where a
// call goes (the base is the operator's). A call is bounded in time and in the size it reads back.
import type { MetaChannelName } from './meta-channels.ts';

/** A system-user or page access token: Meta's are letters and digits (EAA…). */
export const META_TOKEN_SHAPE = /^[A-Za-z0-9_-]{20,1024}$/;
/** Meta's app secrets are 32 hexadecimal characters. */
export const META_APP_SECRET_SHAPE = /^[a-f0-9]{32}$/i;
/** Phone-number, business account, page, Instagram account and recipient ids are decimal digits. */
export const META_ID_SHAPE = /^\d{1,30}$/;
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Graph API error codes that mean "slow down" whatever the HTTP status (application, user, page and WhatsApp rate limits). */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613, 80007, 130429, 131056]);
/** The token expired, was revoked or lacks the permission: the owner must give a new one. */
const TOKEN_CODES = new Set([190, 102, 10, 200]);

/** A refusal or failure of the Graph API: an HTTP-like status (0 when unreachable, 401 for a refused token) and Meta's words. */
export class MetaError extends Error {
  readonly status: number;
  readonly retryAfterSeconds: number | null = null;
  readonly rateLimited: boolean;
  constructor(message: string, status: number, rateLimited = false) {
    super(message);
    this.name = 'MetaError';
    this.status = status;
    this.rateLimited = rateLimited;
  }
  /** Worth another try later: rate limited, Meta's own failure, or unreachable. */
  get retryable(): boolean {
    return this.rateLimited || this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

export interface MetaApi {
  /** The account's name as the owner knows it: WhatsApp's display phone number, the page's name, the Instagram username. */
  account(channel: MetaChannelName, token: string, accountId: string): Promise<{ name: string }>;
  /**
   * POST /{id}/subscribed_apps: the app the token is for subscribed to the page's, Instagram
   * account's (`fields` given) or WhatsApp Business account's webhooks.
   */
  subscribeApp(token: string, id: string, fields?: readonly string[]): Promise<void>;
  /** DELETE /{id}/subscribed_apps: that subscription removed. */
  unsubscribeApp(token: string, id: string): Promise<void>;
  /** Sends one text message; resolves to the provider's message id. */
  sendText(channel: MetaChannelName, token: string, accountId: string, to: string, text: string): Promise<{ messageId: string }>;
}

const ACCOUNT_FIELDS: Record<MetaChannelName, string> = {
  whatsapp: 'display_phone_number,verified_name',
  messenger: 'name',
  instagram: 'username',
};

export function metaApi(opts: { baseUrl: string; timeoutMs: number }): MetaApi {
  const base = opts.baseUrl.replace(/\/+$/, '');
  async function call<T>(token: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: Record<string, unknown>): Promise<T> {
    if (!META_TOKEN_SHAPE.test(token)) throw new MetaError('Invalid OAuth access token.', 401);
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        redirect: 'error',
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
    } catch (err) {
      throw new MetaError(`Meta could not be reached (${(err as Error).name})`, 0);
    }
    const text = await res.text();
    let parsed: { error?: { message?: unknown; code?: unknown } } & Record<string, unknown> = {};
    try {
      parsed = text.length <= MAX_RESPONSE_BYTES ? (JSON.parse(text) as typeof parsed) : {};
    } catch {
      // Not Meta's JSON (a proxy's page): the status says enough.
    }
    if (res.ok && !parsed.error) return parsed as T;
    const code = Number(parsed.error?.code);
    const message = typeof parsed.error?.message === 'string' ? parsed.error.message.slice(0, 200) : `HTTP ${res.status}`;
    const status = TOKEN_CODES.has(code) ? 401 : res.status || 500;
    throw new MetaError(message, status, RATE_LIMIT_CODES.has(code));
  }
  const id = (raw: string) => {
    if (!META_ID_SHAPE.test(raw)) throw new MetaError('Invalid id.', 400);
    return raw;
  };
  /** Graph answers `{success: true}` for a subscription made or removed; anything else is not taken as done. */
  const confirmed = (answer: { success?: unknown }) => {
    if (answer.success !== true) throw new MetaError('Meta did not confirm the subscription.', 502);
  };
  return {
    async subscribeApp(token, accountId, fields) {
      const path = `/${id(accountId)}/subscribed_apps`;
      confirmed(await call(token, 'POST', path, fields ? { subscribed_fields: fields.join(',') } : {}));
    },
    async unsubscribeApp(token, accountId) {
      confirmed(await call(token, 'DELETE', `/${id(accountId)}/subscribed_apps`));
    },
    async account(channel, token, accountId) {
      const found = await call<Record<string, unknown>>(token, 'GET', `/${id(accountId)}?fields=${ACCOUNT_FIELDS[channel]}`);
      const name = found.display_phone_number ?? found.name ?? found.username;
      return { name: typeof name === 'string' ? name.slice(0, 64) : '' };
    },
    async sendText(channel, token, accountId, to, text) {
      if (channel === 'whatsapp') {
        const sent = await call<{ messages?: { id?: unknown }[] }>(token, 'POST', `/${id(accountId)}/messages`, {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: id(to),
          type: 'text',
          text: { preview_url: false, body: text },
        });
        const messageId = sent.messages?.[0]?.id;
        return { messageId: typeof messageId === 'string' ? messageId.slice(0, 200) : '' };
      }
      // Messenger sends as the page whose token it is (/me); Instagram as the professional account.
      const path = channel === 'messenger' ? '/me/messages' : `/${id(accountId)}/messages`;
      const sent = await call<{ message_id?: unknown }>(token, 'POST', path, {
        recipient: { id: id(to) },
        messaging_type: 'RESPONSE',
        message: { text },
      });
      return { messageId: typeof sent.message_id === 'string' ? sent.message_id.slice(0, 200) : '' };
    },
  };
}
