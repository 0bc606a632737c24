// Notices (password changed, email changed, account deleted) are sent after the change has
// committed, in the background: the change stands whether or not the mail goes out, so a slow or
// failing mail server must neither delay the answer nor turn it into an error. A failure is logged.
import type { Logger } from '@parley/common/logger.ts';
import type { Mailer, OutgoingMail } from './mailer.ts';

export interface Notices {
  /** Sends the mail in the background; `context` goes into the log line if it fails. */
  send(mail: OutgoingMail, context: Record<string, unknown>): void;
  /** Resolves when every notice sent so far has gone out or failed (for a graceful stop, and tests). */
  settled(): Promise<void>;
}

export function createNotices(mailer: Mailer, logger: Logger): Notices {
  const pending = new Set<Promise<void>>();
  return {
    send(mail, context) {
      const sending = mailer.send(mail).then(
        () => logger.debug({ ...context, subject: mail.subject }, 'notice sent'),
        (err: Error) => logger.error({ ...context, subject: mail.subject, err: err.message }, 'could not send a notice mail'),
      );
      pending.add(sending);
      void sending.finally(() => pending.delete(sending));
    },
    async settled() {
      while (pending.size) await Promise.all(pending);
    },
  };
}
