// What an invitation link invites to, for anyone holding it: the page shown before accepting.
import { notFound } from '@parley/common/rpc-errors.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { hashInvitationToken, MAX_INVITATION_TOKEN_LENGTH } from './invitation-token.ts';
import { INVITATION_NOT_FOUND, requirePending } from './invitations.ts';

export interface InvitationDetails {
  id: string;
  workspaceId: string;
  workspaceName: string;
  email: string;
  role: string;
  invitedBy: string;
  expiresAt: Date;
}

/** The usable invitation of a token: NOT_FOUND for an unknown one, FAILED_PRECONDITION for a used, revoked or expired one. */
export async function invitationByToken(db: Prisma.TransactionClient | PrismaClient, token: string, now: Date): Promise<InvitationDetails> {
  if (!token || token.length > MAX_INVITATION_TOKEN_LENGTH) throw notFound(INVITATION_NOT_FOUND);
  const invitation = await db.invitation.findUnique({
    where: { tokenHash: hashInvitationToken(token) },
    select: {
      id: true,
      workspaceId: true,
      email: true,
      role: true,
      invitedByEmail: true,
      expiresAt: true,
      acceptedAt: true,
      revokedAt: true,
      workspace: { select: { name: true } },
    },
  });
  if (!invitation) throw notFound(INVITATION_NOT_FOUND);
  requirePending(invitation, now);
  return {
    id: invitation.id,
    workspaceId: invitation.workspaceId,
    workspaceName: invitation.workspace.name,
    email: invitation.email,
    role: invitation.role,
    invitedBy: invitation.invitedByEmail,
    expiresAt: invitation.expiresAt,
  };
}

export const getInvitation = (db: PrismaClient, req: { token: string }, now = new Date()) => invitationByToken(db, req.token, now);
