// Turning two-factor sign-in off and replacing the recovery codes are confirmed like the account's
// other sensitive changes, with the password (core/current-password.ts), and with a current code or
// a recovery code as well: a stolen session plus the password alone must not undo the second factor.
import { failedPrecondition, invalid } from '@parley/common/rpc-errors.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { CURRENT_PASSWORD_INCORRECT } from '../accounts/change-email.ts';
import type { AccountUser } from '../core/account-user.ts';
import { checkCurrentPassword } from '../core/current-password.ts';
import { parseUserId } from '../core/profile-input.ts';
import { TWO_FACTOR_CODE_INCORRECT, TWO_FACTOR_CODE_REQUIRED, useSecondFactor } from './second-factor.ts';
import { TWO_FACTOR_NOT_ON, type TwoFactorDeps } from './two-factor-deps.ts';

export interface SecondFactorConfirmation {
  userId: string;
  password: string;
  code: string;
  clientIp: string;
}

/** Runs `change` in the transaction that uses the code, once the password and the code are right. */
export async function withSecondFactor<T>(
  deps: TwoFactorDeps,
  req: SecondFactorConfirmation,
  change: (tx: Prisma.TransactionClient, user: AccountUser) => Promise<T>,
): Promise<{ user: AccountUser; result: T }> {
  const userId = parseUserId(req.userId);
  if (!req.password) throw invalid('Please enter all required fields');
  if (!req.code.trim()) throw invalid(TWO_FACTOR_CODE_REQUIRED);
  const user = await checkCurrentPassword(deps, { userId, password: req.password, clientIp: req.clientIp }, CURRENT_PASSWORD_INCORRECT);
  const row = await deps.db.user.findUnique({ where: { id: userId }, select: { twoFactorSecret: true } });
  if (!user.twoFactorEnabledAt || !row?.twoFactorSecret) throw failedPrecondition(TWO_FACTOR_NOT_ON);
  const twoFactorSecret = row.twoFactorSecret;

  await deps.twoFactorThrottle.acquire(userId, req.clientIp);
  const result = await deps.db.$transaction(async (tx) => {
    if (!(await useSecondFactor(tx, deps.twoFactorKeys, { id: userId, twoFactorSecret }, req.code, new Date()))) {
      throw invalid(TWO_FACTOR_CODE_INCORRECT);
    }
    return change(tx, user);
  });
  await deps.twoFactorThrottle.succeeded(userId, req.clientIp);
  return { user, result };
}
