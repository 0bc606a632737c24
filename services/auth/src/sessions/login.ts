import { invalid, unauthenticated } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { accountUserSelect, type AccountUser } from '../core/account-user.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';
import { MAX_EMAIL_LENGTH, normalizeEmail } from '../core/email.ts';
import { MAX_PASSWORD_LENGTH } from '../core/registration-input.ts';
import { dummyPasswordHash, verifyPassword } from '../core/password-hash.ts';
import type { LoginThrottle } from '../core/login-throttle.ts';
import { issueTwoFactorChallenge } from '../core/two-factor-challenge.ts';
import { startSession, type StartedSession } from './start-session.ts';
import { refusePasswordIfSsoRequired } from '../core/sso-required.ts';

export interface LoginDeps {
  db: PrismaClient;
  throttle: LoginThrottle;
  sessionTtlSeconds: number;
  twoFactorChallengeTtlSeconds: number;
  /** Argon2 verification; tests pass a counting wrapper. */
  verifyPassword?: typeof verifyPassword;
}

export interface LoginRequest {
  email: string;
  password: string;
  clientIp: string;
}

export const INVALID_CREDENTIALS = 'Invalid credentials';
export const CONTROL_CHARACTERS_IN_CREDENTIALS = 'Email and password must not contain control characters';

/** A session, or, for an account with two-factor sign-in on, the challenge its second step needs. */
export type LoginOutcome = (StartedSession & { user: AccountUser }) | { twoFactorChallenge: string; user: AccountUser };

/** Signs in with email and password; every kind of wrong credential gets the same answer. */
export async function login(deps: LoginDeps, req: LoginRequest): Promise<LoginOutcome> {
  const email = normalizeEmail(req.email);
  const { password, clientIp } = req;
  if (!email || !password) throw invalid('Please enter all fields');
  if (hasControlCharacters(email) || hasControlCharacters(password)) throw invalid(CONTROL_CHARACTERS_IN_CREDENTIALS);
  // Counted before the password is checked, so concurrent guesses cannot outrun the limit.
  await deps.throttle.acquire(email, clientIp);

  const user = await findByCredentials(deps, email, password);
  if (!user) throw unauthenticated(INVALID_CREDENTIALS);

  await deps.throttle.succeeded(email, clientIp);
  // Checked after the password, so the answer tells nothing to someone who does not know it.
  await refusePasswordIfSsoRequired(deps.db, user);
  if (user.twoFactorEnabledAt) {
    return {
      twoFactorChallenge: await issueTwoFactorChallenge(deps.db, { userId: user.id, ttlSeconds: deps.twoFactorChallengeTtlSeconds }),
      user,
    };
  }
  const session = await startSession(deps.db, { userId: user.id, clientIp, ttlSeconds: deps.sessionTtlSeconds });
  return { ...session, user };
}

/** The account with this normalised email and password, or null; not throttled (callers throttle). */
export async function findByCredentials(
  deps: Pick<LoginDeps, 'db' | 'verifyPassword'>,
  email: string,
  password: string,
): Promise<AccountUser | null> {
  // Over-long input cannot match any stored account; it is refused without hashing it.
  if (email.length > MAX_EMAIL_LENGTH || password.length > MAX_PASSWORD_LENGTH) return null;
  const user = await deps.db.user.findUnique({ where: { email }, select: { ...accountUserSelect, passwordHash: true } });
  const verify = deps.verifyPassword ?? verifyPassword;
  // Unknown emails are verified against a dummy hash so both failures take about the same time.
  const matches = await verify(password, user?.passwordHash ?? (await dummyPasswordHash()));
  if (!user || !matches) return null;
  const { passwordHash: _hash, ...account } = user;
  return account;
}
