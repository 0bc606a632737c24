// Development only (docs/adr/0063-email-channel.md): a local SMTP server, started by the chat
// service when EMAIL_SMTP_INBOUND_PORT is set, that takes mail for the chatbots' inbound addresses
// and feeds it to the same inbound path as Mailgun's webhook (acceptInboundMail: the same rules for
// what is never answered, the same threads, the same queue). It listens on 127.0.0.1 only and has
// no signature to check: whoever can reach a developer's loopback is the developer. A recipient that
// is no connection's inbound address is refused at RCPT TO (550); a mail is at most 2 MB.
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Logger } from '@parley/common/logger.ts';
import { acceptInboundMail, type EmailReceiveDeps } from './email-receive.ts';
import { addressOf, type InboundFields } from './email.ts';

export const SMTP_MAX_BYTES = 2 * 1024 * 1024;

export interface EmailSmtpInbound {
  port: number;
  close(): Promise<void>;
}

export async function startEmailSmtpInbound(deps: EmailReceiveDeps & { logger: Logger }, port: number): Promise<EmailSmtpInbound> {
  const connectionOf = (address: string) =>
    deps.db.channelConnection.findFirst({
      where: { channel: 'email', accountId: addressOf(address) },
      select: { id: true, accountId: true },
    });
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    size: SMTP_MAX_BYTES,
    closeTimeout: 1000,
    onRcptTo(address, _session, callback) {
      connectionOf(address.address).then(
        (row) => callback(row ? undefined : Object.assign(new Error('No such inbound address'), { responseCode: 550 })),
        (err: Error) => callback(err),
      );
    },
    onData(stream, session, callback) {
      simpleParser(stream, { skipHtmlToText: true, skipImageLinks: true, skipTextToHtml: true }).then(
        async (parsed) => {
          if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
            callback(Object.assign(new Error('Message too large'), { responseCode: 552 }));
            return;
          }
          const headers: [string, string][] = parsed.headerLines.map((h) => [h.key, h.line.slice(h.key.length + 1).trim()]);
          const mailFrom = session.envelope.mailFrom;
          if (!mailFrom || !mailFrom.address) headers.push(['return-path', '<>']);
          const references = Array.isArray(parsed.references) ? parsed.references.join(' ') : (parsed.references ?? '');
          const from = parsed.from?.value[0]?.address ?? '';
          for (const rcpt of session.envelope.rcptTo) {
            const row = await connectionOf(rcpt.address);
            if (!row) continue;
            const fields: InboundFields = {
              sender: (mailFrom && mailFrom.address) || from,
              recipient: rcpt.address,
              subject: parsed.subject ?? '',
              'body-plain': parsed.text ?? '',
              'Message-Id': parsed.messageId ?? '',
              'In-Reply-To': parsed.inReplyTo ?? '',
              References: references,
              'message-headers': JSON.stringify(headers),
            };
            await acceptInboundMail(deps, { id: row.id, address: row.accountId ?? '' }, fields).catch((err: Error) =>
              deps.logger.info({ err: err.message }, 'a mail to the local SMTP server was not taken'),
            );
          }
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.server.address() as AddressInfo).port;
  deps.logger.info({ port: bound }, 'email: the local SMTP server takes mail for the inbound addresses');
  return { port: bound, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
