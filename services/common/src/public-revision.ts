// A chatbot's public revision: a random token in Redis that changes after every change to what the
// public chat reads of a chatbot (name, picture, status, language, knowledge, deletion). The
// chatbot service sets it once the change is committed; the chat service reads it with each
// visitor's message (in the same Redis script as the rate limits, so at no extra round trip) and
// reuses what it cached for a chatbot only under the very token it read before fetching it.
//
// A random token, not a counter: a key that expired or was lost and is set again can never come
// back to a value an old cache entry was stored under. A missing key reads as null, a revision
// like any other, so every later change still differs from it. Its key: redisKeys(prefix).chatbotRevision.
/** A public revision as read: the token, or null when the chatbot has none in Redis. */
export type PublicRevision = string | null;

/** How long a revision is kept after the chatbot's last change; caches must expire entries sooner. */
export const PUBLIC_REVISION_TTL_MS = 30 * 24 * 3600_000;
