// Outgoing mail through nodemailer. With SMTP_URL, to that server (smtp:// talks STARTTLS when the
// server offers it, plain otherwise; smtps:// is TLS from the start). Without it, which config.ts
// allows only outside production, each mail is written to the local outbox folder instead
// (@parley/common/mail-outbox.ts), where a developer reads it on the gateway's /dev/mail page.
import type Nodemailer from 'nodemailer';
import type { Logger } from '@parley/common/logger.ts';
import { newOutboxMailId, writeOutboxMail } from '@parley/common/mail-outbox.ts';
import type { AuthConfig } from '../config.ts';
import type { MailContent } from './templates.ts';

export interface OutgoingMail extends MailContent {
  to: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

// A mail server that stops answering must not hold a job or a request for nodemailer's minutes.
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

// nodemailer (≈ 40 modules, ≈ 650 KB of sources) is loaded with the first mail, not when auth starts
// (docs/adr/0068-memory-at-rest.md).
let nodemailerLoading: Promise<typeof Nodemailer> | undefined;
const nodemailer = () => (nodemailerLoading ??= import('nodemailer').then((m) => m.default));

/** The transport built at the first mail; closed only if it was. */
function deferredTransport<T extends { close(): void }>(build: (sdk: typeof Nodemailer) => T) {
  let transport: Promise<T> | undefined;
  let built: T | undefined;
  return {
    get: () =>
      (transport ??= nodemailer().then((sdk) => {
        built = build(sdk);
        return built;
      })),
    close: () => built?.close(),
  };
}

export function createMailer(
  config: Pick<AuthConfig, 'SMTP_URL' | 'MAIL_FROM' | 'MAIL_OUTBOX_DIR' | 'PUBLIC_URL'>,
  logger: Logger,
): Mailer {
  if (config.SMTP_URL) {
    const smtpUrl = config.SMTP_URL;
    const transport = deferredTransport((sdk) => sdk.createTransport(smtpUrl, { from: config.MAIL_FROM, ...SMTP_TIMEOUTS }));
    logger.info({ smtp: new URL(config.SMTP_URL).host }, 'mail goes to the SMTP server');
    return {
      async send(mail) {
        await (await transport.get()).sendMail({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
      },
      close: transport.close,
    };
  }

  const dir = config.MAIL_OUTBOX_DIR;
  logger.info({ dir, page: `${config.PUBLIC_URL}/dev/mail` }, 'mail goes to the local outbox');
  // The raw message is built by nodemailer exactly as it would be sent, and kept beside the summary.
  const transport = deferredTransport((sdk) => sdk.createTransport({ streamTransport: true, buffer: true }, { from: config.MAIL_FROM }));
  return {
    async send(mail) {
      const date = new Date();
      const info = await (await transport.get()).sendMail({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, date });
      await writeOutboxMail(
        dir,
        {
          id: newOutboxMailId(date),
          date: date.toISOString(),
          from: config.MAIL_FROM,
          to: [mail.to],
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
        },
        info.message as Buffer,
      );
    },
    close: transport.close,
  };
}
