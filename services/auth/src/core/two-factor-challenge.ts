// The step between a right password and the second factor: an opaque token like a session's (only
// its SHA-256 is stored), which opens no session by itself, expires soon and works once.
import type { PrismaClient } from '../generated/prisma/client.ts';
import { hashSessionToken, newSessionToken } from '../core/session-token.ts';

export const TWO_FACTOR_CHALLENGE_INVALID = 'Your sign-in has expired. Please log in again.';

export async function issueTwoFactorChallenge(
  db: PrismaClient,
  input: { userId: string; ttlSeconds: number; now?: Date },
): Promise<string> {
  const now = input.now ?? new Date();
  const token = newSessionToken();
  await db.$transaction([
    // The user's finished and expired challenges are of no further use.
    db.twoFactorChallenge.deleteMany({ where: { userId: input.userId, OR: [{ usedAt: { not: null } }, { expiresAt: { lte: now } }] } }),
    db.twoFactorChallenge.create({
      data: { tokenHash: hashSessionToken(token), userId: input.userId, expiresAt: new Date(now.getTime() + input.ttlSeconds * 1000) },
    }),
  ]);
  return token;
}
