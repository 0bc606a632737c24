// "Add to Slack" (docs/adr/0064-channels-for-operators.md): where the operator configured one Slack
// app (SLACK_CLIENT_ID here; its client secret and signing secret in chat), a member who may change
// the chatbot starts the install and is sent to Slack's authorize page; Slack sends the browser back
// to GET /api/channels/slack/oauth/callback with a code, and chat exchanges it (oauth.v2.access) and
// connects the bot token as a pasted one.
//
// The `state` is what makes the callback trustworthy. It is signed (HMAC-SHA256 under the gateway's
// SERVICE_SECRET over its nonce, chatbot and expiry), expires after 10 minutes, is single-use (the
// start's record is taken from Redis with GETDEL before anything else, a denial included), names the
// workspace, the member, their role and the chatbot the install was started for, and is bound to
// the browser that started it from the member's session: the start sets an HttpOnly, SameSite=Lax
// cookie whose hash the record keeps, and a callback without that cookie is refused. A state that
// fails any check is one refusal page ("invalid or expired"), telling nothing more.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { setCurrentRole } from '@parley/common/context.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { Redis } from '@parley/common/redis.ts';
import { withRedisDeadline } from '@parley/common/redis.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { notFound } from '@parley/common/rpc-errors.ts';
import { CHATBOT_NOT_FOUND } from '@parley/common/not-found.ts';
import { isUuid } from '@parley/common/ids.ts';
import type { Member } from '../../access/members.ts';
import type { Clients } from '../../http/clients.ts';
import { mapError } from '../../http/errors.ts';
import { escapeHtml, h1, page } from '../../http/html-page.ts';
import { webhookPath } from './channels.ts';

/** What the bot needs: answer in channels and threads, read its mentions and direct messages (ADR 57). */
export const SLACK_SCOPES = 'chat:write,app_mentions:read,im:history';
export const SLACK_INSTALL_COOKIE = 'parley_slack_install';
export const SLACK_CALLBACK_PATH = '/api/channels/slack/oauth/callback';
const STATE_TTL_SECONDS = 600;
const MAX_QUERY_FIELD = 400;

export const INSTALL_NOT_CONFIGURED = 'Add to Slack is not set up on this Parley.';
export const STATE_REFUSED = 'This Slack install link is invalid or has expired. Start again with Add to Slack.';
export const INSTALL_DENIED = 'The Slack install was cancelled: nothing was connected.';

interface InstallRecord {
  ownerId: string;
  userId: string;
  role: string;
  chatbotId: string;
  /** SHA-256 of the browser's cookie. */
  browser: string;
  clientIp: string;
}

export interface SlackInstallOptions {
  redis: Redis;
  prefix: string;
  publicUrl: string;
  /** The operator's Slack app; unset, the install is not offered. */
  clientId?: string;
  authorizeUrl: string;
  /** The gateway's SERVICE_SECRET: the state's signing key is derived from it. */
  secret: string;
  logger: Logger;
  now?: () => number;
}

const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');
const query = (req: Request, name: string) => {
  const v = req.query[name];
  return typeof v === 'string' ? v.slice(0, MAX_QUERY_FIELD) : '';
};

/** Signs and checks install states under a key derived from the gateway's secret (exported for its test). */
export function stateSigner(secret: string) {
  const key = createHmac('sha256', secret).update('parley slack install state').digest();
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');
  return {
    sign: (nonce: string, chatbotId: string, expiresAt: number) => {
      const payload = `${nonce}.${chatbotId}.${expiresAt}`;
      return `${payload}.${mac(payload)}`;
    },
    /** The nonce and chatbot of a state that is well-formed, signed by this gateway and not expired; null otherwise. */
    verify: (state: string, now: number): { nonce: string; chatbotId: string } | null => {
      const m = /^([A-Za-z0-9_-]{43})\.([0-9a-f-]{36})\.(\d{10,13})\.([A-Za-z0-9_-]{43})$/.exec(state);
      if (!m) return null;
      const expected = Buffer.from(mac(`${m[1]}.${m[2]}.${m[3]}`));
      const given = Buffer.from(m[4]);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
      if (Number(m[3]) <= now) return null;
      return { nonce: m[1], chatbotId: m[2] };
    },
  };
}

