// Validation of chatbot input at the RPC boundary, with the messages owners see.
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import { isLanguageName, type LanguageName } from '@parley/proto/language.ts';

export const CHATBOT_NOT_FOUND = 'Chatbot not found';
export const NAME_REQUIRED = 'Name is required';
export const NAME_MAX_CHARS = 100;
export const NAME_TOO_LONG = `Name must be at most ${NAME_MAX_CHARS} characters`;
export const LANGUAGE_INVALID = 'Language must be english, french or chinese';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Auth's user id, as the gateway passes it. */
export function parseOwnerId(raw: string): string {
  const ownerId = raw.trim();
  if (!ownerId) throw invalid('owner_id is required.');
  if (ownerId.length > 100) throw invalid('owner_id must be at most 100 characters.');
  return ownerId;
}

/** A chatbot id that is not a UUID cannot name a chatbot: answered like an unknown one. */
export function parseChatbotId(raw: string): string {
  const id = raw.trim();
  if (!UUID.test(id)) throw notFound(CHATBOT_NOT_FOUND);
  return id.toLowerCase();
}

export function isUuid(raw: string): boolean {
  return UUID.test(raw.trim());
}

export function parseName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalid(NAME_REQUIRED);
  if ([...name].length > NAME_MAX_CHARS) throw invalid(NAME_TOO_LONG);
  return name;
}

export function parseLanguage(raw: string): LanguageName {
  const language = raw.trim().toLowerCase();
  if (!isLanguageName(language)) throw invalid(LANGUAGE_INVALID);
  return language;
}
