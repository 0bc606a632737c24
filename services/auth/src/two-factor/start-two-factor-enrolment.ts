// Enrolment's first step, from the account page: a new TOTP secret, stored encrypted but not in use
// until a code of it is confirmed. Starting again replaces an unconfirmed secret.
import { failedPrecondition, notFound } from '@parley/common/rpc-errors.ts';
import { ACCOUNT_NOT_FOUND, parseUserId } from '../core/profile-input.ts';
import { newTotpSecret, otpauthUri } from './totp.ts';
import { TWO_FACTOR_ALREADY_ON, type TwoFactorDeps } from './two-factor-deps.ts';

export async function startTwoFactorEnrolment(
  deps: Pick<TwoFactorDeps, 'db' | 'twoFactorKeys'>,
  req: { userId: string },
): Promise<{ secret: string; otpauthUri: string }> {
  const userId = parseUserId(req.userId);
  const user = await deps.db.user.findUnique({ where: { id: userId }, select: { email: true, twoFactorEnabledAt: true } });
  if (!user) throw notFound(ACCOUNT_NOT_FOUND);
  if (user.twoFactorEnabledAt) throw failedPrecondition(TWO_FACTOR_ALREADY_ON);
  const secret = newTotpSecret();
  const { count } = await deps.db.user.updateMany({
    where: { id: userId, twoFactorEnabledAt: null },
    data: { twoFactorSecret: deps.twoFactorKeys.encrypt(secret, userId), twoFactorLastStep: null },
  });
  if (count !== 1) throw failedPrecondition(TWO_FACTOR_ALREADY_ON);
  return { secret, otpauthUri: otpauthUri(secret, user.email) };
}
