// A local stand-in for Mailgun's inbound routes, for tests and the end-to-end suite: what Mailgun does
// with a mail to a route's address, posting it to the route's forward URL as a form (multipart/form-data
// by default, or application/x-www-form-urlencoded) with `timestamp`, `token` and `signature` (the hex
// HMAC-SHA256 of timestamp + token under the webhook signing key), and the parsed mail's fields:
// sender, recipient, subject, body-plain, stripped-text, Message-Id, In-Reply-To, References and
// message-headers (a JSON list of [name, value]). `inboundMail` builds the fields; `signMailgun`
// signs; `postInbound` posts and answers the webhook's status and body. `startFakeMailgun` runs both
// sides in one process for the end-to-end suite: the inbound route (/_fake/deliver) and an SMTP
// server catching what Parley sends (/_fake/sent).
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake } from './serve.ts';
import { startSmtpCatcher, type SmtpCatcher } from './smtp-catcher.ts';

export interface InboundMailOptions {
  from: string;
  to: string;
  subject?: string;
  text: string;
  /** Mailgun's stripped-text (the reply without its quote); absent: not sent. */
  strippedText?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  /** Extra headers, as [name, value]. */
  headers?: [string, string][];
  fromName?: string;
}

let seq = 0;

/** Mailgun's signature of a webhook call. */
export const signMailgun = (signingKey: string, timestamp: string, token: string) =>
  createHmac('sha256', signingKey).update(timestamp).update(token).digest('hex');

/** A fresh Message-ID in the contact's domain. */
export const contactMessageId = (from: string) =>
  `<m${Date.now().toString(36)}.${++seq}.${randomBytes(4).toString('hex')}@${from.split('@')[1] ?? 'example.com'}>`;

/** The mail's fields as Mailgun's route forwards them (unsigned). */
export function inboundMail(o: InboundMailOptions): Record<string, string> {
  const messageId = o.messageId ?? contactMessageId(o.from);
  const subject = o.subject ?? 'A question';
  const from = o.fromName ? `${o.fromName} <${o.from}>` : o.from;
  const headers: [string, string][] = [
    ['Received', 'from mail.example.com by mxa.mailgun.org'],
    ['From', from],
    ['To', o.to],
    ['Subject', subject],
    ['Message-Id', messageId],
    ...(o.inReplyTo ? ([['In-Reply-To', o.inReplyTo]] as [string, string][]) : []),
    ...(o.references?.length ? ([['References', o.references.join(' ')]] as [string, string][]) : []),
    ['Content-Type', 'text/plain; charset="utf-8"'],
    ...(o.headers ?? []),
  ];
  return {
    sender: o.from,
    recipient: o.to,
    from,
    subject,
    'body-plain': o.text,
    ...(o.strippedText !== undefined ? { 'stripped-text': o.strippedText } : {}),
    'Message-Id': messageId,
    ...(o.inReplyTo ? { 'In-Reply-To': o.inReplyTo } : {}),
    ...(o.references?.length ? { References: o.references.join(' ') } : {}),
    'message-headers': JSON.stringify(headers),
  };
}

/** The fields signed now (or at `timestamp`) under the key, with a fresh token unless one is given. */
export function signedInbound(
  signingKey: string,
  fields: Record<string, string>,
  o: { timestamp?: string; token?: string } = {},
): Record<string, string> {
  const timestamp = o.timestamp ?? String(Math.floor(Date.now() / 1000));
  const token = o.token ?? randomBytes(25).toString('hex');
  return { ...fields, timestamp, token, signature: signMailgun(signingKey, timestamp, token) };
}

/** Posts the form to the webhook URL as Mailgun's route does; resolves to the answer's status and body. */
export async function postInbound(
  url: string,
  form: Record<string, string>,
  o: { encoding?: 'multipart' | 'urlencoded' } = {},
): Promise<{ status: number; body: string }> {
  let body: FormData | URLSearchParams;
  if (o.encoding === 'urlencoded') body = new URLSearchParams(form);
  else {
    body = new FormData();
    for (const [k, v] of Object.entries(form)) body.append(k, v);
  }
  const res = await fetch(url, { method: 'POST', body, redirect: 'error' });
  return { status: res.status, body: await res.text() };
}

export interface FakeMailgun {
  /** The fake's own endpoints (for a test in another process): POST /_fake/deliver, GET /_fake/sent. */
  url: string;
  /** The outgoing side: an SMTP server catching what Parley sends (smtp-catcher.ts). */
  smtpUrl: string;
  catcher: SmtpCatcher;
  close(): Promise<void>;
}

/**
 * Mailgun as one process for the end-to-end suite: POST /_fake/deliver {url, signingKey, mail}
 * builds the mail's fields (inboundMail), signs them now and posts them to the route's URL,
 * answering {status, body}; GET /_fake/sent lists the mails Parley sent to the SMTP catcher.
 */
export async function startFakeMailgun(): Promise<FakeMailgun> {
  const catcher = await startSmtpCatcher();
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = await serveFake(
    'Mailgun',
    async (req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/_fake/sent' && req.method === 'GET') return reply(res, 200, catcher.mails);
      if (path === '/_fake/deliver' && req.method === 'POST') {
        const d = JSON.parse(await readBody(req)) as { url: string; signingKey: string; mail: InboundMailOptions };
        return reply(res, 200, await postInbound(d.url, signedInbound(d.signingKey, inboundMail(d.mail))));
      }
      reply(res, 404, { message: 'Not found' });
    },
    (res, message) => reply(res, 500, { message }),
    '127.0.0.1',
    0,
  );
  return {
    url: server.origin,
    smtpUrl: catcher.url,
    catcher,
    close: async () => {
      await server.close();
      await catcher.close();
    },
  };
}
