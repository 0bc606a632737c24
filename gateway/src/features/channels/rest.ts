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
// (hub.verify_token checked, hub.challenge echoed), POSTs signed. Email's and SMS's are checked by chat.
//
// This file is the webhooks' operation table (http/operations.ts): every row public, and each POST
// reads its own body (`readsOwnBody`): the gate reads none, so the bytes a signature is over reach the
// handler as the provider sent them, bounded by the handler's raw reader. Each POST is a provider's
// (`provider`): registered ahead of the layers a browser's answer needs (http/api.ts's providerRouter),
// and acknowledged with bytes made once.
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import { META_CHANNELS } from '@parley/common/channel-webhook-meta.ts';
import { HttpError } from '../../http/errors.ts';
import { operation, readBodyWith, readWith, type Operation } from '../../http/operations.ts';
import { INSTALL_NOT_CONFIGURED, SLACK_CALLBACK_PATH } from './slack-install.ts';
import { SLACK_APP_NOT_CONFIGURED } from './channel-intake.ts';

/** The operator's Slack app's one Event Subscriptions Request URL, under PUBLIC_URL. */
export const SLACK_APP_EVENTS_PATH = '/api/channels/slack/events';

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

/** SMS through Twilio (docs/adr/0070-sms-channel.md): a message's parameters are a few kilobytes. */
export const SMS_WEBHOOK_BODY_LIMIT = '64kb';
export const TWILIO_SIGNATURE_HEADER = 'x-twilio-signature';
/** X-Twilio-Signature is 28 base64 characters; a longer one is cut here past them, and so refused. */
const MAX_TWILIO_SIGNATURE_CHARS = 40;
export const SMS_FORM_INVALID = 'The body must be a form (application/x-www-form-urlencoded), as Twilio sends it.';

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

/** Each limit's raw reader, made once. */
const rawReaders = new Map<string, express.RequestHandler>();