const readCookie = (req: Request, name: string): string => {
  for (const part of (req.header('cookie') ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=').slice(0, 100);
  }
  return '';
};

/** "Add to Slack" as the channels' operation rows use it (rest.ts): whether it is offered, its start, and Slack's redirect back. */
export interface SlackInstall {
  /** Whether the operator configured a Slack app. */
  offered: boolean;
  /** The member's start (they may change the chatbot): Slack's authorize URL; the browser's cookie set on `res`. */
  start(m: Member, chatbotId: string, res: Response): Promise<{ authorizeUrl: string }>;
  /** Slack's redirect back: a redirect to the chatbot's channels, or a result page. */
  callback(req: Request, res: Response): Promise<void>;
}

export function createSlackInstall(clients: Clients, opts: SlackInstallOptions): SlackInstall {
  const keys = redisKeys(opts.prefix);
  const signer = stateSigner(opts.secret);
  const now = opts.now ?? Date.now;
  const secure = opts.publicUrl.startsWith('https:');
  const base = opts.publicUrl.replace(/\/+$/, '');
  const redirectUri = `${base}${SLACK_CALLBACK_PATH}`;
  const cookie = (value: string, maxAge: number) =>
    `${SLACK_INSTALL_COOKIE}=${value}; Path=${SLACK_CALLBACK_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;

  return {
    offered: Boolean(opts.clientId),
    async start(m, chatbotId, res) {
      if (!opts.clientId) throw notFound(INSTALL_NOT_CONFIGURED);
      // NOT_FOUND for another workspace's chatbot, before anything is issued.
      if (!isUuid(chatbotId)) throw notFound(CHATBOT_NOT_FOUND);
      await clients.chatbot.getChatbot({ ownerId: m.ownerId, chatbotId });
      const nonce = randomBytes(32).toString('base64url');
      const browser = randomBytes(32).toString('base64url');
      const record: InstallRecord = {
        ownerId: m.ownerId,
        userId: m.user.id,
        role: m.role,
        chatbotId,
        browser: sha256(browser),
        clientIp: m.clientIp,
      };
      await withRedisDeadline(opts.redis.set(keys.slackInstallState(nonce), JSON.stringify(record), 'EX', STATE_TTL_SECONDS));
      const state = signer.sign(nonce, chatbotId, now() + STATE_TTL_SECONDS * 1000);
      res.setHeader('Set-Cookie', cookie(browser, STATE_TTL_SECONDS));
      const url = new URL(opts.authorizeUrl);
      url.search = new URLSearchParams({ client_id: opts.clientId, scope: SLACK_SCOPES, redirect_uri: redirectUri, state }).toString();
      return { authorizeUrl: url.toString() };
    },
    async callback(req, res) {
      const refused = (status: number, message: string) => resultPage(res, status, 'Slack was not connected', message);
      res.setHeader('Set-Cookie', cookie('', 0));
      const verified = signer.verify(query(req, 'state'), now());
      // Taken before anything else: a state is used once, whatever follows.
      const taken = verified ? await withRedisDeadline(opts.redis.getdel(keys.slackInstallState(verified.nonce))) : null;
      const record = taken ? (JSON.parse(taken) as InstallRecord) : null;
      const browser = readCookie(req, SLACK_INSTALL_COOKIE);
      if (!verified || !record || record.chatbotId !== verified.chatbotId || !browser || sha256(browser) !== record.browser)
        return refused(400, STATE_REFUSED);
      const back = `/chatbots/${encodeURIComponent(record.chatbotId)}#settings-channels`;
      if (query(req, 'error')) return resultPage(res, 200, 'Slack was not connected', INSTALL_DENIED, back);
      const code = query(req, 'code');
      if (!code) return refused(400, STATE_REFUSED);
      // The member's role when they started, checked by chatbot and chat as on any call of theirs.
      setCurrentRole(record.role);
      try {
        const { chatbot } = await clients.chatbot.getChatbot({ ownerId: record.ownerId, chatbotId: record.chatbotId });
        const { connection } = await clients.chat.connectSlackInstall({
          ownerId: record.ownerId,
          chatbotId: record.chatbotId,
          uniqueId: chatbot?.uniqueId ?? '',
          code,
          redirectUri,
          webhookBaseUrl: `${base}${webhookPath('slack')}`,
        });
        await clients.workspaces.recordAuditEvent({
          actor: { userId: record.userId, workspaceId: record.ownerId, clientIp: record.clientIp },
          action: 'chatbot.channel_connected',
          target: record.chatbotId,
          detailsJson: JSON.stringify({ channel: 'slack', lastFour: connection?.tokenLastFour ?? '', via: 'oauth' }),
        });
        res.redirect(303, `/chatbots/${encodeURIComponent(record.chatbotId)}?slack=connected#settings-channels`);
      } catch (err) {
        const { status, message } = mapError(err, opts.logger);
        resultPage(res, status, 'Slack was not connected', message, back);
      }
    },
  };
}

function resultPage(res: Response, status: number, title: string, message: string, back = '/chatbots') {
  page(
    res,
    status,
    title,
    `<h1 style="${h1}">${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="${escapeHtml(back)}">Back to the chatbot</a></p>`,
  );
}
