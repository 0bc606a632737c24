import type { PrismaClient } from '../generated/prisma/client.ts';
import { parseUserId } from '../core/profile-input.ts';
import { hashSessionToken } from '../core/session-token.ts';

/**
 * "Sign out of all other devices": revokes the user's live sessions except the one of `keepToken`.
 * Returns how many were revoked (expired ones are not counted: they no longer sign anyone in).
 */
export async function revokeOtherSessions(db: PrismaClient, req: { userId: string; keepToken: string }, now = new Date()): Promise<number> {
  const userId = parseUserId(req.userId);
  const { count } = await db.session.updateMany({
    where: { userId, revokedAt: null, expiresAt: { gt: now }, tokenHash: { not: hashSessionToken(req.keepToken) } },
    data: { revokedAt: now },
  });
  return count;
}
