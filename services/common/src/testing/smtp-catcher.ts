// A real SMTP server for tests: accepts every mail on a random local port (no TLS, any or no login),
// parses it and keeps it, so a test sends through the real mail path and reads what arrived.
// Services talk to it with a plain `smtp://127.0.0.1:PORT` URL.
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  /** The From header, e.g. `Parley <no-reply@parley.local>`. */
  from: string;
  /** The envelope's recipients. */
  to: string[];
  subject: string;
  text: string;
  html: string | null;
  /** The threading headers as sent (empty when absent): Message-ID, In-Reply-To, References (space-separated). */
  messageId: string;
  inReplyTo: string;
  references: string;
  /** Every header's name (lower-cased) and value, in order. */
  headers: [string, string][];
}

export interface SmtpCatcher {
  url: string;
  /** Every mail received so far, oldest first. */
  mails: CaughtMail[];
  /** The first mail, received already or later, that matches; rejects after `timeoutMs`. */
  waitForMail(pred: (m: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
  close(): Promise<void>;
}

/** `Name <address>` (unquoted), or the bare address, comma-separated. */
const addressText = (a: AddressObject | AddressObject[] | undefined): string =>
  (a === undefined ? [] : Array.isArray(a) ? a : [a])
    .flatMap((x) => x.value)
    .map((v) => (v.name ? `${v.name} <${v.address ?? ''}>` : (v.address ?? '')))
    .join(', ');

export async function startSmtpCatcher(): Promise<SmtpCatcher> {
  const mails: CaughtMail[] = [];
  const arrived = new EventEmitter();
  arrived.setMaxListeners(0);

  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    // close() waits this long at most for a client that keeps its connection open.
    closeTimeout: 1000,
    onAuth: (_auth, _session, callback) => callback(null, { user: 'test' }),
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          const mail: CaughtMail = {
            from: addressText(parsed.from),
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : null,
            messageId: parsed.messageId ?? '',
            inReplyTo: parsed.inReplyTo ?? '',
            references: Array.isArray(parsed.references) ? parsed.references.join(' ') : (parsed.references ?? ''),
            headers: parsed.headerLines.map((h) => [h.key, h.line.slice(h.key.length + 1).trim()]),
          };
          mails.push(mail);
          arrived.emit('mail', mail);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitForMail(pred, timeoutMs = 10_000) {
      const already = mails.find(pred);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const onMail = (mail: CaughtMail) => {
          if (!pred(mail)) return;
          clearTimeout(timer);
          arrived.off('mail', onMail);
          resolve(mail);
        };
        const timer = setTimeout(() => {
          arrived.off('mail', onMail);
          reject(
            new Error(
              `no matching mail within ${timeoutMs} ms (${mails.length} received: ${mails.map((m) => m.subject).join('; ') || 'none'})`,
            ),
          );
        }, timeoutMs);
        arrived.on('mail', onMail);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
