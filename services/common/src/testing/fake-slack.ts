// A local stand-in for Slack's Web API and Events API, for tests, benchmarks and the end-to-end
// suite: the methods Parley calls (auth.test, chat.postMessage) at POST /{method} with a Bearer token
// and a JSON body, answered as Slack does (`{ok: true, ...}`, `{ok: false, error}` with HTTP 200, or
// 429 with Retry-After), plus what Slack itself does with an app's Request URL: `deliver` signs an
// event with the app's signing secret (X-Slack-Signature, X-Slack-Request-Timestamp) and posts it,
// answering with the webhook's status and body. "Add to Slack" (docs/adr/0064-channels-for-operators.md):
// GET /oauth/v2/authorize stands for Slack's authorize page and sends the browser straight back to
// the redirect_uri with a code and the state (or `error=access_denied` when `installs` is 'deny'), and
// POST /oauth.v2.access exchanges a code once, under the app's client id and secret (HTTP Basic), for
// the app's bot token, as Slack does (invalid_code, bad_redirect_uri, invalid_client). POST
// /apps.uninstall (form-encoded client_id and client_secret, the bot token as Bearer) removes the app
// from the token's workspace and revokes the token, as Slack does (invalid_auth, invalid_client_id,
// bad_client_secret); `uninstalled` lists the workspaces, and a later install gives the token again. The fake's own endpoints (for a test in another
// process) live under /_fake/: POST /_fake/deliver {url, signingSecret, payload, retryNum?}, GET
// /_fake/sent and GET /_fake/uninstalled.
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake } from './serve.ts';

export interface FakeSlackBehaviour {
  /** Bot tokens Slack knows, each with its bot user's name; any other token is answered invalid_auth. */
  bots: Record<string, string>;
  /** The next N chat.postMessage calls are answered 429 with this Retry-After (seconds). */
  rateLimited: { times: number; retryAfter: number };
  /** The next N chat.postMessage calls are answered 503. */
  failures: number;
  /** The next N apps.uninstall calls are answered 503. */
  uninstallFailures: number;
  /** The Slack app the OAuth install is for, and the bot token an install gives (add it to `bots` too). */
  app: { clientId: string; clientSecret: string; botToken: string } | null;
  /** What the person on the authorize page does. */
  installs: 'allow' | 'deny';
  /** The workspace each bot token is for (auth.test, oauth.v2.access); any other token's is T0PARLEY, "Parley Test". */
  teams: Record<string, { id: string; name: string }>;
}

export interface SlackPost {
  token: string;
  channel: string;
  text: string;
  thread_ts?: string;
  [key: string]: unknown;
}

