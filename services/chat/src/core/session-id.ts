// A conversation's session id is issued by this service, never chosen by the visitor: 16 random
// URL-safe characters followed by 22 of their HMAC (128 bits) under the deployment's SESSION_SECRET.
// Ids are thus unguessable, and an id a client made up (or an older page's 13-character one) is only
// a hint: it starts a new conversation with a new id, so it can never join someone else's. What
// binds a conversation to its visitor is holding its exact id, which only the server's answer to
// that visitor carried (IP or user agent binding was rejected: it would break a phone changing
// networks mid-conversation). The MAC lets every chat instance recognise the others' ids statelessly.
import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';

const RANDOM_BYTES = 12; // 16 base64url characters
const RANDOM_CHARS = 16;
const MAC_CHARS = 22;
/** Within the session id alphabet a page may send (A–Z, a–z, 0–9, _ and -), at a length of its own. */
const SIGNED_ID = new RegExp(`^[A-Za-z0-9_-]{${RANDOM_CHARS + MAC_CHARS}}$`);
/** Keeps this key apart from anything else the same secret may ever sign. */
const PURPOSE = 'parley/chat/session-id/v1';

export interface SessionIds {
  /** A new session id. */
  issue(): string;
  /** The id when this deployment issued it, else null. */
  accept(raw: string): string | null;
}

export function sessionIds(secret: string): SessionIds {
  // A KeyObject, not the Buffer: Node checks a Buffer key on every createHmac (≈ 11 µs a MAC against
  // ≈ 1.7 µs with the KeyObject, measured on Node 24.21), and every message makes one.
  const key = createSecretKey(createHmac('sha256', secret).update(PURPOSE).digest());
  const macOf = (random: string) => createHmac('sha256', key).update(random).digest('base64url').slice(0, MAC_CHARS);
  return {
    issue() {
      const random = randomBytes(RANDOM_BYTES).toString('base64url');
      return random + macOf(random);
    },
    accept(raw) {
      const id = raw.trim();
      if (!SIGNED_ID.test(id)) return null;
      const expected = Buffer.from(macOf(id.slice(0, RANDOM_CHARS)));
      return timingSafeEqual(expected, Buffer.from(id.slice(RANDOM_CHARS))) ? id : null;
    },
  };
}
