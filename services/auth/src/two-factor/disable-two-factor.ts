import { twoFactorDisabledMail } from '../mail/templates.ts';
import { recordTwoFactorAudit } from './two-factor-audit.ts';
import type { TwoFactorDeps } from './two-factor-deps.ts';
import { withSecondFactor, type SecondFactorConfirmation } from './with-second-factor.ts';

/** Turns two-factor sign-in off: the secret, the last step and the recovery codes go. */
export async function disableTwoFactor(deps: TwoFactorDeps, req: SecondFactorConfirmation): Promise<void> {
  const { user } = await withSecondFactor(deps, req, async (tx, user) => {
    await tx.user.update({ where: { id: user.id }, data: { twoFactorSecret: null, twoFactorEnabledAt: null, twoFactorLastStep: null } });
    await tx.recoveryCode.deleteMany({ where: { userId: user.id } });
    await tx.twoFactorChallenge.deleteMany({ where: { userId: user.id } });
    await recordTwoFactorAudit(tx, user, 'two_factor.disabled', req.clientIp);
  });
  deps.notices.send({ to: user.email, ...twoFactorDisabledMail({ publicUrl: deps.publicUrl }) }, { userId: user.id });
  deps.logger.info({ userId: user.id }, 'two-factor sign-in disabled');
}
