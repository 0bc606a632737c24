// Account changes that need the current password (email, password, deletion) check it here. The
// attempt is counted with the login throttle first, so these forms cannot be used to guess a
// password past the login's limits; a right password gives the attempt back, as a login does.
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { verifyPassword } from './password-hash.ts';
import type { LoginThrottle } from './login-throttle.ts';
import { accountUserSelect, type AccountUser } from './account-user.ts';
import { ACCOUNT_NOT_FOUND } from './profile-input.ts';
import { MAX_PASSWORD_LENGTH } from './registration-input.ts';

export interface CurrentPasswordDeps {
  db: PrismaClient;
  throttle: LoginThrottle;
  /** Argon2 verification; tests may pass a wrapper. */
  verifyPassword?: typeof verifyPassword;
}

/** The account, once `password` is shown to be its password; else InvalidArgument `wrongMessage`. */
export async function checkCurrentPassword(
  deps: CurrentPasswordDeps,
  input: { userId: string; password: string; clientIp: string },
  wrongMessage: string,
): Promise<AccountUser> {
  const user = await deps.db.user.findUnique({ where: { id: input.userId }, select: { ...accountUserSelect, passwordHash: true } });
  if (!user) throw notFound(ACCOUNT_NOT_FOUND);
  await deps.throttle.acquire(user.email, input.clientIp);
  const verify = deps.verifyPassword ?? verifyPassword;
  // An over-long password cannot be the stored one; it is refused without hashing it.
  const matches = input.password.length <= MAX_PASSWORD_LENGTH && (await verify(input.password, user.passwordHash));
  if (!matches) throw invalid(wrongMessage);
  await deps.throttle.succeeded(user.email, input.clientIp);
  const { passwordHash: _hash, ...account } = user;
  return account;
}
