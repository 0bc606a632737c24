// Telegram's Bot API as Parley calls it (docs/adr/0044-messaging-channels.md): POST
// {TELEGRAM_API_BASE}/bot{token}/{method} with a JSON body, answered `{ok, result}` or `{ok: false,
// error_code, description, parameters: {retry_after}}`. The token only ever goes to the operator's
// API base, in the path Telegram names, and its shape is checked first (digits, a colon, the
// secret's alphabet), so an owner's input cannot change where a call goes. A call is bounded in time
// and in the size of what it reads back.
import { providerPost, type ProviderAnswer } from './provider-post.ts';

export const TELEGRAM_TOKEN_SHAPE = /^\d{1,20}:[A-Za-z0-9_-]{30,100}$/;
/** Telegram's longest text message, in characters. */
export const TELEGRAM_MAX_TEXT = 4096;
const MAX_RESPONSE_BYTES = 64 * 1024;

/** A refusal or failure of the Bot API: its status (0 when it could not be reached) and Telegram's retry_after. */
export class TelegramError extends Error {
  readonly status: number;
  readonly retryAfterSeconds: number | null;
  constructor(message: string, status: number, retryAfterSeconds: number | null = null) {
    super(message);
    this.name = 'TelegramError';
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }
  /** Worth another try later: rate limited, Telegram's own failure, or unreachable. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

export interface TelegramApi {
  getMe(token: string): Promise<{ username: string }>;
  setWebhook(token: string, url: string, secretToken: string): Promise<void>;
  deleteWebhook(token: string): Promise<void>;
  sendMessage(token: string, chatId: string, text: string): Promise<void>;
}

export function telegramApi(opts: { baseUrl: string; timeoutMs: number }): TelegramApi {
  const base = opts.baseUrl.replace(/\/+$/, '');
  // Every answer the channel worker sends is one of these calls: kept-alive connections, no fetch (provider-post.ts).
  const post = providerPost();
  async function call<T>(token: string, method: string, body: Record<string, unknown>): Promise<T> {
    if (!TELEGRAM_TOKEN_SHAPE.test(token)) throw new TelegramError('Unauthorized', 401);
    let res: ProviderAnswer;
    try {
      res = await post(`${base}/bot${token}/${method}`, JSON.stringify(body), { timeoutMs: opts.timeoutMs, maxBytes: MAX_RESPONSE_BYTES });
    } catch (err) {
      throw new TelegramError(`Telegram could not be reached (${(err as Error).name})`, 0);
    }
    let parsed: { ok?: boolean; result?: T; description?: string; parameters?: { retry_after?: number } } = {};
    try {
      parsed = res.text ? (JSON.parse(res.text) as typeof parsed) : {};
    } catch {
      // Not Telegram's JSON (a proxy's page): the status says enough.
    }
    if (res.status >= 200 && res.status < 300 && parsed.ok === true) return parsed.result as T;
    const retryAfter = Number(parsed.parameters?.retry_after);
    const description = typeof parsed.description === 'string' ? parsed.description.slice(0, 200) : `HTTP ${res.status}`;
    throw new TelegramError(description, res.status || 500, Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : null);
  }
  return {
    async getMe(token) {
      const me = await call<{ username?: string }>(token, 'getMe', {});
      return { username: typeof me?.username === 'string' ? me.username.slice(0, 64) : '' };
    },
    async setWebhook(token, url, secretToken) {
      await call(token, 'setWebhook', { url, secret_token: secretToken, allowed_updates: ['message'], drop_pending_updates: true });
    },
    async deleteWebhook(token) {
      await call(token, 'deleteWebhook', {});
    },
    async sendMessage(token, chatId, text) {
      await call(token, 'sendMessage', { chat_id: chatId, text, link_preview_options: { is_disabled: true } });
    },
  };
}
