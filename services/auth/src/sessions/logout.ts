import type { PrismaClient } from '../generated/prisma/client.ts';
import { hashSessionToken } from '../core/session-token.ts';

/**
 * Revokes the session behind a token, answering whose it was (for the announcement that ends its open
 * streams). Unknown, empty or already revoked tokens succeed silently, with no one.
 */
export async function logout(db: PrismaClient, token: string, now = new Date()): Promise<string | null> {
  if (!token) return null;
  const rows = await db.$queryRaw<{ userId: string }[]>`
    UPDATE "Session" SET "revokedAt" = ${now} WHERE "tokenHash" = ${hashSessionToken(token)} AND "revokedAt" IS NULL RETURNING "userId"::text`;
  return rows[0]?.userId ?? null;
}
