// Changing a member's role: members:manage, within the roles the actor may give (an admin gives and
// takes every role but owner); the last owner keeps the role, so a workspace always has an owner.
import { failedPrecondition, forbidden } from '@parley/common/rpc-errors.ts';
import { assignableBy } from '@parley/common/roles.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { parseRole } from '../core/workspace.ts';
import { changeAsMember, ownerCount, type ActorInput } from './access.ts';
import { memberAudit, recordAudit } from './audit.ts';
import { targetMember, type MemberView } from './members.ts';

export const OWNER_ROLE_BY_OWNERS = 'Only an owner can give or take the owner role';
export const LAST_OWNER_DEMOTED = 'A workspace needs an owner: make another member an owner before changing this role';

export async function changeMemberRole(
  db: PrismaClient,
  req: { actor: ActorInput; memberUserId: string; role: string },
): Promise<MemberView> {
  const role = parseRole(req.role);
  return changeAsMember(db, req.actor, 'members:manage', async (tx, member) => {
    const target = await targetMember(tx, member.workspace.id, req.memberUserId);
    const allowed = assignableBy(member.role);
    if (!allowed.includes(role) || !allowed.includes(target.role)) throw forbidden(OWNER_ROLE_BY_OWNERS);
    if (target.role === role) return target;
    if (target.role === 'owner' && (await ownerCount(tx, member.workspace.id)) === 1) throw failedPrecondition(LAST_OWNER_DEMOTED);
    await tx.membership.update({
      where: { workspaceId_userId: { workspaceId: member.workspace.id, userId: target.userId } },
      data: { role },
    });
    await recordAudit(tx, memberAudit(member, 'member.role_changed', target.email, { userId: target.userId, from: target.role, to: role }));
    return { ...target, role };
  });
}
