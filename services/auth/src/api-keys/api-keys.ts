// What the API key use cases share: the view of a key a list shows (never a secret), the input rules
// and the messages every caller shows (docs/adr/0031-api-keys.md).
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import { API_SCOPE_NAMES, isApiScope, type ApiScope } from '@parley/common/api-scopes.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';
import { isUuid } from '@parley/common/ids.ts';

export const API_KEY_NOT_FOUND = 'API key not found';
export const API_KEY_REVOKED = 'This API key was revoked. Create a new one.';
export const API_KEY_EXPIRED = 'This API key has expired. Create a new one.';
export const MAX_API_KEY_NAME_LENGTH = 100;
/** Chatbot ids one key may name. */
export const MAX_API_KEY_CHATBOTS = 100;
/** Keys neither revoked nor expired a workspace may hold at once. */
export const MAX_ACTIVE_API_KEYS = 100;
/** The longest overlap of a roll: 7 days. */
export const MAX_ROLL_OVERLAP_SECONDS = 7 * 24 * 3600;

export const tooManyKeys = `A workspace can have at most ${MAX_ACTIVE_API_KEYS} active API keys. Revoke one you no longer use first.`;

export interface ApiKeyView {
  id: string;
  name: string;
  scopes: string[];
  chatbotIds: string[];
  prefix: string;
  lastFour: string;
  createdByUserId: string;
  createdByEmail: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  /** While a secret replaced by a roll still works: when the last of them stops. */
  previousSecretExpiresAt: Date | null;
}

/** A key with its secrets that still work at `now`. */
export const apiKeySelect = (now: Date) =>
  ({
    id: true,
    name: true,
    scopes: true,
    chatbotIds: true,
    createdByUserId: true,
    createdByEmail: true,
    createdAt: true,
    expiresAt: true,
    revokedAt: true,
    lastUsedAt: true,
    secrets: {
      where: { OR: [{ validUntil: null }, { validUntil: { gt: now } }] },
      select: { prefix: true, lastFour: true, validUntil: true },
    },
  }) satisfies Prisma.ApiKeySelect;

export type ApiKeyRow = Prisma.ApiKeyGetPayload<{ select: ReturnType<typeof apiKeySelect> }>;

export function toApiKeyView(key: ApiKeyRow): ApiKeyView {
  const current = key.secrets.find((s) => s.validUntil === null);
  const previous = key.secrets.flatMap((s) => (s.validUntil ? [s.validUntil] : []));
  const previousEnd = previous.length && !key.revokedAt ? new Date(Math.max(...previous.map((d) => d.getTime()))) : null;
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes,
    chatbotIds: key.chatbotIds,
    prefix: current?.prefix ?? '',
    lastFour: current?.lastFour ?? '',
    createdByUserId: key.createdByUserId,
    createdByEmail: key.createdByEmail,
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    revokedAt: key.revokedAt,
    lastUsedAt: key.lastUsedAt,
    previousSecretExpiresAt: previousEnd,
  };
}

/** Where the keys that still work are: not revoked, not expired. */
export const activeWhere = (now: Date): Prisma.ApiKeyWhereInput => ({
  revokedAt: null,
  OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
});

/** The key of the workspace with this id, or NOT_FOUND (a key of another workspace is not found either). */
export async function apiKeyOf(tx: Prisma.TransactionClient, workspaceId: string, rawId: string, now: Date): Promise<ApiKeyRow> {
  if (!isUuid(rawId)) throw notFound(API_KEY_NOT_FOUND);
  const key = await tx.apiKey.findFirst({ where: { id: rawId.toLowerCase(), workspaceId }, select: apiKeySelect(now) });
  if (!key) throw notFound(API_KEY_NOT_FOUND);
  return key;
}

export function parseApiKeyName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalid('Please enter a name for the API key');
  if (hasControlCharacters(name)) throw invalid('Name must not contain control characters');
  if (name.length > MAX_API_KEY_NAME_LENGTH) throw invalid(`Name must be at most ${MAX_API_KEY_NAME_LENGTH} characters`);
  return name;
}

/** At least one known scope; each once, in the list's order. */
export function parseScopes(raw: string[]): ApiScope[] {
  if (!raw.length) throw invalid('Choose at least one scope');
  for (const scope of raw) {
    if (!isApiScope(scope)) {
      throw invalid(`Unknown scope "${scope.slice(0, 40)}". Scopes are ${API_SCOPE_NAMES.join(', ')}.`);
    }
  }
  return API_SCOPE_NAMES.filter((s) => raw.includes(s));
}

/** Chatbot ids as UUIDs, lower-cased, each once; none means every chatbot of the workspace. */
export function parseChatbotIds(raw: string[]): string[] {
  const ids = [...new Set(raw.map((id) => id.toLowerCase()))];
  for (const id of ids) if (!isUuid(id)) throw invalid(`"${id.slice(0, 40)}" is not a chatbot id`);
  if (ids.length > MAX_API_KEY_CHATBOTS) throw invalid(`An API key can name at most ${MAX_API_KEY_CHATBOTS} chatbots`);
  return ids;
}

/** An expiry in the future, or none. */
export function parseExpiry(raw: Date | undefined, now: Date): Date | null {
  if (raw === undefined) return null;
  if (Number.isNaN(raw.getTime())) throw invalid('The expiry is not a valid date');
  if (raw <= now) throw invalid('The expiry must be in the future');
  return raw;
}

export function parseOverlapSeconds(raw: number): number {
  if (!Number.isInteger(raw) || raw < 0 || raw > MAX_ROLL_OVERLAP_SECONDS) {
    throw invalid(`overlap_seconds must be between 0 and ${MAX_ROLL_OVERLAP_SECONDS} (7 days)`);
  }
  return raw;
}
