// Slack's Web API as Parley calls it (docs/adr/0057-slack-channel.md): POST
// {SLACK_API_BASE}/{method} with the bot token as a Bearer credential and a JSON body, answered
// `{ok: true, ...}` or `{ok: false, error}` (Slack answers HTTP 200 for its refusals, 429 with
// Retry-After when rate limited). The token only ever goes to the operator's API base, in the
// Authorization header, and its shape is checked first. A call is bounded in time and in the size of
// what it reads back.
export const SLACK_TOKEN_SHAPE = /^xoxb-[A-Za-z0-9-]{10,250}$/;
/** A workspace's id as Slack writes it (team_id). */
const SLACK_TEAM_ID = /^T[A-Z0-9]{1,30}$/;
/** A Slack app's signing secret: hexadecimal as Slack shows it (32 characters today). */
export const SLACK_SIGNING_SECRET_SHAPE = /^[A-Za-z0-9]{16,128}$/;
/**
 * The longest text Parley sends in one chat.postMessage. Slack truncates a message's `text` past
 * 40,000 characters and advises about 4,000; 3,000 keeps a message readable and under the 3,000
 * characters a section block takes, should answers move to blocks.
 */
export const SLACK_MAX_TEXT = 3000;
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Slack's refusals that mean the token no longer works: the connection is marked failing. */
const TOKEN_ERRORS = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'no_permission']);

/** A refusal or failure of the Web API: an HTTP-like status (0 unreachable, 401 a dead token, 400 another refusal) and Slack's Retry-After. */
export class SlackError extends Error {
  readonly status: number;
  readonly retryAfterSeconds: number | null;
  constructor(message: string, status: number, retryAfterSeconds: number | null = null) {
    super(message);
    this.name = 'SlackError';
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }
  /** Worth another try later: rate limited, Slack's own failure, or unreachable. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

export interface SlackApi {
  /** auth.test: the bot's user name, its workspace's name and the workspace's id (team_id, `T…`). */
  authTest(token: string): Promise<{ botName: string; team: string; teamId: string }>;
  /** chat.postMessage to a channel, in a thread when `threadTs` is given. */
  postMessage(token: string, channel: string, text: string, threadTs: string): Promise<void>;
  /**
   * oauth.v2.access: the code of an "Add to Slack" install exchanged, under the app's client id and
   * secret, for the workspace's bot token. Slack refuses a code used twice, expired or given to
   * another redirect_uri (`invalid_code`, `bad_redirect_uri`).
   */
  oauthAccess(
    app: { clientId: string; clientSecret: string },
    code: string,
    redirectUri: string,
  ): Promise<{ botToken: string; team: string }>;
  /**
   * apps.uninstall: the operator's app removed from the workspace the bot token is for, which
   * revokes its tokens there (docs/adr/0076-registrations-at-the-provider.md). Form-encoded, as
   * Slack takes this method, with the app's client id and secret.
   */
  uninstall(app: { clientId: string; clientSecret: string }, token: string): Promise<void>;
}

export function slackApi(opts: { baseUrl: string; timeoutMs: number }): SlackApi {
  const base = opts.baseUrl.replace(/\/+$/, '');
  /** A Web API method under the bot token: a JSON body, or a form for the methods Slack takes only that way. */
  async function call<T>(token: string, method: string, body: Record<string, unknown>, form?: Record<string, string>): Promise<T> {
    if (!SLACK_TOKEN_SHAPE.test(token)) throw new SlackError('invalid_auth', 401);
    let res: Response;
    try {
      res = await fetch(`${base}/${method}`, {
        method: 'POST',
        headers: {
          'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json; charset=utf-8',
          authorization: `Bearer ${token}`,
        },
        body: form ? new URLSearchParams(form).toString() : JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
    } catch (err) {
      throw new SlackError(`Slack could not be reached (${(err as Error).name})`, 0);
    }
    const text = await res.text();
    let parsed: { ok?: boolean; error?: string } & Record<string, unknown> = {};
    try {
      parsed = text.length <= MAX_RESPONSE_BYTES ? (JSON.parse(text) as typeof parsed) : {};
    } catch {
      // Not Slack's JSON (a proxy's page): the status says enough.
    }
    if (res.status === 429) {
      const retryAfter = Number(res.headers.get('retry-after'));
      throw new SlackError('ratelimited', 429, Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : null);
    }
    if (res.ok && parsed.ok === true) return parsed as T;
    if (!res.ok) throw new SlackError(`HTTP ${res.status}`, res.status >= 500 ? res.status : 400);
    const error = typeof parsed.error === 'string' ? parsed.error.slice(0, 200) : 'unknown_error';
    if (error === 'ratelimited') throw new SlackError(error, 429, null);
    if (error === 'internal_error' || error === 'fatal_error' || error === 'service_unavailable') throw new SlackError(error, 503);
    throw new SlackError(error, TOKEN_ERRORS.has(error) ? 401 : 400);
  }
  return {
    async oauthAccess(app, code, redirectUri) {
      let res: Response;
      try {
        res = await fetch(`${base}/oauth.v2.access`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
          },
          body: new URLSearchParams({ code, redirect_uri: redirectUri }).toString(),
          redirect: 'error',
          signal: AbortSignal.timeout(opts.timeoutMs),
        });
      } catch (err) {
        throw new SlackError(`Slack could not be reached (${(err as Error).name})`, 0);
      }
      const text = await res.text();
      let parsed: Record<string, unknown> = {};
      try {
        parsed = text.length <= MAX_RESPONSE_BYTES ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        // Not Slack's JSON: the status says enough.
      }
      if (!res.ok) throw new SlackError(`HTTP ${res.status}`, res.status === 429 || res.status >= 500 ? res.status : 400);
      if (parsed.ok !== true) throw new SlackError(typeof parsed.error === 'string' ? parsed.error.slice(0, 200) : 'unknown_error', 400);
      const team = parsed.team as { name?: unknown } | undefined;
      return {
        botToken: typeof parsed.access_token === 'string' ? parsed.access_token : '',
        team: typeof team?.name === 'string' ? team.name.slice(0, 120) : '',
      };
    },
    async authTest(token) {
      const me = await call<{ user?: unknown; team?: unknown; team_id?: unknown }>(token, 'auth.test', {});
      return {
        botName: typeof me.user === 'string' ? me.user.slice(0, 64) : '',
        team: typeof me.team === 'string' ? me.team.slice(0, 120) : '',
        teamId: typeof me.team_id === 'string' && SLACK_TEAM_ID.test(me.team_id) ? me.team_id : '',
      };
    },
    async uninstall(app, token) {
      await call(token, 'apps.uninstall', {}, { client_id: app.clientId, client_secret: app.clientSecret });
    },
    async postMessage(token, channel, text, threadTs) {
      await call(token, 'chat.postMessage', {
        channel,
        text,
        ...(threadTs ? { thread_ts: threadTs } : {}),
        unfurl_links: false,
        unfurl_media: false,
      });
    },
  };
}
