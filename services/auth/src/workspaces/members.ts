// A workspace's members as the product shows them, and the membership a change acts on.
import { notFound } from '@parley/common/rpc-errors.ts';
import { isRole, ROLES, type Role } from '@parley/common/roles.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { MEMBER_NOT_FOUND, parseMemberId } from '../core/workspace.ts';

export interface MemberView {
  userId: string;
  email: string;
  name: string;
  role: Role;
  joinedAt: Date;
}

const memberSelect = { userId: true, role: true, createdAt: true, user: { select: { email: true, name: true } } } as const;

const toMemberView = (m: { userId: string; role: string; createdAt: Date; user: { email: string; name: string } }): MemberView => ({
  userId: m.userId,
  email: m.user.email,
  name: m.user.name,
  role: isRole(m.role) ? m.role : 'viewer',
  joinedAt: m.createdAt,
});

/** Every member, the most powerful roles first, then by email. */
export async function membersOf(db: Prisma.TransactionClient | PrismaClient, workspaceId: string): Promise<MemberView[]> {
  const rows = await db.membership.findMany({ where: { workspaceId }, select: memberSelect });
  return rows.map(toMemberView).sort((a, b) => ROLES.indexOf(a.role) - ROLES.indexOf(b.role) || a.email.localeCompare(b.email));
}

/** The member a change names, or NOT_FOUND. */
export async function targetMember(tx: Prisma.TransactionClient, workspaceId: string, rawUserId: string): Promise<MemberView> {
  const userId = parseMemberId(rawUserId);
  const row = await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId, userId } }, select: memberSelect });
  if (!row) throw notFound(MEMBER_NOT_FOUND);
  return toMemberView(row);
}
