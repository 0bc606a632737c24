import type { PrismaClient } from '../generated/prisma/client.ts';
import { changeAsMember, type ActorInput } from './access.ts';
import { memberAudit, recordAudit } from './audit.ts';
import { requirePending } from './invitations.ts';
import { invitationOf } from './resend-invitation.ts';

/** members:manage. The link stops working at once; the seat it held is free again. */
export async function revokeInvitation(db: PrismaClient, req: { actor: ActorInput; invitationId: string }): Promise<void> {
  const now = new Date();
  await changeAsMember(db, req.actor, 'members:manage', async (tx, member) => {
    const invitation = await invitationOf(tx, member.workspace.id, req.invitationId);
    requirePending(invitation, now);
    await tx.invitation.update({ where: { id: invitation.id }, data: { revokedAt: now } });
    await recordAudit(
      tx,
      memberAudit(member, 'invitation.revoked', invitation.email, { invitationId: invitation.id, role: invitation.role }),
    );
  });
}
