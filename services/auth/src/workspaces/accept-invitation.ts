// Accepting an invitation: by a signed-in account whose email is the invited one (a forwarded link
// lets no one else in), once. Under the workspace's lock the seat limit is checked again (the plan may
// have changed), and the invitation is marked accepted by a conditional update, so of two concurrent
// acceptances exactly one joins.
import { alreadyExists, failedPrecondition, forbidden, notFound } from '@parley/common/rpc-errors.ts';
import { isRole } from '@parley/common/roles.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { ACCOUNT_NOT_FOUND, parseUserId } from '../core/profile-input.ts';
import type { WorkspaceView } from '../core/workspace.ts';
import { lockWorkspace, workspaceView } from './access.ts';
import { recordAudit } from './audit.ts';
import { invitationByToken } from './get-invitation.ts';
import { hashInvitationToken } from './invitation-token.ts';
import { INVITATION_NOT_FOUND, INVITATION_USED, parseSeatLimit, pendingWhere, requireSeats } from './invitations.ts';

export const INVITATION_FOR_ANOTHER_EMAIL = 'This invitation was sent to another email address. Sign in with that address to accept it.';
export const ALREADY_MEMBER = 'You are already a member of this workspace';

export async function acceptInvitation(
  db: PrismaClient,
  req: { token: string; userId: string; clientIp: string; seatLimit: number; plan: string },
): Promise<WorkspaceView> {
  const userId = parseUserId(req.userId);
  const limit = parseSeatLimit(req.seatLimit);
  const now = new Date();
  const invitation = await invitationByToken(db, req.token, now);
  const user = await db.user.findUnique({ where: { id: userId }, select: { email: true } });
  if (!user) throw notFound(ACCOUNT_NOT_FOUND);
  if (user.email !== invitation.email) throw forbidden(INVITATION_FOR_ANOTHER_EMAIL);
  if (!isRole(invitation.role)) throw notFound(INVITATION_NOT_FOUND);
  const role = invitation.role;

  return db.$transaction(async (tx) => {
    await lockWorkspace(tx, invitation.workspaceId);
    const { count } = await tx.invitation.updateMany({
      where: { id: invitation.id, tokenHash: hashInvitationToken(req.token), ...pendingWhere(now) },
      data: { acceptedAt: now },
    });
    if (count === 0) {
      // Used, revoked, expired or sent again (a new token) since it was read: say which.
      await invitationByToken(tx, req.token, now);
      throw failedPrecondition(INVITATION_USED);
    }
    if (await tx.membership.count({ where: { workspaceId: invitation.workspaceId, userId } })) throw alreadyExists(ALREADY_MEMBER);
    // This invitation is no longer pending: the member it becomes takes its seat.
    await requireSeats(tx, invitation.workspaceId, { limit, plan: req.plan, adding: 1 }, now);
    const membership = await tx.membership.create({
      data: { workspaceId: invitation.workspaceId, userId, role },
      select: {
        notifyHandoff: true,
        workspace: { select: { id: true, name: true, personal: true, createdAt: true, requireTwoFactor: true } },
      },
    });
    await recordAudit(tx, {
      workspaceId: invitation.workspaceId,
      actorUserId: userId,
      actorEmail: user.email,
      action: 'member.joined',
      target: user.email,
      details: { invitationId: invitation.id, role, invitedBy: invitation.invitedBy },
      clientIp: req.clientIp,
    });
    return workspaceView(tx, membership.workspace, role, membership.notifyHandoff);
  });
}
