// Who the visitor is (docs/adr/0046-mcp-server-and-verified-visitors.md). The owner's server holds
// the chatbot's identity secret and computes userHash = HMAC-SHA256(secret, userId) in hex for the
// user its page shows; the page hands { userId, email, name, userHash } to Parley.identify (or a
// developer API client sends them). Here, for a message that carries a userHash, the chatbot's
// secret is read (one indexed row) and the hash compared in constant time: a match makes the turn's
// visitor verified as that userId, with the email and name told with it; anything else (no secret,
// a forged hash, another visitor's userId, a hash of a rolled secret) leaves the visitor
// unverified, and the identity fields are then only what the page said (never an error: the visitor
// still gets an answer). A message without a userHash costs nothing here.
//
// The turn asks `identityOf(turn)`: "is this visitor verified, and who".
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { open, seal } from '@parley/common/sealed-secret.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { MessageInput } from '../core/message-input.ts';
import type { Logger } from '@parley/common/logger.ts';

/** The visitor of one turn: verified (their user id proved by the hash), or not. */
export type VisitorIdentity = { verified: true; userId: string; email: string | null; name: string | null } | { verified: false };

export const UNVERIFIED: VisitorIdentity = { verified: false };

/** "Is this visitor verified, and who": what a turn's tools and actions ask before acting for the visitor. */
export const identityOf = (turn: { identity?: VisitorIdentity }): VisitorIdentity => turn.identity ?? UNVERIFIED;

/** The hash the owner's server computes (the code sample the owner is shown does exactly this). */
export const userHashOf = (secret: string, userId: string): string => createHmac('sha256', secret).update(userId, 'utf8').digest('hex');

/** True when `userHash` is the HMAC of `userId` under `secret`, compared in constant time. */
export function hashMatches(secret: string, userId: string, userHash: string): boolean {
  const expected = createHmac('sha256', secret).update(userId, 'utf8').digest();
  const given = Buffer.from(userHash, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface IdentitySecrets {
  /** The chatbot's secret in plain text; null when it has none (or it cannot be opened). */
  secretOf(chatbotId: string): Promise<string | null>;
  /** A new secret for the chatbot, in place of any previous one; the only time it is shown. */
  create(ownerId: string, chatbotId: string): Promise<{ secret: string; createdAt: Date }>;
  /** When the chatbot's current secret was made; null when none. */
  createdAt(chatbotId: string): Promise<Date | null>;
}

const associatedData = (chatbotId: string) => `identity:${chatbotId}`;

/** The operator's key that seals new secrets, and the previous one, still read during a rotation (the provider keys' pair). */
export interface IdentityCiphers {
  current: Buffer;
  previous?: Buffer;
}

export function identitySecrets(deps: { db: PrismaClient; ciphers: IdentityCiphers; logger: Logger }): IdentitySecrets {
  const { db, ciphers } = deps;
  return {
    async secretOf(chatbotId) {
      const row = await db.identitySecret.findUnique({ where: { chatbotId }, select: { ciphertext: true } });
      if (!row) return null;
      const aad = associatedData(chatbotId);
      try {
        return open(ciphers.current, row.ciphertext, aad);
      } catch {
        try {
          if (ciphers.previous) return open(ciphers.previous, row.ciphertext, aad);
        } catch {
          // below
        }
        deps.logger.warn({ chatbotId }, "a chatbot's identity secret does not open under the operator's keys: its visitors are unverified");
        return null;
      }
    },
    async create(ownerId, chatbotId) {
      const secret = randomBytes(32).toString('hex');
      const ciphertext = seal(ciphers.current, secret, associatedData(chatbotId));
      const createdAt = new Date();
      await db.identitySecret.upsert({
        where: { chatbotId },
        create: { chatbotId, ownerId, ciphertext, createdAt },
        update: { ownerId, ciphertext, createdAt },
      });
      return { secret, createdAt };
    },
    async createdAt(chatbotId) {
      const row = await db.identitySecret.findUnique({ where: { chatbotId }, select: { createdAt: true } });
      return row?.createdAt ?? null;
    },
  };
}

/**
 * The visitor of a message: verified when it carries a user id and a userHash matching the
 * chatbot's secret. A message without both costs no read.
 */
export async function verifyVisitor(
  secrets: IdentitySecrets | undefined,
  chatbotId: string,
  input: Pick<MessageInput, 'visitorId' | 'visitorEmail' | 'visitorName' | 'visitorUserHash'>,
): Promise<VisitorIdentity> {
  if (!secrets || !input.visitorId || !input.visitorUserHash) return UNVERIFIED;
  const secret = await secrets.secretOf(chatbotId);
  if (!secret || !hashMatches(secret, input.visitorId, input.visitorUserHash)) return UNVERIFIED;
  return { verified: true, userId: input.visitorId, email: input.visitorEmail, name: input.visitorName };
}
