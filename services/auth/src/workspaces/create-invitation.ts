// Inviting an email to a workspace with a role: members:manage, a role the actor may give, a free seat
// (members and pending invitations count), and neither a member nor a pending invitation with that
// email. The link's token is stored as its hash and mailed once the invitation has committed.
import { alreadyExists, forbidden } from '@parley/common/rpc-errors.ts';
import { assignableBy } from '@parley/common/roles.ts';
import { parseNewEmail } from '../core/profile-input.ts';
import { parseRole } from '../core/workspace.ts';
import { changeAsMember, type ActorInput } from './access.ts';
import { memberAudit, recordAudit } from './audit.ts';
import { hashInvitationToken, newInvitationToken } from './invitation-token.ts';
import {
  expiryFrom,
  invitationSelect,
  mailInvitation,
  parseSeatLimit,
  pendingWhere,
  requireSeats,
  toInvitationView,
  type InvitationMailDeps,
  type InvitationView,
} from './invitations.ts';

export const OWNER_INVITED_BY_OWNERS = 'Only an owner can invite an owner';
export const alreadyMember = (email: string) => `${email} is already a member of this workspace`;
export const alreadyInvited = (email: string) => `${email} already has a pending invitation. You can send it again instead.`;

export async function createInvitation(
  deps: InvitationMailDeps,
  req: { actor: ActorInput; email: string; role: string; seatLimit: number; plan: string },
): Promise<InvitationView> {
  const email = parseNewEmail(req.email);
  const role = parseRole(req.role);
  const limit = parseSeatLimit(req.seatLimit);
  const token = newInvitationToken();
  const now = new Date();
  const { invitation, workspaceName } = await changeAsMember(deps.db, req.actor, 'members:manage', async (tx, member) => {
    if (!assignableBy(member.role).includes(role)) throw forbidden(OWNER_INVITED_BY_OWNERS);
    const workspaceId = member.workspace.id;
    if (await tx.membership.count({ where: { workspaceId, user: { email } } })) throw alreadyExists(alreadyMember(email));
    if (await tx.invitation.count({ where: { workspaceId, email, ...pendingWhere(now) } })) throw alreadyExists(alreadyInvited(email));
    await requireSeats(tx, workspaceId, { limit, plan: req.plan, adding: 1 }, now);
    const created = await tx.invitation.create({
      data: {
        workspaceId,
        email,
        role,
        tokenHash: hashInvitationToken(token),
        invitedByUserId: member.userId,
        invitedByEmail: member.email,
        createdAt: now,
        expiresAt: expiryFrom(now),
      },
      select: invitationSelect,
    });
    await recordAudit(tx, memberAudit(member, 'member.invited', email, { invitationId: created.id, role }));
    return { invitation: created, workspaceName: member.workspace.name };
  });

  mailInvitation(deps, { to: email, token, workspaceName, invitedBy: invitation.invitedByEmail, role, invitationId: invitation.id });
  deps.logger.info({ invitationId: invitation.id, workspaceId: req.actor.workspaceId }, 'invitation sent');
  return toInvitationView(invitation);
}
