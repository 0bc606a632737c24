// Enrolment's second step: a current code of the new secret turns two-factor sign-in on and makes the
// recovery codes, answered once. The code's step is the first accepted, so it cannot sign in again.
import { failedPrecondition, invalid, notFound } from '@parley/common/rpc-errors.ts';
import { ACCOUNT_NOT_FOUND, parseUserId } from '../core/profile-input.ts';
import { twoFactorEnabledMail } from '../mail/templates.ts';
import { newRecoveryCodes } from './recovery-codes.ts';
import { MAX_CODE_LENGTH, replaceRecoveryCodes, TWO_FACTOR_CODE_REQUIRED } from './second-factor.ts';
import { matchingStep } from './totp.ts';
import { recordTwoFactorAudit } from './two-factor-audit.ts';
import { TWO_FACTOR_ALREADY_ON, type TwoFactorDeps } from './two-factor-deps.ts';

export const ENROLMENT_NOT_STARTED = 'Start setting up two-factor sign-in first.';
export const ENROLMENT_CODE_INCORRECT = 'That code is not right. Enter the 6-digit code your authenticator app shows now.';
export const ENROLMENT_RESTARTED = 'Setting up two-factor sign-in was started again elsewhere. Please scan the new QR code.';

export async function confirmTwoFactorEnrolment(
  deps: TwoFactorDeps,
  req: { userId: string; code: string; clientIp: string },
): Promise<string[]> {
  const userId = parseUserId(req.userId);
  const code = req.code.replace(/\s/g, '');
  if (!code) throw invalid(TWO_FACTOR_CODE_REQUIRED);
  const user = await deps.db.user.findUnique({
    where: { id: userId },
    select: { email: true, twoFactorSecret: true, twoFactorEnabledAt: true },
  });
  if (!user) throw notFound(ACCOUNT_NOT_FOUND);
  if (user.twoFactorEnabledAt) throw failedPrecondition(TWO_FACTOR_ALREADY_ON);
  if (!user.twoFactorSecret) throw failedPrecondition(ENROLMENT_NOT_STARTED);
  const encrypted = user.twoFactorSecret;

  await deps.twoFactorThrottle.acquire(userId, req.clientIp);
  const now = new Date();
  const step = code.length <= MAX_CODE_LENGTH ? matchingStep(deps.twoFactorKeys.decrypt(encrypted, userId), code, now) : null;
  if (step === null) throw invalid(ENROLMENT_CODE_INCORRECT);
  const codes = await deps.db.$transaction(async (tx) => {
    // Only the secret the code was checked against is turned on, and only once.
    const { count } = await tx.user.updateMany({
      where: { id: userId, twoFactorEnabledAt: null, twoFactorSecret: encrypted },
      data: { twoFactorEnabledAt: now, twoFactorLastStep: step },
    });
    if (count !== 1) throw failedPrecondition(ENROLMENT_RESTARTED);
    const codes = await replaceRecoveryCodes(tx, deps.twoFactorKeys, userId, newRecoveryCodes());
    await recordTwoFactorAudit(tx, { id: userId, email: user.email }, 'two_factor.enabled', req.clientIp);
    return codes;
  });
  await deps.twoFactorThrottle.succeeded(userId, req.clientIp);
  deps.notices.send({ to: user.email, ...twoFactorEnabledMail({ publicUrl: deps.publicUrl }) }, { userId });
  deps.logger.info({ userId }, 'two-factor sign-in enabled');
  return codes;
}
