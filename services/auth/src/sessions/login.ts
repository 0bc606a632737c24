import { invalid, unauthenticated } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { accountUserSelect, type AccountUser } from '../accounts/account-user.ts';
import { MAX_EMAIL_LENGTH, normalizeEmail } from '../accounts/email.ts';
import { MAX_PASSWORD_LENGTH } from '../accounts/registration-input.ts';
import { dummyPasswordHash, verifyPassword } from '../passwords/password-hash.ts';
import type { LoginThrottle } from './login-throttle.ts';
import { startSession, type StartedSession } from './start-session.ts';

export interface LoginDeps {
  db: PrismaClient;
  throttle: LoginThrottle;
  sessionTtlSeconds: number;
}

export interface LoginRequest {
  email: string;
  password: string;
  clientIp: string;
}

export const INVALID_CREDENTIALS = 'Invalid credentials';

/** Signs in with email and password; every kind of wrong credential gets the same answer. */
export async function login(deps: LoginDeps, req: LoginRequest): Promise<StartedSession & { user: AccountUser }> {
  const email = normalizeEmail(req.email);
  const { password, clientIp } = req;
  if (!email || !password) throw invalid('Please enter all fields');
  await deps.throttle.assertAllowed(email, clientIp);

  // Over-long input cannot match any stored account; it is refused without hashing it.
  const plausible = email.length <= MAX_EMAIL_LENGTH && password.length <= MAX_PASSWORD_LENGTH;
  const user = plausible
    ? await deps.db.user.findUnique({ where: { email }, select: { ...accountUserSelect, passwordHash: true } })
    : null;
  // Unknown emails are verified against a dummy hash so both failures take about the same time.
  const matches = plausible && (await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash())));
  if (!user || !matches) {
    await deps.throttle.recordFailure(email, clientIp);
    throw unauthenticated(INVALID_CREDENTIALS);
  }

  await deps.throttle.clearAccount(email);
  const session = await startSession(deps.db, { userId: user.id, clientIp, ttlSeconds: deps.sessionTtlSeconds });
  const { passwordHash: _hash, ...account } = user;
  return { ...session, user: account };
}
