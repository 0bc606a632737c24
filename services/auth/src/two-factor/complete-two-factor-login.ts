// The second step of a sign-in with two-factor on: the challenge from the password step and a TOTP
// code (or a recovery code) open the session exactly as a password-only login does. The challenge is
// claimed and the code used in one transaction, so a wrong code leaves the challenge open for another
// try (within the throttle's limits) and a right one cannot be used twice.
import { invalid, unauthenticated } from '@parley/common/rpc-errors.ts';
import { accountUserSelect, type AccountUser } from '../core/account-user.ts';
import { hashSessionToken, TOKEN_BYTES } from '../core/session-token.ts';
import { newSignInMail } from '../mail/templates.ts';
import { startSession, type StartedSession } from '../sessions/start-session.ts';
import { TWO_FACTOR_CODE_INCORRECT, TWO_FACTOR_CODE_REQUIRED, useSecondFactor } from './second-factor.ts';
import { TWO_FACTOR_CHALLENGE_INVALID } from '../core/two-factor-challenge.ts';
import type { TwoFactorDeps } from './two-factor-deps.ts';
import { recordTwoFactorAudit } from './two-factor-audit.ts';

export interface CompleteTwoFactorLoginRequest {
  challenge: string;
  code: string;
  clientIp: string;
}

export async function completeTwoFactorLogin(
  deps: TwoFactorDeps & { sessionTtlSeconds: number },
  req: CompleteTwoFactorLoginRequest,
): Promise<StartedSession & { user: AccountUser }> {
  // A token is 43 base64url characters; anything much longer is none.
  if (!req.challenge || req.challenge.length > TOKEN_BYTES * 2) throw unauthenticated(TWO_FACTOR_CHALLENGE_INVALID);
  if (!req.code.trim()) throw invalid(TWO_FACTOR_CODE_REQUIRED);
  const now = new Date();
  const tokenHash = hashSessionToken(req.challenge);
  const challenge = await deps.db.twoFactorChallenge.findUnique({
    where: { tokenHash },
    select: { usedAt: true, expiresAt: true, user: { select: { ...accountUserSelect, twoFactorSecret: true } } },
  });
  const found = challenge && !challenge.usedAt && challenge.expiresAt > now ? challenge.user : null;
  if (!found?.twoFactorSecret || !found.twoFactorEnabledAt) throw unauthenticated(TWO_FACTOR_CHALLENGE_INVALID);
  const { twoFactorSecret, ...user } = found;

  // Counted before the code is checked, so concurrent guesses cannot outrun the limit.
  await deps.twoFactorThrottle.acquire(user.id, req.clientIp);
  const { session, newDevice } = await deps.db.$transaction(async (tx) => {
    const claimed = await tx.twoFactorChallenge.updateMany({
      where: { tokenHash, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (claimed.count !== 1) throw unauthenticated(TWO_FACTOR_CHALLENGE_INVALID);
    if (!(await useSecondFactor(tx, deps.twoFactorKeys, { id: user.id, twoFactorSecret }, req.code, now))) {
      throw unauthenticated(TWO_FACTOR_CODE_INCORRECT);
    }
    // A device is known by the address it signs in from: the only trace of it the service keeps.
    const newDevice = (await tx.session.count({ where: { userId: user.id, clientIp: req.clientIp || null } })) === 0;
    const session = await startSession(tx, { userId: user.id, clientIp: req.clientIp, ttlSeconds: deps.sessionTtlSeconds, now });
    // Written with the session, so the log shows exactly the new-device sign-ins that happened.
    if (newDevice) await recordTwoFactorAudit(tx, user, 'two_factor.new_device_sign_in', req.clientIp);
    return { session, newDevice };
  });
  await deps.twoFactorThrottle.succeeded(user.id, req.clientIp);
  if (newDevice) {
    deps.notices.send(
      { to: user.email, ...newSignInMail({ publicUrl: deps.publicUrl, clientIp: req.clientIp, at: now }) },
      { userId: user.id },
    );
  }
  return { ...session, user };
}
