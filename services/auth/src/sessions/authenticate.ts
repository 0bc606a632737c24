import { unauthenticated } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { accountUserSelect, type AccountUser } from '../core/account-user.ts';
import { hashSessionToken } from '../core/session-token.ts';

export const SESSION_INVALID = 'Session expired. Please login again.';

/** Resolves a session token to its user; any token that is not a live session gets one answer. */
export async function authenticate(db: PrismaClient, token: string, now = new Date()): Promise<AccountUser> {
  if (!token) throw unauthenticated(SESSION_INVALID);
  const session = await db.session.findUnique({
    where: { tokenHash: hashSessionToken(token) },
    select: { revokedAt: true, expiresAt: true, user: { select: accountUserSelect } },
  });
  if (!session || session.revokedAt || session.expiresAt <= now) throw unauthenticated(SESSION_INVALID);
  return session.user;
}
