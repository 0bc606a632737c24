import type { PrismaClient } from '../generated/prisma/client.ts';
import { findMember, type ActorInput } from './access.ts';
import { membersOf, type MemberView } from './members.ts';

/** workspace:read. */
export async function listMembers(db: PrismaClient, req: { actor: ActorInput }): Promise<MemberView[]> {
  const member = await findMember(db, req.actor, 'workspace:read');
  return membersOf(db, member.workspace.id);
}
