// Transferring ownership: the member becomes an owner and the actor an admin, in one transaction.
import { invalid } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { changeAsMember, type ActorInput } from './access.ts';
import { memberAudit, recordAudit } from './audit.ts';
import { targetMember } from './members.ts';

export const TRANSFER_TO_SELF = 'Choose another member to transfer ownership to';

/** ownership:transfer. */
export async function transferOwnership(db: PrismaClient, req: { actor: ActorInput; memberUserId: string }): Promise<void> {
  await changeAsMember(db, req.actor, 'ownership:transfer', async (tx, member) => {
    const target = await targetMember(tx, member.workspace.id, req.memberUserId);
    if (target.userId === member.userId) throw invalid(TRANSFER_TO_SELF);
    const workspaceId = member.workspace.id;
    await tx.membership.update({ where: { workspaceId_userId: { workspaceId, userId: target.userId } }, data: { role: 'owner' } });
    await tx.membership.update({ where: { workspaceId_userId: { workspaceId, userId: member.userId } }, data: { role: 'admin' } });
    await recordAudit(
      tx,
      memberAudit(member, 'ownership.transferred', target.email, {
        userId: target.userId,
        previousRole: target.role,
        actorNowRole: 'admin',
      }),
    );
  });
}
