import { randomBytes } from 'node:crypto';

/** The public id in a chatbot's chat-page URL: 128 random bits, URL-safe (22 characters). */
export function newUniqueId(): string {
  return randomBytes(16).toString('base64url');
}
