// The audit log: each change to a workspace's members, roles, invitations, ownership, settings and API
// keys is recorded in the transaction that makes it, so the log never misses a change nor shows one
// that was rolled back.
import type { Prisma } from '../generated/prisma/client.ts';

export type AuditAction =
  | 'workspace.created'
  | 'workspace.renamed'
  | 'member.invited'
  | 'invitation.resent'
  | 'invitation.revoked'
  | 'member.joined'
  | 'member.role_changed'
  | 'member.removed'
  | 'member.left'
  | 'ownership.transferred'
  | 'api_key.created'
  | 'api_key.rolled'
  | 'api_key.revoked'
  | 'workspace.two_factor_required'
  | 'workspace.two_factor_not_required'
  | 'workspace.retention_swept'
  | 'workspace.sso_updated'
  | 'member.joined_by_sso'
  | 'member.sso_refused_no_seat';

export interface AuditEntry {
  workspaceId: string;
  /** Null for the system. */
  actorUserId: string | null;
  actorEmail: string;
  action: string;
  target: string;
  details?: Record<string, unknown>;
  clientIp: string;
}

export async function recordAudit(tx: Prisma.TransactionClient, entry: AuditEntry): Promise<void> {
  await tx.auditEvent.create({
    data: {
      workspaceId: entry.workspaceId,
      actorUserId: entry.actorUserId,
      actorEmail: entry.actorEmail,
      action: entry.action,
      target: entry.target,
      details: (entry.details ?? {}) as Prisma.InputJsonObject,
      clientIp: entry.clientIp,
    },
  });
}

/** An entry for a change a member made. */
export const memberAudit = (
  member: { userId: string; email: string; clientIp: string; workspace: { id: string } },
  action: AuditAction,
  target: string,
  details?: Record<string, unknown>,
): AuditEntry => ({
  workspaceId: member.workspace.id,
  actorUserId: member.userId,
  actorEmail: member.email,
  action,
  target,
  details,
  clientIp: member.clientIp,
});
