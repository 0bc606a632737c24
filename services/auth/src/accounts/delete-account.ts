// Deleting an account: confirmed with the password, the user goes at once (sessions and reset
// tokens cascade), and the deletion is recorded in the outbox in the same transaction, so that the
// AccountDeleted event reaches the services holding the owner's data (chatbots, conversations,
// billing) even if it cannot be published now (account-deleted.outbox.ts).
import type { Logger } from '@parley/common/logger.ts';
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { Notices } from '../mail/notices.ts';
import { accountDeletedMail } from '../mail/templates.ts';
import { announceAccountDeleted, type PublishAccountDeleted } from './account-deleted.outbox.ts';
import { checkCurrentPassword, type CurrentPasswordDeps } from '../core/current-password.ts';
import { ACCOUNT_NOT_FOUND, parseUserId } from '../core/profile-input.ts';

export const PASSWORD_INCORRECT = 'Password is incorrect';

export interface DeleteAccountDeps extends CurrentPasswordDeps {
  notices: Notices;
  logger: Logger;
  /** Announces the deletion; called after the commit (and by the outbox's relay if it fails). */
  publishAccountDeleted: PublishAccountDeleted;
}

export async function deleteAccount(deps: DeleteAccountDeps, req: { userId: string; password: string; clientIp: string }): Promise<void> {
  const userId = parseUserId(req.userId);
  if (!req.password) throw invalid('Please enter your password');
  const user = await checkCurrentPassword(deps, { userId, password: req.password, clientIp: req.clientIp }, PASSWORD_INCORRECT);

  const deletedAt = await deps.db.$transaction(async (tx) => {
    // A concurrent deletion may have won since the password was checked.
    const { count } = await tx.user.deleteMany({ where: { id: userId } });
    if (count === 0) throw notFound(ACCOUNT_NOT_FOUND);
    return (await tx.accountDeletedOutbox.create({ data: { userId } })).deletedAt;
  });

  try {
    await announceAccountDeleted(deps.db, deps.publishAccountDeleted, { userId, deletedAt });
  } catch (err) {
    // The account is gone either way, and its record stays in the outbox for the relay.
    deps.logger.warn({ err: (err as Error).message, userId }, 'could not publish AccountDeleted yet; the outbox relay will');
  }
  deps.notices.send({ to: user.email, ...accountDeletedMail() }, { userId });
  deps.logger.info({ userId }, 'account deleted');
}
