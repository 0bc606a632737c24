// A chatbot as the public reaches it: by its uniqueId, the unguessable id in its chat page's URL.
// The id's rule and the one answer for an id that names no active chatbot live here, so the
// chatbot service (which makes and looks up the ids) and the chat service (which refuses what cannot
// be one before counting or asking anything) cannot drift apart.
import { randomBytes } from 'node:crypto';
import { notFound } from './rpc-errors.ts';

/** What a visitor reads for an unknown or inactive chatbot, whatever the process that tells them. */
export const PUBLIC_CHATBOT_NOT_FOUND = 'Chatbot not found or inactive';

export const publicChatbotNotFound = () => notFound(PUBLIC_CHATBOT_NOT_FOUND);

/** A new chatbot's uniqueId: 128 random bits, URL-safe (22 characters). */
export function newUniqueId(): string {
  return randomBytes(16).toString('base64url');
}

/** What could be a uniqueId: URL-safe characters, at most 64 (the ids made are 22). */
const UNIQUE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A uniqueId, trimmed; anything that cannot be one is NOT_FOUND without being looked up (nor counted against a rate limit). */
export function parseUniqueId(raw: string): string {
  const uniqueId = raw.trim();
  if (!UNIQUE_ID.test(uniqueId)) throw publicChatbotNotFound();
  return uniqueId;
}
