// What the invitation use cases share: the view of an invitation, its state, the seat limit and the
// mail with its link.
import type { Logger } from '@parley/common/logger.ts';
import { failedPrecondition, forbidden, invalid } from '@parley/common/rpc-errors.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { Notices } from '../mail/notices.ts';
import { invitationMail } from '../mail/templates.ts';
import { INVITATION_TTL_SECONDS } from './invitation-token.ts';

export const INVITATION_NOT_FOUND = 'Invitation not found';
export const INVITATION_USED = 'This invitation has already been used';
export const INVITATION_REVOKED = 'This invitation was revoked. Ask for a new one.';
export const INVITATION_EXPIRED = 'This invitation has expired. Ask for a new one.';

export interface InvitationMailDeps {
  db: PrismaClient;
  notices: Notices;
  logger: Logger;
  publicUrl: string;
}

export interface InvitationView {
  id: string;
  email: string;
  role: string;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
}

export const invitationSelect = {
  id: true,
  email: true,
  role: true,
  invitedByEmail: true,
  createdAt: true,
  expiresAt: true,
  acceptedAt: true,
  revokedAt: true,
} as const;

export const toInvitationView = (i: {
  id: string;
  email: string;
  role: string;
  invitedByEmail: string;
  createdAt: Date;
  expiresAt: Date;
}): InvitationView => ({
  id: i.id,
  email: i.email,
  role: i.role,
  invitedBy: i.invitedByEmail,
  createdAt: i.createdAt,
  expiresAt: i.expiresAt,
});

/** Refuses an invitation that can no longer be used, with what happened to it. */
export function requirePending(invitation: { acceptedAt: Date | null; revokedAt: Date | null; expiresAt: Date }, now: Date): void {
  if (invitation.acceptedAt) throw failedPrecondition(INVITATION_USED);
  if (invitation.revokedAt) throw failedPrecondition(INVITATION_REVOKED);
  if (invitation.expiresAt <= now) throw failedPrecondition(INVITATION_EXPIRED);
}

/** Where pending invitations are: not accepted, not revoked, not expired. */
export const pendingWhere = (now: Date) => ({ acceptedAt: null, revokedAt: null, expiresAt: { gt: now } }) as const;

export const expiryFrom = (now: Date) => new Date(now.getTime() + INVITATION_TTL_SECONDS * 1000);

/** The plan's seat limit, as the caller read it from billing. */
export function parseSeatLimit(raw: number): number {
  if (!Number.isInteger(raw) || raw < 1) throw invalid('seat_limit must be at least 1');
  return raw;
}

const planName = (plan: string) => (plan ? plan.charAt(0).toUpperCase() + plan.slice(1) : 'current');

export const seatLimitMessage = (plan: string, limit: number) =>
  `Your ${planName(plan)} plan allows ${limit} ${limit === 1 ? 'member' : 'members'}, pending invitations included.` +
  (plan === 'free' ? ' Upgrade to Pro for more members.' : '');

/**
 * Refuses when the workspace's members and pending invitations, with `adding` more, would exceed the
 * seat limit. Under the workspace's lock (access.ts), so concurrent invitations and acceptances count
 * one another.
 */
export async function requireSeats(
  tx: Prisma.TransactionClient,
  workspaceId: string,
  seats: { limit: number; plan: string; adding: number },
  now: Date,
): Promise<void> {
  const members = await tx.membership.count({ where: { workspaceId } });
  const pending = await tx.invitation.count({ where: { workspaceId, ...pendingWhere(now) } });
  if (members + pending + seats.adding > seats.limit) throw forbidden(seatLimitMessage(seats.plan, seats.limit));
}

/** Mails the link in the background once the invitation has committed; a failure is logged (the inviter can resend). */
export function mailInvitation(
  deps: InvitationMailDeps,
  input: { to: string; token: string; workspaceName: string; invitedBy: string; role: string; invitationId: string },
): void {
  deps.notices.send(
    {
      to: input.to,
      ...invitationMail({
        publicUrl: deps.publicUrl,
        token: input.token,
        workspaceName: input.workspaceName,
        invitedBy: input.invitedBy,
        role: input.role,
        ttlSeconds: INVITATION_TTL_SECONDS,
      }),
    },
    { invitationId: input.invitationId },
  );
}
