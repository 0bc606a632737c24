// A change of someone's two-factor sign-in, or their sign-in from a new device, is a security event of every workspace they belong to:
// it is written to each of their audit logs, in the transaction of the change.
import type { Prisma } from '../generated/prisma/client.ts';
import { recordAudit } from '../workspaces/audit.ts';

export type TwoFactorAuditAction =
  | 'two_factor.enabled'
  | 'two_factor.disabled'
  | 'two_factor.recovery_codes_regenerated'
  /** A two-factor sign-in from an address none of the account's sessions came from (also mailed). */
  | 'two_factor.new_device_sign_in';

export async function recordTwoFactorAudit(
  tx: Prisma.TransactionClient,
  user: { id: string; email: string },
  action: TwoFactorAuditAction,
  clientIp: string,
  details?: Record<string, unknown>,
): Promise<void> {
  const memberships = await tx.membership.findMany({ where: { userId: user.id }, select: { workspaceId: true } });
  for (const { workspaceId } of memberships) {
    await recordAudit(tx, { workspaceId, actorUserId: user.id, actorEmail: user.email, action, target: user.email, details, clientIp });
  }
}
