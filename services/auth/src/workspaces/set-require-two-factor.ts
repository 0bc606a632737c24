// "Require two-factor sign-in for members" (docs/product.md, Two-factor sign-in): a workspace setting,
// so members:manage, like its name. Whoever turns it on must have two-factor sign-in on themselves, so
// the switch cannot shut its own admin out.
import { failedPrecondition } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { WorkspaceView } from '../core/workspace.ts';
import { changeAsMember, workspaceView, type ActorInput } from './access.ts';
import { memberAudit, recordAudit } from './audit.ts';

export const ENABLE_OWN_TWO_FACTOR_FIRST = 'Turn on two-factor sign-in for your own account first.';

export async function setRequireTwoFactor(db: PrismaClient, req: { actor: ActorInput; enabled: boolean }): Promise<WorkspaceView> {
  return changeAsMember(db, req.actor, 'members:manage', async (tx, member) => {
    if (member.workspace.requireTwoFactor !== req.enabled) {
      if (req.enabled) {
        const own = await tx.user.findUnique({ where: { id: member.userId }, select: { twoFactorEnabledAt: true } });
        if (!own?.twoFactorEnabledAt) throw failedPrecondition(ENABLE_OWN_TWO_FACTOR_FIRST);
      }
      await tx.workspace.update({ where: { id: member.workspace.id }, data: { requireTwoFactor: req.enabled } });
      const action = req.enabled ? 'workspace.two_factor_required' : 'workspace.two_factor_not_required';
      await recordAudit(tx, memberAudit(member, action, member.workspace.name));
    }
    return workspaceView(tx, { ...member.workspace, requireTwoFactor: req.enabled }, member.role, member.notifyHandoff);
  });
}
