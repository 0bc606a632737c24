import type { PrismaClient } from '../generated/prisma/client.ts';
import { hashSessionToken } from '../core/session-token.ts';

/** Revokes the session behind a token. Unknown, empty or already revoked tokens succeed silently. */
export async function logout(db: PrismaClient, token: string, now = new Date()): Promise<void> {
  if (!token) return;
  await db.session.updateMany({ where: { tokenHash: hashSessionToken(token), revokedAt: null }, data: { revokedAt: now } });
}
