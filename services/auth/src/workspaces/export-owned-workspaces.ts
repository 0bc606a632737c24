// For the owner's data export: every workspace the user owns, with its members, its invitations and
// its whole audit log.
import type { PrismaClient } from '../generated/prisma/client.ts';
import { parseUserId } from '../core/profile-input.ts';
import type { WorkspaceView } from '../core/workspace.ts';
import { auditEventSelect, auditOrder, toAuditEventView, type AuditEventView } from './audit-events.ts';
import { invitationSelect, toInvitationView, type InvitationView } from './invitations.ts';
import { membersOf, type MemberView } from './members.ts';

export interface OwnedWorkspaceExport {
  workspace: WorkspaceView;
  members: MemberView[];
  invitations: InvitationView[];
  auditEvents: AuditEventView[];
}

export async function exportOwnedWorkspaces(db: PrismaClient, req: { userId: string }): Promise<OwnedWorkspaceExport[]> {
  const userId = parseUserId(req.userId);
  const owned = await db.membership.findMany({
    where: { userId, role: 'owner' },
    orderBy: { createdAt: 'asc' },
    select: {
      notifyHandoff: true,
      workspace: { select: { id: true, name: true, personal: true, createdAt: true, requireTwoFactor: true } },
    },
  });
  const exports: OwnedWorkspaceExport[] = [];
  for (const { workspace, notifyHandoff } of owned) {
    const members = await membersOf(db, workspace.id);
    const invitations = await db.invitation.findMany({
      where: { workspaceId: workspace.id },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      select: invitationSelect,
    });
    const auditEvents = await db.auditEvent.findMany({
      where: { workspaceId: workspace.id },
      orderBy: [...auditOrder],
      select: auditEventSelect,
    });
    exports.push({
      workspace: { ...workspace, role: 'owner', memberCount: members.length, notifyHandoff },
      members,
      invitations: invitations.map(toInvitationView),
      auditEvents: auditEvents.map(toAuditEventView),
    });
  }
  return exports;
}
