import type { Prisma } from '../generated/prisma/client.ts';
import { hashSessionToken, newSessionToken } from '../core/session-token.ts';

export interface StartedSession {
  token: string;
  expiresAt: Date;
}

/** Opens a session for a user; the caller's transaction client lets Register do it atomically. */
export async function startSession(
  db: Prisma.TransactionClient,
  input: { userId: string; clientIp: string; ttlSeconds: number; now?: Date },
): Promise<StartedSession> {
  const token = newSessionToken();
  const expiresAt = new Date((input.now ?? new Date()).getTime() + input.ttlSeconds * 1000);
  await db.session.create({
    data: { tokenHash: hashSessionToken(token), userId: input.userId, expiresAt, clientIp: input.clientIp || null },
  });
  return { token, expiresAt };
}
