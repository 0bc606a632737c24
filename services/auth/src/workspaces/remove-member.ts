// Removing a member (members:manage; an admin cannot remove an owner) or leaving (any member, naming
// themselves). The last owner cannot leave. Access ends at the member's next request, which asks auth.
import { failedPrecondition, forbidden } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { changeAsMember, ownerCount, requirePermission, type ActorInput } from './access.ts';
import { memberAudit, recordAudit } from './audit.ts';
import { targetMember } from './members.ts';

export const OWNER_REMOVED_BY_OWNERS = 'Only an owner can remove an owner';

export const lastOwnerLeaving = (workspaceName: string) =>
  `You are the only owner of ${workspaceName}: transfer ownership to another member before leaving`;

export async function removeMember(db: PrismaClient, req: { actor: ActorInput; memberUserId: string }): Promise<void> {
  await changeAsMember(db, req.actor, undefined, async (tx, member) => {
    const target = await targetMember(tx, member.workspace.id, req.memberUserId);
    const leaving = target.userId === member.userId;
    if (leaving) {
      if (member.role === 'owner' && (await ownerCount(tx, member.workspace.id)) === 1) {
        throw failedPrecondition(lastOwnerLeaving(member.workspace.name));
      }
    } else {
      requirePermission(member, 'members:manage');
      if (target.role === 'owner' && member.role !== 'owner') throw forbidden(OWNER_REMOVED_BY_OWNERS);
    }
    await tx.membership.delete({ where: { workspaceId_userId: { workspaceId: member.workspace.id, userId: target.userId } } });
    await recordAudit(
      tx,
      memberAudit(member, leaving ? 'member.left' : 'member.removed', target.email, { userId: target.userId, role: target.role }),
    );
  });
}
