// The developer API's keys as the dashboard sees them (docs/adr/0031-api-keys.md): thin calls to
// auth's ApiKeyService shared by REST and GraphQL. Auth owns every rule and message and checks the
// actor's role itself (apikeys:manage); the gateway adds the client's IP, turns the roll's overlap
// choice into seconds and never keeps a secret: it is answered once, by the call that issued it.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ApiKey } from '@parley/proto/parley/auth/v1/api_keys_pb.js';
import { API_SCOPES, API_SCOPE_NAMES } from '@parley/common/api-scopes.ts';
import { Code, ConnectError, invalid } from '@parley/common/rpc-errors.ts';
import { isoDate } from '../../http/dates.ts';
import type { Clients } from '../../http/clients.ts';
import type { Member } from '../../access/members.ts';

/** The overlaps a roll offers: how long the secrets issued before keep working. */
export const ROLL_OVERLAPS = { none: 0, one_hour: 3600, one_day: 86_400, seven_days: 604_800 } as const;
export type RollOverlap = keyof typeof ROLL_OVERLAPS;
export const OVERLAP_INVALID = `overlap must be one of ${Object.keys(ROLL_OVERLAPS).join(', ')}`;
export const EXPIRY_INVALID = 'expiresAt must be an ISO 8601 date and time';
export const SCOPES_INVALID = 'scopes must be a list of scope names';
export const CHATBOT_IDS_INVALID = 'chatbotIds must be a list of chatbot ids';

export interface ApiKeyView {
  id: string;
  name: string;
  scopes: string[];
  /** Empty: every chatbot of the workspace. */
  chatbotIds: string[];
  prefix: string;
  lastFour: string;
  createdByUserId: string;
  createdByEmail: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  /** While a secret replaced by a roll still works: when the last of them stops. */
  previousSecretExpiresAt: string | null;
}

/** A key with the secret just issued: the only answer that holds it. */
export interface IssuedApiKeyView {
  apiKey: ApiKeyView;
  secret: string;
}

export interface ApiScopeView {
  name: string;
  description: string;
}

export interface NewApiKey {
  name: string;
  scopes: string[];
  chatbotIds?: string[] | null;
  expiresAt?: string | null;
}

const apiKeyView = (k: ApiKey | undefined): ApiKeyView => {
  if (!k) throw new ConnectError('auth returned no API key', Code.Internal);
  return {
    id: k.id,
    name: k.name,
    scopes: [...k.scopes],
    chatbotIds: [...k.chatbotIds],
    prefix: k.prefix,
    lastFour: k.lastFour,
    createdByUserId: k.createdByUserId,
    createdByEmail: k.createdByEmail,
    createdAt: isoDate(k.createdAt) ?? new Date(0).toISOString(),
    expiresAt: isoDate(k.expiresAt),
    revokedAt: isoDate(k.revokedAt),
    lastUsedAt: isoDate(k.lastUsedAt),
    previousSecretExpiresAt: isoDate(k.previousSecretExpiresAt),
  };
};

const actor = (m: Member) => ({ userId: m.user.id, workspaceId: m.ownerId, clientIp: m.clientIp });

/** The scopes a key may hold, each with the sentence the API's documentation shows. */
export function apiScopes(): ApiScopeView[] {
  return API_SCOPE_NAMES.map((name) => ({ name, description: API_SCOPES[name] }));
}

/** A roll's overlap as the client names it (REST lowercase, GraphQL's enum lowercased: NONE, ONE_HOUR …). */
export function overlapField(value: unknown): RollOverlap {
  const named = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (typeof named !== 'string' || !Object.hasOwn(ROLL_OVERLAPS, named)) throw invalid(OVERLAP_INVALID);
  return named as RollOverlap;
}

/** A list of strings the client sent (REST), or the message naming the field. */
export function stringList(value: unknown, message: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw invalid(message);
  return value;
}

function expiryOf(raw: string | null | undefined) {
  if (raw === undefined || raw === null || raw.trim() === '') return undefined;
  const parsed = new Date(raw.trim());
  if (Number.isNaN(parsed.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(raw.trim())) throw invalid(EXPIRY_INVALID);
  return timestampFromDate(parsed);
}

export async function listApiKeys(clients: Clients, m: Member): Promise<ApiKeyView[]> {
  const { apiKeys } = await clients.apiKeys.listApiKeys({ actor: actor(m) });
  return apiKeys.map(apiKeyView);
}

export async function createApiKey(clients: Clients, m: Member, key: NewApiKey): Promise<IssuedApiKeyView> {
  const { apiKey, secret } = await clients.apiKeys.createApiKey({
    actor: actor(m),
    name: key.name,
    scopes: key.scopes,
    chatbotIds: key.chatbotIds ?? [],
    expiresAt: expiryOf(key.expiresAt),
  });
  return { apiKey: apiKeyView(apiKey), secret };
}

export async function rollApiKey(clients: Clients, m: Member, id: string, overlap: RollOverlap): Promise<IssuedApiKeyView> {
  const { apiKey, secret } = await clients.apiKeys.rollApiKey({ actor: actor(m), apiKeyId: id, overlapSeconds: ROLL_OVERLAPS[overlap] });
  return { apiKey: apiKeyView(apiKey), secret };
}

export async function revokeApiKey(clients: Clients, m: Member, id: string): Promise<ApiKeyView> {
  const { apiKey } = await clients.apiKeys.revokeApiKey({ actor: actor(m), apiKeyId: id });
  return apiKeyView(apiKey);
}
