// Email's outbound side (docs/adr/0063-email-channel.md): one plain-text mail sent with nodemailer
// over the operator's SMTP server (SMTP_URL, the auth service's name for it), From the chatbot's
// inbound address, with its own Message-ID and the thread's In-Reply-To and References. Without
// SMTP_URL (development) the mail is written to the local outbox (MAIL_OUTBOX_DIR), where the
// gateway's /dev/mail shows it. SMTP's answers map onto the channel sender's statuses: a 4xx or a
// server out of reach is tried again, a 5xx is final, a refused login (535, EAUTH) is 401 and marks
// the connection failing.
import type Nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { newOutboxMailId, writeOutboxMail } from '@parley/common/mail-outbox.ts';

export interface OutgoingEmail {
  from: string;
  to: string;
  subject: string;
  text: string;
  messageId: string;
  inReplyTo?: string;
  references?: string[];
}

/** A refusal or failure of the SMTP server: 0 unreachable, 401 a refused login, 503 a 4xx (later), 400 a 5xx (final). */
export class EmailError extends Error {
  readonly status: number;
  readonly retryAfterSeconds: number | null = null;
  constructor(message: string, status: number) {
    super(message);
    this.name = 'EmailError';
    this.status = status;
  }
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

export interface EmailApi {
  send(mail: OutgoingEmail): Promise<void>;
  close(): void;
}

const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

// nodemailer (≈ 40 modules, ≈ 650 KB of sources) is loaded with the first mail the channel sends, not
// when chat starts (docs/adr/0068-memory-at-rest.md).
let nodemailerLoading: Promise<typeof Nodemailer> | undefined;
const nodemailer = () => (nodemailerLoading ??= import('nodemailer').then((m) => m.default));

/** A transport built at the first mail; closed only if it was. */
function deferred(build: (sdk: typeof Nodemailer) => Transporter) {
  let transport: Transporter | undefined;
  let building: Promise<Transporter> | undefined;
  return {
    get: () => (building ??= nodemailer().then((sdk) => (transport = build(sdk)))),
    close: () => transport?.close(),
  };
}

/** SMTP's failure as the sender's status. */
export function emailFailure(err: unknown): EmailError {
  const e = err as { code?: string; responseCode?: number; message?: string };
  const words = (e.message ?? 'SMTP failed').replace(/\s+/g, ' ').slice(0, 200);
  if (e.code === 'EAUTH' || e.responseCode === 535 || e.responseCode === 530) return new EmailError(`SMTP login refused: ${words}`, 401);
  if (typeof e.responseCode === 'number' && e.responseCode >= 500) return new EmailError(words, 400);
  if (typeof e.responseCode === 'number' && e.responseCode >= 400) return new EmailError(words, 503);
  return new EmailError(`SMTP could not be reached (${e.code ?? 'error'})`, 0);
}

export function emailApi(opts: { smtpUrl?: string; outboxDir: string }): EmailApi {
  const message = (mail: OutgoingEmail) => ({
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    messageId: mail.messageId,
    ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
    ...(mail.references?.length ? { references: mail.references.join(' ') } : {}),
    headers: { 'Auto-Submitted': 'auto-replied' },
  });
  if (opts.smtpUrl) {
    // The URL and the deadlines in one options object (SMTP transport reads `url`).
    const smtpUrl = opts.smtpUrl;
    const transport = deferred((sdk) =>
      sdk.createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS } as Parameters<typeof sdk.createTransport>[0]),
    );
    return {
      async send(mail) {
        try {
          await (await transport.get()).sendMail(message(mail));
        } catch (err) {
          throw emailFailure(err);
        }
      },
      close: transport.close,
    };
  }
  const transport = deferred((sdk) => sdk.createTransport({ streamTransport: true, buffer: true }));
  return {
    async send(mail) {
      const date = new Date();
      const info = await (await transport.get()).sendMail({ ...message(mail), date });
      await writeOutboxMail(
        opts.outboxDir,
        { id: newOutboxMailId(date), date: date.toISOString(), from: mail.from, to: [mail.to], subject: mail.subject, text: mail.text },
        info.message as Buffer,
      );
    },
    close: transport.close,
  };
}
