import { recoveryCodesRegeneratedMail } from '../mail/templates.ts';
import { newRecoveryCodes } from './recovery-codes.ts';
import { replaceRecoveryCodes } from './second-factor.ts';
import { recordTwoFactorAudit } from './two-factor-audit.ts';
import type { TwoFactorDeps } from './two-factor-deps.ts';
import { withSecondFactor, type SecondFactorConfirmation } from './with-second-factor.ts';

/** Ten new recovery codes in place of every earlier one, answered once. */
export async function regenerateRecoveryCodes(deps: TwoFactorDeps, req: SecondFactorConfirmation): Promise<string[]> {
  const { user, result } = await withSecondFactor(deps, req, async (tx, user) => {
    const codes = await replaceRecoveryCodes(tx, deps.twoFactorKeys, user.id, newRecoveryCodes());
    await recordTwoFactorAudit(tx, user, 'two_factor.recovery_codes_regenerated', req.clientIp);
    return codes;
  });
  deps.notices.send({ to: user.email, ...recoveryCodesRegeneratedMail({ publicUrl: deps.publicUrl }) }, { userId: user.id });
  return result;
}
