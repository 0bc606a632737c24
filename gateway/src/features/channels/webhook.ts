// The messaging channels' public webhook (docs/adr/0044-messaging-channels.md): one path per channel
// type, `POST /api/channels/telegram/{connectionId}`, which the provider calls with the connection's
// secret in its header (X-Telegram-Bot-Api-Secret-Token). The body is read raw (the check is over
// the bytes sent), bounded (413 past WEBHOOK_BODY_LIMIT) and must be JSON (415 otherwise); the secret
// is verified in constant time (401 missing, 403 wrong: nothing is queued, and no answer names the
// expected value), the update read (400 when it is none) and its message queued, by the gateway
// itself (channel-intake.ts, docs/adr/0064-channels-for-operators.md,
// docs/adr/0069-slack-and-meta-checked-at-the-edge.md). The answer is Telegram's "ok" once queued:
// the bot's answer goes out through the Bot API later. Slack's Events API and WhatsApp, Messenger
// and Instagram (docs/adr/0056-meta-channels.md) follow the same shape at
// `/api/channels/{slack|whatsapp|messenger|instagram}/{connectionId}`: Meta's GET for its handshake
// (hub.verify_token checked, hub.challenge echoed), POSTs signed. Email's is checked by chat.
import express, { Router } from 'express';
import type { Clients } from '../../http/clients.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { META_CHANNELS } from '@parley/common/channel-webhook-meta.ts';
import { HttpError } from '../../http/errors.ts';
import type { ChannelIntake } from './channel-intake.ts';

/** Telegram's updates are a few kilobytes; a body past this is refused 413 before chat sees it. */
export const WEBHOOK_BODY_LIMIT = '256kb';
export const TELEGRAM_SECRET_HEADER = 'x-telegram-bot-api-secret-token';
/** Telegram's secret_token is at most 256 characters: a longer header is not read further. */
const MAX_SECRET_CHARS = 256;
export const META_SIGNATURE_HEADER = 'x-hub-signature-256';
/** `sha256=` and 64 hex digits; a longer header is cut (and so refused) here. */
const MAX_SIGNATURE_CHARS = 80;

export const SLACK_SIGNATURE_HEADER = 'x-slack-signature';
export const SLACK_TIMESTAMP_HEADER = 'x-slack-request-timestamp';
/** `v0=` and 64 hex digits; a longer header is not read further. */
const MAX_SLACK_SIGNATURE_CHARS = 70;

/** Email (docs/adr/0063-email-channel.md): a forwarded mail with its text parts; past this, 413 (Mailgun then retries, and drops it). */
export const EMAIL_WEBHOOK_BODY_LIMIT = '2mb';
/** The form fields of Mailgun's inbound POST that chat reads (attachments and the rest are left here). */
export const MAILGUN_FIELDS = [
  'timestamp',
  'token',
  'signature',
  'sender',
  'recipient',
  'subject',
  'body-plain',
  'stripped-text',
  'Message-Id',
  'In-Reply-To',
  'References',
  'message-headers',
] as const;
/** One field's characters passed on (a mail's text past it is cut; chat bounds each field further). */
const MAX_EMAIL_FIELD_CHARS = 256 * 1024;
/** Mailgun's signature is 64 hex digits; a longer one is cut here past them, and so refused. */
const MAX_MAILGUN_SIGNATURE_CHARS = 70;
export const EMAIL_FORM_INVALID = 'The body must be a form (multipart/form-data or application/x-www-form-urlencoded).';

/** The form's fields Parley reads, from Mailgun's multipart or urlencoded body; a body that is no form is 400. */
async function mailgunFields(body: Buffer, contentType: string): Promise<Record<string, string>> {
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw invalid(EMAIL_FORM_INVALID);
  }
  const fields: Record<string, string> = {};
  for (const name of MAILGUN_FIELDS) {
    const value = form.get(name);
    if (typeof value === 'string') fields[name] = value.slice(0, MAX_EMAIL_FIELD_CHARS);
  }
  return fields;
}

/**
 * Mounted under /api/channels, before the JSON parser. With `intake`, Telegram's, Slack's and Meta's
 * calls are checked and queued by the gateway itself (channel-intake.ts, ADR 69); without it, by
 * chat's ReceiveChannelUpdate and VerifyChannelWebhook.
 */
