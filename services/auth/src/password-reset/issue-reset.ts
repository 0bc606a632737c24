// The job's use case: when an account has the email, issue a reset token and mail the link.
//
// A job that fails after its mail went out (say, the database blinked while recording that) is
// retried by BullMQ; it must not leave two different working links behind. The token row is keyed
// on the job id: a retry whose mail is recorded as sent does nothing, and one whose mail is not
// replaces the row's token with a new one before sending, so the link of any earlier attempt stops
// working. At most one link per request works at any time.
import type { Logger } from '@parley/common/logger.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Mailer } from '../mail/mailer.ts';
import { passwordResetMail } from '../mail/templates.ts';
import { hashResetToken, newResetToken } from './reset-token.ts';

export interface IssueResetDeps {
  db: PrismaClient;
  mailer: Mailer;
  logger: Logger;
  publicUrl: string;
  ttlSeconds: number;
}

export type IssueResetOutcome = 'sent' | 'no-account' | 'already-sent';

export async function issueReset(deps: IssueResetDeps, input: { email: string; jobId: string }): Promise<IssueResetOutcome> {
  const user = await deps.db.user.findUnique({ where: { email: input.email }, select: { id: true, email: true } });
  if (!user) {
    deps.logger.debug({ jobId: input.jobId }, 'password reset asked for an email without an account: nothing sent');
    return 'no-account';
  }
  const earlier = await deps.db.passwordResetToken.findUnique({ where: { jobId: input.jobId }, select: { mailedAt: true, usedAt: true } });
  // A used token was mailed, even if recording that failed.
  if (earlier?.mailedAt || earlier?.usedAt) return 'already-sent';

  const token = newResetToken();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + deps.ttlSeconds * 1000);
  const fields = { userId: user.id, tokenHash: hashResetToken(token), createdAt: now, expiresAt };
  await deps.db.passwordResetToken.upsert({ where: { jobId: input.jobId }, create: { ...fields, jobId: input.jobId }, update: fields });

  // A failure throws: the job is retried with backoff.
  await deps.mailer.send({ to: user.email, ...passwordResetMail({ publicUrl: deps.publicUrl, token, ttlSeconds: deps.ttlSeconds }) });
  await deps.db.passwordResetToken.update({ where: { jobId: input.jobId }, data: { mailedAt: new Date() } });
  deps.logger.info({ userId: user.id, jobId: input.jobId }, 'password reset link sent');
  return 'sent';
}