export interface FakeSlack {
  /** The Web API's root, for SLACK_API_BASE (the client adds /{method}). */
  url: string;
  /** Every chat.postMessage that was accepted, oldest first. */
  sent: SlackPost[];
  /** Every call, accepted or not: method and token. */
  calls: { method: string; token: string }[];
  /** The workspaces (team ids) the app was uninstalled from with apps.uninstall, oldest first. */
  uninstalled: string[];
  /** Every authorize page visit's query (client_id, scope, redirect_uri, state). */
  authorizations: Record<string, string>[];
  set(patch: Partial<FakeSlackBehaviour>): void;
  /** Resolves once `count` messages were sent in all, without polling. */
  sentCount(count: number): Promise<void>;
  /** Signs and posts the payload to the Request URL as Slack would; resolves to the webhook's status and body. */
  deliver(url: string, signingSecret: string, payload: unknown, opts?: { retryNum?: number }): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

let eventSeq = 1000;

/** Slack's X-Slack-Signature of a request: `v0=` and the hex HMAC-SHA256 of `v0:{timestamp}:{body}`. */
export const signSlack = (signingSecret: string, timestamp: string, body: string) =>
  `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;

/** An event_callback as Slack posts it: a direct message (`im`) or a mention, in a thread when `threadTs` is given. */
export function slackEvent(opts: {
  channel: string;
  text: string;
  type?: 'im' | 'mention';
  user?: string;
  ts?: string;
  threadTs?: string;
  eventId?: string;
  botUserId?: string;
  /** The workspace the event is from; T0PARLEY when not given. */
  teamId?: string;
  extra?: Record<string, unknown>;
}) {
  const seq = ++eventSeq;
  const ts = opts.ts ?? `${Math.floor(Date.now() / 1000)}.${String(seq).padStart(6, '0')}`;
  const mention = opts.type === 'mention';
  return {
    token: 'deprecated-verification-token',
    team_id: opts.teamId ?? 'T0PARLEY',
    api_app_id: 'A0PARLEY',
    type: 'event_callback',
    event_id: opts.eventId ?? `Ev${seq}PARLEY`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: opts.teamId ?? 'T0PARLEY', user_id: opts.botUserId ?? 'U0BOT', is_bot: true }],
    event: {
      type: mention ? 'app_mention' : 'message',
      ...(mention ? {} : { channel_type: 'im' }),
      channel: opts.channel,
      user: opts.user ?? 'U0ADA',
      text: mention ? `<@${opts.botUserId ?? 'U0BOT'}> ${opts.text}` : opts.text,
      ts,
      ...(opts.threadTs ? { thread_ts: opts.threadTs } : {}),
      ...opts.extra,
    },
  };
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const reply = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
};

export async function startFakeSlack(opts: Partial<FakeSlackBehaviour> & { port?: number; host?: string } = {}): Promise<FakeSlack> {
  const { port = 0, host = '127.0.0.1', ...initial } = opts;
  const behaviour: FakeSlackBehaviour = {
    bots: {},
    rateLimited: { times: 0, retryAfter: 1 },
    failures: 0,
    uninstallFailures: 0,
    app: null,
    installs: 'allow',
    teams: {},
    ...initial,
  };
  const teamOf = (token: string) => behaviour.teams[token] ?? { id: 'T0PARLEY', name: 'Parley Test' };
  const authorizations: Record<string, string>[] = [];
  const codes = new Map<string, { redirectUri: string; clientId: string }>();
  let codeSeq = 1;
  const sent: SlackPost[] = [];
  const uninstalled: string[] = [];
  /** The bot users of the tokens apps.uninstall revoked, given back by the next install of the app. */
  const revoked = new Map<string, string>();
  const calls: { method: string; token: string }[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  let tsSeq = 1;
  const onSent = () => {
    for (let i = waiting.length - 1; i >= 0; i--) {
      if (sent.length >= waiting[i].count) waiting.splice(i, 1)[0].resolve();
    }
  };

  const deliver: FakeSlack['deliver'] = async (url, signingSecret, payload, o = {}) => {
    const body = JSON.stringify(payload);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': signSlack(signingSecret, timestamp, body),
        ...(o.retryNum ? { 'x-slack-retry-num': String(o.retryNum), 'x-slack-retry-reason': 'http_timeout' } : {}),
      },
      body,
    });
    return { status: res.status, body: await res.text() };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/_fake/sent' && req.method === 'GET') return reply(res, 200, sent);
    if (path === '/_fake/uninstalled' && req.method === 'GET') return reply(res, 200, uninstalled);
    if (path === '/_fake/deliver' && req.method === 'POST') {
      const d = JSON.parse(await readBody(req)) as { url: string; signingSecret: string; payload: unknown; retryNum?: number };
      return reply(res, 200, await deliver(d.url, d.signingSecret, d.payload, { retryNum: d.retryNum }));
    }
    if (path === '/oauth/v2/authorize' && req.method === 'GET') {
      const q = Object.fromEntries(new URL(req.url ?? '/', 'http://localhost').searchParams);
      authorizations.push(q);
      if (!behaviour.app || q.client_id !== behaviour.app.clientId || !q.redirect_uri)
        return reply(res, 400, { ok: false, error: 'invalid_client_id' });
      const back = new URL(q.redirect_uri);
      if (behaviour.installs === 'deny') back.searchParams.set('error', 'access_denied');
      else {
        const code = `${Date.now()}.${codeSeq++}.fakecode${randomBytes(8).toString('hex')}`;
        codes.set(code, { redirectUri: q.redirect_uri, clientId: q.client_id });
        back.searchParams.set('code', code);
      }
      if (q.state) back.searchParams.set('state', q.state);
      res.writeHead(302, { location: back.toString() });
      res.end();
      return;
    }
    if (path === '/oauth.v2.access' && req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      const [id, secret] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
        .toString('utf8')
        .split(':');
      calls.push({ method: 'oauth.v2.access', token: '' });
      const app = behaviour.app;
      if (!app || id !== app.clientId || secret !== app.clientSecret) return reply(res, 200, { ok: false, error: 'invalid_client' });
      const issued = codes.get(form.get('code') ?? '');
      if (!issued) return reply(res, 200, { ok: false, error: 'invalid_code' });
      codes.delete(form.get('code') ?? '');
      if (issued.redirectUri !== form.get('redirect_uri')) return reply(res, 200, { ok: false, error: 'bad_redirect_uri' });
      const reinstalled = revoked.get(app.botToken);
      if (reinstalled && !behaviour.bots[app.botToken]) behaviour.bots = { ...behaviour.bots, [app.botToken]: reinstalled };
      return reply(res, 200, {
        ok: true,
        access_token: app.botToken,
        token_type: 'bot',
        scope: 'chat:write,app_mentions:read,im:history',
        bot_user_id: 'U0BOT',
        app_id: 'A0PARLEY',
        team: teamOf(app.botToken),
      });
    }
    const match = /^\/([a-z]+\.[A-Za-z]+)$/.exec(path);
    if (!match || req.method !== 'POST') return reply(res, 404, { ok: false, error: 'unknown_method' });
    const method = match[1];
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    calls.push({ method, token });
    if (method === 'apps.uninstall') return uninstall(res, token, new URLSearchParams(await readBody(req)));
    const raw = await readBody(req);
    let body: Record<string, unknown>;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return reply(res, 200, { ok: false, error: 'invalid_json' });
    }
    const user = behaviour.bots[token];
    if (!user) return reply(res, 200, { ok: false, error: 'invalid_auth' });
    switch (method) {
      case 'auth.test':
        return reply(res, 200, {
          ok: true,
          url: 'https://parley-test.slack.com/',
          team: teamOf(token).name,
          user,
          team_id: teamOf(token).id,
          user_id: 'U0BOT',
          bot_id: 'B0BOT',
        });
      case 'chat.postMessage': {
        if (behaviour.rateLimited.times > 0) {
          behaviour.rateLimited = { ...behaviour.rateLimited, times: behaviour.rateLimited.times - 1 };
          return reply(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(behaviour.rateLimited.retryAfter) });
        }
        if (behaviour.failures > 0) {
          behaviour.failures--;
          return reply(res, 503, { ok: false, error: 'service_unavailable' });
        }
        const text = typeof body.text === 'string' ? body.text : '';
        const channel = typeof body.channel === 'string' ? body.channel : '';
        if (!channel) return reply(res, 200, { ok: false, error: 'channel_not_found' });
        if (!text) return reply(res, 200, { ok: false, error: 'no_text' });
        if (text.length > 40_000) return reply(res, 200, { ok: false, error: 'msg_too_long' });
        sent.push({ ...body, token, channel, text });
        onSent();
        return reply(res, 200, { ok: true, channel, ts: `${Math.floor(Date.now() / 1000)}.${String(tsSeq++).padStart(6, '0')}` });
      }
      default:
        return reply(res, 200, { ok: false, error: 'unknown_method' });
    }
  };

  /** apps.uninstall: the app's client id and secret checked, then the token's workspace uninstalled and the token revoked. */
  const uninstall = (res: ServerResponse, token: string, form: URLSearchParams) => {
    if (behaviour.uninstallFailures > 0) {
      behaviour.uninstallFailures--;
      return reply(res, 503, { ok: false, error: 'service_unavailable' });
    }
    if (!behaviour.bots[token]) return reply(res, 200, { ok: false, error: 'invalid_auth' });
    const app = behaviour.app;
    if (!app || form.get('client_id') !== app.clientId) return reply(res, 200, { ok: false, error: 'invalid_client_id' });
    if (form.get('client_secret') !== app.clientSecret) return reply(res, 200, { ok: false, error: 'bad_client_secret' });
    uninstalled.push(teamOf(token).id);
    revoked.set(token, behaviour.bots[token]);
    behaviour.bots = Object.fromEntries(Object.entries(behaviour.bots).filter(([t]) => t !== token));
    return reply(res, 200, { ok: true });
  };

  const server = await serveFake(
    'Slack',
    handle,
    (res, message) => reply(res, 500, { ok: false, error: `fatal_error: ${message}` }),
    host,
    port,
  );
  return {
    url: server.origin,
    sent,
    calls,
    uninstalled,
    authorizations,
    set(patch) {
      Object.assign(behaviour, patch);
    },
    deliver,
    sentCount: (count) => (sent.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ count, resolve }))),
    close: server.close,
  };
}