/** The body's bytes as sent (413 past the limit); "" for none. */
async function rawBody(req: Request, res: Response, limit: string): Promise<Buffer> {
  let reader = rawReaders.get(limit);
  if (!reader) rawReaders.set(limit, (reader = express.raw({ type: () => true, limit })));
  await readBodyWith(reader, req, res);
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

const JSON_ONLY = 'The body must be JSON (application/json).';

/** A JSON webhook's bytes: 415 for another content type, before any is read. */
async function jsonWebhookBody(req: Request, res: Response): Promise<Buffer> {
  if (!req.is('application/json')) throw new HttpError(415, JSON_ONLY);
  return rawBody(req, res, WEBHOOK_BODY_LIMIT);
}

/**
 * An acknowledgement's bytes, made once and written as they are: a provider reads nothing of the
 * answer but its status, so nothing is serialised, hashed into an ETag or looked up per call.
 */
function fixedAnswer(type: string, body: string): (res: Response) => undefined {
  const bytes = Buffer.from(body);
  const headers = { 'content-type': type, 'content-length': String(bytes.length) };
  return (res) => {
    res.writeHead(200, headers).end(bytes);
    return undefined;
  };
}
const answerOk = fixedAnswer('application/json; charset=utf-8', JSON.stringify({ ok: true }));
/** Twilio reads an empty TwiML answer as "send nothing". */
const answerTwiml = fixedAnswer('text/xml; charset=utf-8', '<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
/** Meta wants a 200 quickly, and nothing in it. */
const answerMeta = fixedAnswer('text/plain; charset=utf-8', 'OK');

const who = 'public';
const base = '/api/channels';

/** A handshake parameter as Meta sends it, cut past what any of them may be; "" when absent or repeated. */
const handshakeParam = (raw: unknown): string => (typeof raw === 'string' ? raw.slice(0, MAX_SECRET_CHARS + 1) : '');

const handshakeQuery = z.object({
  'hub.challenge': readWith((raw) => {
    const challenge = handshakeParam(raw);
    if (!/^[A-Za-z0-9_-]{1,256}$/.test(challenge)) throw invalid('hub.challenge is missing or malformed.');
    return challenge;
  }),
  'hub.mode': readWith(handshakeParam),
  'hub.verify_token': readWith(handshakeParam),
});

/**
 * With `intake` in the app's deps, Telegram's, Slack's and Meta's calls are checked and queued by the
 * gateway itself (channel-intake.ts, ADR 64, ADR 69); without it, by chat's ReceiveChannelUpdate and
 * VerifyChannelWebhook.
 */
export const channelWebhookOperations: Operation[] = [
  operation(
    { method: 'POST', path: `${base}/telegram/:connectionId`, who, readsOwnBody: true, provider: true },
    async ({ req, res, app: { clients, intake }, params }) => {
      const body = await jsonWebhookBody(req, res);
      if (body.length === 0) throw invalid('The body is not a Telegram update.');
      const update = {
        connectionId: String(params.connectionId),
        secret: (req.header(TELEGRAM_SECRET_HEADER) ?? '').slice(0, MAX_SECRET_CHARS + 1),
        body,
      };
      if (intake) await intake.telegram(update);
      else await clients.chat.receiveChannelUpdate({ channel: 'telegram', ...update });
      return answerOk(res);
    },
  ),
  // Slack's Events API (docs/adr/0057-slack-channel.md): signed with the app's signing secret over the
  // timestamp and the raw body; a url_verification is answered with its challenge. A retry
  // (X-Slack-Retry-Num) is verified and queued like the first delivery: its event_id queues it once.
  operation(
    { method: 'POST', path: `${base}/slack/:connectionId`, who, readsOwnBody: true, provider: true },
    async ({ req, res, app: { clients, intake }, params }) => {
      const body = await jsonWebhookBody(req, res);
      if (body.length === 0) throw invalid('The body is not a Slack event.');
      const call = {
        connectionId: String(params.connectionId),
        signature: (req.header(SLACK_SIGNATURE_HEADER) ?? '').slice(0, MAX_SLACK_SIGNATURE_CHARS + 1),
        timestamp: (req.header(SLACK_TIMESTAMP_HEADER) ?? '').slice(0, 20),
        body,
      };
      const { challenge } = intake
        ? await intake.slack(call)
        : await clients.chat.receiveChannelUpdate({ channel: 'slack', ...call, secret: call.signature });
      return challenge ? { challenge } : answerOk(res);
    },
  ),
  // The operator's Slack app's one Request URL ("Add to Slack", docs/adr/0075-one-request-url-for-the-operators-slack-app.md):
  // the same body and headers, checked under the app's signing secret and routed by the event's
  // workspace to the connection installed there. `events` is never a connection id (those are UUIDs).
  operation(
    { method: 'POST', path: SLACK_APP_EVENTS_PATH, who, readsOwnBody: true, provider: true },
    async ({ req, res, app: { intake } }) => {
      const body = await jsonWebhookBody(req, res);
      if (body.length === 0) throw invalid('The body is not a Slack event.');
      if (!intake) throw notFound(SLACK_APP_NOT_CONFIGURED);
      const { challenge } = await intake.slackApp({
        signature: (req.header(SLACK_SIGNATURE_HEADER) ?? '').slice(0, MAX_SLACK_SIGNATURE_CHARS + 1),
        timestamp: (req.header(SLACK_TIMESTAMP_HEADER) ?? '').slice(0, 20),
        body,
      });
      return challenge ? { challenge } : answerOk(res);
    },
  ),
  // Email through Mailgun's inbound routes (docs/adr/0063-email-channel.md): a form whose `signature`
  // is the HMAC of its `timestamp` and `token` under the webhook signing key, all checked by chat
  // (401 missing, 403 wrong, old or replayed: nothing queued). A mail taken but never answered (an
  // auto-reply, a bounce, a loop) is 200 like any other, so Mailgun does not retry it.
  operation(
    { method: 'POST', path: `${base}/email/:connectionId`, who, readsOwnBody: true, provider: true },
    async ({ req, res, app: { clients }, params }) => {
      if (!req.is(['multipart/form-data', 'application/x-www-form-urlencoded'])) throw new HttpError(415, EMAIL_FORM_INVALID);
      const body = await rawBody(req, res, EMAIL_WEBHOOK_BODY_LIMIT);
      if (body.length === 0) throw invalid(EMAIL_FORM_INVALID);
      const fields = await mailgunFields(body, req.header('content-type') ?? '');
      await clients.chat.receiveChannelUpdate({
        channel: 'email',
        connectionId: String(params.connectionId),
        secret: (fields.signature ?? '').slice(0, MAX_MAILGUN_SIGNATURE_CHARS),
        timestamp: (fields.timestamp ?? '').slice(0, 20),
        body: Buffer.from(JSON.stringify(fields)),
      });
      return answerOk(res);
    },
  ),
  // SMS through Twilio (docs/adr/0070-sms-channel.md): a form signed X-Twilio-Signature over the exact
  // URL Twilio called (PUBLIC_URL, this path and its query) and the sorted parameters, checked by chat
  // under the connection's Auth Token (401 missing, 403 wrong: nothing queued). The same path takes
  // the status callbacks of the messages Parley sent (each message's StatusCallback). Twilio reads an
  // empty TwiML answer as "send nothing": the answer goes out through the Messages API later.
  operation(
    { method: 'POST', path: `${base}/sms/:connectionId`, who, readsOwnBody: true, provider: true },
    async ({ req, res, app: { clients, publicUrl }, params }) => {
      if (!req.is('application/x-www-form-urlencoded')) throw new HttpError(415, SMS_FORM_INVALID);
      const body = await rawBody(req, res, SMS_WEBHOOK_BODY_LIMIT);
      const url = `${publicUrl.replace(/\/+$/, '')}${req.originalUrl}`;
      await clients.chat.receiveChannelUpdate({
        channel: 'sms',
        connectionId: String(params.connectionId),
        secret: (req.header(TWILIO_SIGNATURE_HEADER) ?? '').slice(0, MAX_TWILIO_SIGNATURE_CHARS),
        body: Buffer.from(JSON.stringify({ url, params: [...new URLSearchParams(body.toString('utf8'))] })),
      });
      return answerTwiml(res);
    },
  ),
  // WhatsApp, Messenger and Instagram (docs/adr/0056-meta-channels.md): one path each, a GET handshake and signed POSTs.
  ...META_CHANNELS.flatMap((channel) => [
    // Meta's handshake: the verify token checked, then hub.challenge echoed as plain text.
    operation(
      { method: 'GET', path: `${base}/${channel}/:connectionId`, who, query: handshakeQuery },
      async ({ res, app: { clients, intake }, params, query }) => {
        const call = {
          channel,
          connectionId: String(params.connectionId),
          mode: query['hub.mode'],
          verifyToken: query['hub.verify_token'],
        };
        if (intake) await intake.metaHandshake(call);
        else await clients.chat.verifyChannelWebhook(call);
        res.type('text/plain').send(query['hub.challenge']);
        return undefined;
      },
    ),
    operation(
      { method: 'POST', path: `${base}/${channel}/:connectionId`, who, readsOwnBody: true, provider: true },
      async ({ req, res, app: { clients, intake }, params }) => {
        const body = await jsonWebhookBody(req, res);
        if (body.length === 0) throw invalid('The body is not a Meta webhook event.');
        const call = {
          channel,
          connectionId: String(params.connectionId),
          signature: (req.header(META_SIGNATURE_HEADER) ?? '').slice(0, MAX_SIGNATURE_CHARS),
          body,
        };
        if (intake) await intake.meta(call);
        else await clients.chat.receiveChannelUpdate({ ...call, secret: call.signature });
        // The answer goes out through the Graph API later.
        return answerMeta(res);
      },
    ),
  ]),
];

/**
 * "Add to Slack" (slack-install.ts, ADR 64): whether it is offered and its start, by a member who
 * may change the chatbot, and Slack's redirect back, which its signed single-use state and the
 * starting browser's cookie authenticate (public: no session reaches it from Slack).
 */
export const slackInstallOperations: Operation[] = [
  operation(
    { method: 'GET', path: '/api/chatbot/:chatbotId/channels/slack/install', who: 'session', permission: 'workspace:read' },
    async ({ app: { slackInstall } }) => ({ available: Boolean(slackInstall?.offered) }),
  ),
  operation(
    { method: 'POST', path: '/api/chatbot/:chatbotId/channels/slack/install', who: 'session', permission: 'chatbots:write' },
    async ({ res, app: { slackInstall }, member, params }) => {
      if (!slackInstall) throw notFound(INSTALL_NOT_CONFIGURED);
      return slackInstall.start(member, String(params.chatbotId), res);
    },
  ),
  operation({ method: 'GET', path: SLACK_CALLBACK_PATH, who }, async ({ req, res, app: { slackInstall } }) => {
    if (!slackInstall) throw notFound(INSTALL_NOT_CONFIGURED);
    await slackInstall.callback(req, res);
    return undefined;
  }),
];
