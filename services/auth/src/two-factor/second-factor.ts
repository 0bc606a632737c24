// Using one code of a user's second factor, inside the caller's transaction: a TOTP code of a step
// newer than the last one accepted, or one of the unused recovery codes. Both are conditional writes
// (the step only moves forward, a recovery code is deleted), so the same code sent twice at once is
// accepted once, and a rolled-back caller gives the code back.
import type { Prisma } from '../generated/prisma/client.ts';
import { normaliseRecoveryCode } from './recovery-codes.ts';
import { matchingStep } from './totp.ts';
import type { TwoFactorKeys } from './two-factor-keys.ts';

export const TWO_FACTOR_CODE_INCORRECT =
  'That code is not right. Enter the 6-digit code from your authenticator app, or one of your recovery codes.';
export const TWO_FACTOR_CODE_REQUIRED = 'Please enter the 6-digit code from your authenticator app, or a recovery code.';
/** Longer input than any code is refused before it is looked at. */
export const MAX_CODE_LENGTH = 32;

export type SecondFactor = 'totp' | 'recovery_code';

/** A TOTP code of the user's secret (decrypted with `keys`) or a recovery code; null when neither, or already used. */
export async function useSecondFactor(
  tx: Prisma.TransactionClient,
  keys: TwoFactorKeys,
  user: { id: string; twoFactorSecret: string },
  typed: string,
  now: Date,
): Promise<SecondFactor | null> {
  if (typed.length > MAX_CODE_LENGTH) return null;
  const code = typed.replace(/\s/g, '');
  if (/^\d+$/.test(code)) {
    const step = matchingStep(keys.decrypt(user.twoFactorSecret, user.id), code, now);
    if (step === null) return null;
    const { count } = await tx.user.updateMany({
      where: { id: user.id, OR: [{ twoFactorLastStep: null }, { twoFactorLastStep: { lt: step } }] },
      data: { twoFactorLastStep: step },
    });
    return count === 1 ? 'totp' : null;
  }
  const recoveryCode = normaliseRecoveryCode(code);
  if (!recoveryCode) return null;
  const { count } = await tx.recoveryCode.deleteMany({ where: { userId: user.id, codeHash: keys.hashRecoveryCode(recoveryCode) } });
  return count === 1 ? 'recovery_code' : null;
}

/** Stores a new set of recovery codes in place of the user's old ones; returns them as shown to the user. */
export async function replaceRecoveryCodes(
  tx: Prisma.TransactionClient,
  keys: TwoFactorKeys,
  userId: string,
  codes: string[],
): Promise<string[]> {
  await tx.recoveryCode.deleteMany({ where: { userId } });
  await tx.recoveryCode.createMany({
    data: codes.map((code) => ({ userId, codeHash: keys.hashRecoveryCode(normaliseRecoveryCode(code)!) })),
  });
  return codes;
}
