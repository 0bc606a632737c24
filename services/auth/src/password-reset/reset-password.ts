// Setting a new password from a reset link. The token is consumed by one conditional UPDATE (unused
// and unexpired), so of two concurrent uses exactly one wins; in the same transaction the password
// changes, the user's other reset links stop working and every session is signed out.
import type { Logger } from '@parley/common/logger.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Notices } from '../mail/notices.ts';
import { passwordChangedMail } from '../mail/templates.ts';
import { hashPassword } from '../core/password-hash.ts';
import { parseNewPassword } from '../passwords/new-password.ts';
import { hashResetToken, MAX_RESET_TOKEN_LENGTH } from './reset-token.ts';

export const RESET_LINK_INVALID = 'This reset link is invalid.';
export const RESET_LINK_EXPIRED = 'This reset link has expired. Please ask for a new one.';
export const RESET_LINK_USED = 'This reset link has already been used.';

export interface ResetPasswordDeps {
  db: PrismaClient;
  notices: Notices;
  logger: Logger;
  publicUrl: string;
}

export interface ResetPasswordRequest {
  token: string;
  password: string;
  passwordConfirmation: string;
}

type TokenState = { usedAt: Date | null; expiresAt: Date } | null;

/** Why a token cannot be used now, or null when it can. */
function unusable(token: TokenState, now: Date): string | null {
  if (!token) return RESET_LINK_INVALID;
  if (token.usedAt) return RESET_LINK_USED;
  if (token.expiresAt <= now) return RESET_LINK_EXPIRED;
  return null;
}

/** Sets the password and signs every session out; answers whose password it was. */
export async function resetPassword(deps: ResetPasswordDeps, req: ResetPasswordRequest): Promise<string> {
  if (!req.token || req.token.length > MAX_RESET_TOKEN_LENGTH || hasControlCharacters(req.token)) throw invalid(RESET_LINK_INVALID);
  const tokenHash = hashResetToken(req.token);
  // A dead link is reported before the password is judged: the user should not fix a password for nothing.
  const found = await deps.db.passwordResetToken.findUnique({
    where: { tokenHash },
    select: { usedAt: true, expiresAt: true, user: { select: { id: true, email: true } } },
  });
  const refused = unusable(found, new Date());
  if (refused || !found) throw invalid(refused ?? RESET_LINK_INVALID);
  const password = parseNewPassword(req.password, req.passwordConfirmation);
  const passwordHash = await hashPassword(password);

  const userId = found.user.id;
  await deps.db.$transaction(async (tx) => {
    const now = new Date();
    const consumed = await tx.passwordResetToken.updateMany({
      where: { tokenHash, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (consumed.count !== 1) {
      // Used (or expired) since it was read: say which, as if it had been so from the start.
      const current = await tx.passwordResetToken.findUnique({ where: { tokenHash }, select: { usedAt: true, expiresAt: true } });
      throw invalid(unusable(current, now) ?? RESET_LINK_USED);
    }
    await tx.user.update({ where: { id: userId }, data: { passwordHash } });
    await tx.passwordResetToken.updateMany({ where: { userId, usedAt: null }, data: { usedAt: now } });
    await tx.session.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } });
  });

  deps.notices.send({ to: found.user.email, ...passwordChangedMail({ publicUrl: deps.publicUrl }) }, { userId });
  deps.logger.info({ userId }, 'password reset');
  return userId;
}
