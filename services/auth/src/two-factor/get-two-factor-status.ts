import { notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { ACCOUNT_NOT_FOUND, parseUserId } from '../core/profile-input.ts';

export async function getTwoFactorStatus(
  db: PrismaClient,
  req: { userId: string },
): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
  const userId = parseUserId(req.userId);
  const user = await db.user.findUnique({
    where: { id: userId },
    select: { twoFactorEnabledAt: true, _count: { select: { recoveryCodes: true } } },
  });
  if (!user) throw notFound(ACCOUNT_NOT_FOUND);
  return { enabled: user.twoFactorEnabledAt !== null, recoveryCodesLeft: user._count.recoveryCodes };
}