export function channelWebhookRoutes(clients: Clients, opts: { intake?: ChannelIntake } = {}): Router {
  const router = Router();
  router.post(
    '/telegram/:connectionId',
    (req, _res, next) => next(req.is('application/json') ? undefined : new HttpError(415, 'The body must be JSON (application/json).')),
    express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }),
    async (req, res) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (body.length === 0) throw invalid('The body is not a Telegram update.');
      const update = {
        connectionId: String(req.params.connectionId),
        secret: (req.header(TELEGRAM_SECRET_HEADER) ?? '').slice(0, MAX_SECRET_CHARS + 1),
        body,
      };
      if (opts.intake) await opts.intake.telegram(update);
      else await clients.chat.receiveChannelUpdate({ channel: 'telegram', ...update });
      res.json({ ok: true });
    },
  );
  // Slack's Events API (docs/adr/0057-slack-channel.md): signed with the app's signing secret over the
  // timestamp and the raw body; a url_verification is answered with its challenge. A retry
  // (X-Slack-Retry-Num) is verified and queued like the first delivery: its event_id queues it once.
  router.post(
    '/slack/:connectionId',
    (req, _res, next) => next(req.is('application/json') ? undefined : new HttpError(415, 'The body must be JSON (application/json).')),
    express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }),
    async (req, res) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (body.length === 0) throw invalid('The body is not a Slack event.');
      const call = {
        connectionId: String(req.params.connectionId),
        signature: (req.header(SLACK_SIGNATURE_HEADER) ?? '').slice(0, MAX_SLACK_SIGNATURE_CHARS + 1),
        timestamp: (req.header(SLACK_TIMESTAMP_HEADER) ?? '').slice(0, 20),
        body,
      };
      const { challenge } = opts.intake
        ? await opts.intake.slack(call)
        : await clients.chat.receiveChannelUpdate({ channel: 'slack', ...call, secret: call.signature });
      if (challenge) res.json({ challenge });
      else res.json({ ok: true });
    },
  );
  // Email through Mailgun's inbound routes (docs/adr/0063-email-channel.md): a form whose `signature`
  // is the HMAC of its `timestamp` and `token` under the webhook signing key, all checked by chat
  // (401 missing, 403 wrong, old or replayed: nothing queued). A mail taken but never answered (an
  // auto-reply, a bounce, a loop) is 200 like any other, so Mailgun does not retry it.
  router.post(
    '/email/:connectionId',
    (req, _res, next) =>
      next(req.is(['multipart/form-data', 'application/x-www-form-urlencoded']) ? undefined : new HttpError(415, EMAIL_FORM_INVALID)),
    express.raw({ type: () => true, limit: EMAIL_WEBHOOK_BODY_LIMIT }),
    async (req, res) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (body.length === 0) throw invalid(EMAIL_FORM_INVALID);
      const fields = await mailgunFields(body, req.header('content-type') ?? '');
      await clients.chat.receiveChannelUpdate({
        channel: 'email',
        connectionId: String(req.params.connectionId),
        secret: (fields.signature ?? '').slice(0, MAX_MAILGUN_SIGNATURE_CHARS),
        timestamp: (fields.timestamp ?? '').slice(0, 20),
        body: Buffer.from(JSON.stringify(fields)),
      });
      res.json({ ok: true });
    },
  );
  // WhatsApp, Messenger and Instagram (docs/adr/0056-meta-channels.md): one path each, a GET handshake and signed POSTs.
  for (const channel of META_CHANNELS) {
    // Meta's handshake: the verify token checked, then hub.challenge echoed as plain text.
    router.get(`/${channel}/:connectionId`, async (req, res) => {
      const param = (name: string) =>
        typeof req.query[name] === 'string' ? (req.query[name] as string).slice(0, MAX_SECRET_CHARS + 1) : '';
      const challenge = param('hub.challenge');
      if (!/^[A-Za-z0-9_-]{1,256}$/.test(challenge)) throw invalid('hub.challenge is missing or malformed.');
      const call = {
        channel,
        connectionId: String(req.params.connectionId),
        mode: param('hub.mode'),
        verifyToken: param('hub.verify_token'),
      };
      if (opts.intake) await opts.intake.metaHandshake(call);
      else await clients.chat.verifyChannelWebhook(call);
      res.type('text/plain').send(challenge);
    });
    router.post(
      `/${channel}/:connectionId`,
      (req, _res, next) => next(req.is('application/json') ? undefined : new HttpError(415, 'The body must be JSON (application/json).')),
      express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }),
      async (req, res) => {
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        if (body.length === 0) throw invalid('The body is not a Meta webhook event.');
        const call = {
          channel,
          connectionId: String(req.params.connectionId),
          signature: (req.header(META_SIGNATURE_HEADER) ?? '').slice(0, MAX_SIGNATURE_CHARS),
          body,
        };
        if (opts.intake) await opts.intake.meta(call);
        else await clients.chat.receiveChannelUpdate({ ...call, secret: call.signature });
        // Meta wants a 200 quickly; the answer goes out through the Graph API later.
        res.sendStatus(200);
      },
    );
  }
  return router;
}
