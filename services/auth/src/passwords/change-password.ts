// Changing the password from the account page: the current one is required, and every other
// session is signed out (a stolen session stops working), the caller's own one stays.
import type { Logger } from '@parley/common/logger.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { checkCurrentPassword, type CurrentPasswordDeps } from '../core/current-password.ts';
import { CURRENT_PASSWORD_INCORRECT } from '../accounts/change-email.ts';
import { parseUserId } from '../core/profile-input.ts';
import type { Notices } from '../mail/notices.ts';
import { passwordChangedMail } from '../mail/templates.ts';
import { hashSessionToken } from '../core/session-token.ts';
import { hashPassword } from '../core/password-hash.ts';
import { parseNewPassword } from './new-password.ts';

export interface ChangePasswordDeps extends CurrentPasswordDeps {
  notices: Notices;
  logger: Logger;
  publicUrl: string;
}

export interface ChangePasswordRequest {
  userId: string;
  currentPassword: string;
  newPassword: string;
  newPasswordConfirmation: string;
  /** The caller's own session token: the one session that stays. */
  keepToken: string;
  clientIp: string;
}

/** Returns how many other live sessions were revoked. */
export async function changePassword(deps: ChangePasswordDeps, req: ChangePasswordRequest): Promise<number> {
  const userId = parseUserId(req.userId);
  if (!req.currentPassword) throw invalid('Please enter all required fields');
  const password = parseNewPassword(req.newPassword, req.newPasswordConfirmation);
  const user = await checkCurrentPassword(
    deps,
    { userId, password: req.currentPassword, clientIp: req.clientIp },
    CURRENT_PASSWORD_INCORRECT,
  );

  const passwordHash = await hashPassword(password);
  const now = new Date();
  const revoked = await deps.db.$transaction(async (tx) => {
    await tx.user.update({ where: { id: userId }, data: { passwordHash } });
    // A reset link asked for before the change must not set the password back.
    await tx.passwordResetToken.updateMany({ where: { userId, usedAt: null }, data: { usedAt: now } });
    const { count } = await tx.session.updateMany({
      where: { userId, revokedAt: null, expiresAt: { gt: now }, tokenHash: { not: hashSessionToken(req.keepToken) } },
      data: { revokedAt: now },
    });
    return count;
  });
  deps.notices.send({ to: user.email, ...passwordChangedMail({ publicUrl: deps.publicUrl }) }, { userId });
  deps.logger.info({ userId, revoked }, 'password changed');
  return revoked;
}
