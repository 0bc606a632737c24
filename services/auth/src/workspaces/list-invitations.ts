import type { PrismaClient } from '../generated/prisma/client.ts';
import { findMember, type ActorInput } from './access.ts';
import { invitationSelect, pendingWhere, toInvitationView, type InvitationView } from './invitations.ts';

/** members:manage. The pending invitations, newest first. */
export async function listInvitations(db: PrismaClient, req: { actor: ActorInput }, now = new Date()): Promise<InvitationView[]> {
  const member = await findMember(db, req.actor, 'members:manage');
  const invitations = await db.invitation.findMany({
    where: { workspaceId: member.workspace.id, ...pendingWhere(now) },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    select: invitationSelect,
  });
  return invitations.map(toInvitationView);
}
