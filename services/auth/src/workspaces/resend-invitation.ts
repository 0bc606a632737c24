// Sending a pending invitation again: a new token (the old link stops working at once) and a new
// 7 days, mailed once committed.
import { notFound } from '@parley/common/rpc-errors.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { isUuid } from '@parley/common/ids.ts';
import { changeAsMember, type ActorInput } from './access.ts';
import { memberAudit, recordAudit } from './audit.ts';
import { hashInvitationToken, newInvitationToken } from './invitation-token.ts';
import {
  expiryFrom,
  INVITATION_NOT_FOUND,
  invitationSelect,
  mailInvitation,
  requirePending,
  toInvitationView,
  type InvitationMailDeps,
  type InvitationView,
} from './invitations.ts';

/** The invitation of the workspace with this id, under the caller's lock, or NOT_FOUND. */
export async function invitationOf(tx: Prisma.TransactionClient, workspaceId: string, rawId: string) {
  if (!isUuid(rawId)) throw notFound(INVITATION_NOT_FOUND);
  const invitation = await tx.invitation.findFirst({ where: { id: rawId.toLowerCase(), workspaceId }, select: invitationSelect });
  if (!invitation) throw notFound(INVITATION_NOT_FOUND);
  return invitation;
}

/** members:manage. */
export async function resendInvitation(
  deps: InvitationMailDeps,
  req: { actor: ActorInput; invitationId: string },
): Promise<InvitationView> {
  const token = newInvitationToken();
  const now = new Date();
  const { invitation, workspaceName } = await changeAsMember(deps.db, req.actor, 'members:manage', async (tx, member) => {
    const current = await invitationOf(tx, member.workspace.id, req.invitationId);
    // An expired one no longer holds a seat: inviting the address again checks the seat limit.
    requirePending(current, now);
    const updated = await tx.invitation.update({
      where: { id: current.id },
      data: { tokenHash: hashInvitationToken(token), expiresAt: expiryFrom(now) },
      select: invitationSelect,
    });
    await recordAudit(tx, memberAudit(member, 'invitation.resent', updated.email, { invitationId: updated.id, role: updated.role }));
    return { invitation: updated, workspaceName: member.workspace.name };
  });

  mailInvitation(deps, {
    to: invitation.email,
    token,
    workspaceName,
    invitedBy: invitation.invitedByEmail,
    role: invitation.role,
    invitationId: invitation.id,
  });
  return toInvitationView(invitation);
}
