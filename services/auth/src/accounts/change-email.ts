// Changing the sign-in email needs the current password, and the old address is told, so that an
// account taken over through a stolen session cannot be moved away silently.
import type { Logger } from '@parley/common/logger.ts';
import { alreadyExists, invalid } from '@parley/common/rpc-errors.ts';
import { Prisma } from '../generated/prisma/client.ts';
import type { Notices } from '../mail/notices.ts';
import { emailChangedMail } from '../mail/templates.ts';
import { accountUserSelect, type AccountUser } from '../core/account-user.ts';
import { checkCurrentPassword, type CurrentPasswordDeps } from '../core/current-password.ts';
import { parseNewEmail, parseUserId } from '../core/profile-input.ts';
import { EMAIL_TAKEN } from './register.ts';

export const CURRENT_PASSWORD_INCORRECT = 'Current password is incorrect';

export interface ChangeEmailDeps extends CurrentPasswordDeps {
  notices: Notices;
  logger: Logger;
}

export interface ChangeEmailRequest {
  userId: string;
  currentPassword: string;
  newEmail: string;
  clientIp: string;
}

export async function changeEmail(deps: ChangeEmailDeps, req: ChangeEmailRequest): Promise<AccountUser> {
  const userId = parseUserId(req.userId);
  if (!req.currentPassword) throw invalid('Please enter all required fields');
  const newEmail = parseNewEmail(req.newEmail);
  const user = await checkCurrentPassword(
    deps,
    { userId, password: req.currentPassword, clientIp: req.clientIp },
    CURRENT_PASSWORD_INCORRECT,
  );
  if (newEmail === user.email) return user;

  let updated: AccountUser;
  try {
    updated = await deps.db.$transaction(async (tx) => {
      const user = await tx.user.update({ where: { id: userId }, data: { email: newEmail }, select: accountUserSelect });
      // Reset links went to the old address, which no longer speaks for the account.
      await tx.passwordResetToken.updateMany({ where: { userId, usedAt: null }, data: { usedAt: new Date() } });
      return user;
    });
  } catch (err) {
    // The unique index decides, as at registration.
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') throw alreadyExists(EMAIL_TAKEN);
    throw err;
  }
  deps.notices.send({ to: user.email, ...emailChangedMail({ newEmail }) }, { userId });
  deps.logger.info({ userId }, 'email changed');
  return updated;
}
