import type { PrismaClient } from '../generated/prisma/client.ts';
import { parseUserId } from '../core/profile-input.ts';
import { hashSessionToken } from '../core/session-token.ts';

export interface SessionSummary {
  id: string;
  createdAt: Date;
  expiresAt: Date;
  clientIp: string;
  /** The session of the caller's own token. */
  current: boolean;
}

/** The user's sessions that still sign in (not revoked, not expired), newest first. */
export async function listSessions(
  db: PrismaClient,
  req: { userId: string; currentToken: string },
  now = new Date(),
): Promise<SessionSummary[]> {
  const userId = parseUserId(req.userId);
  const currentHash = req.currentToken ? hashSessionToken(req.currentToken) : null;
  const sessions = await db.session.findMany({
    where: { userId, revokedAt: null, expiresAt: { gt: now } },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    select: { id: true, createdAt: true, expiresAt: true, clientIp: true, tokenHash: true },
  });
  return sessions.map((s) => ({
    id: s.id,
    createdAt: s.createdAt,
    expiresAt: s.expiresAt,
    clientIp: s.clientIp ?? '',
    current: s.tokenHash === currentHash,
  }));
}
