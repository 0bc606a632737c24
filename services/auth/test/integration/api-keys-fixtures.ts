// What the API key tests share: a key made through the service, and the ways to read what the
// database holds of a secret.
import { createHash } from 'node:crypto';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { AuthHarness } from './harness.ts';
import { actor, type Person } from './workspaces-fixtures.ts';

export const SECRET_SHAPE = /^parley_sk_[0-9A-Za-z]{43}$/;

export async function createKey(
  h: AuthHarness,
  who: Person,
  workspaceId: string,
  input: { name?: string; scopes?: string[]; chatbotIds?: string[]; expiresAt?: Date } = {},
) {
  const res = await h.apiKeys.createApiKey({
    actor: actor(who, workspaceId),
    name: input.name ?? 'Deploys',
    scopes: input.scopes ?? ['chat', 'chatbots:read'],
    chatbotIds: input.chatbotIds ?? [],
    expiresAt: input.expiresAt && timestampFromDate(input.expiresAt),
  });
  return { apiKey: res.apiKey!, secret: res.secret };
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The 32 random bytes a secret writes in base 62. */
export function secretBytes(secret: string): Buffer {
  let n = 0n;
  for (const c of secret.slice('parley_sk_'.length)) n = n * 62n + BigInt(ALPHABET.indexOf(c));
  return Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
}

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Every way the secret could sit in stored text: whole, its random part, any eight characters of it,
 * and its bytes in hex, base64 and base64url.
 */
export function secretTraces(secret: string): string[] {
  const body = secret.slice('parley_sk_'.length);
  const bytes = secretBytes(secret);
  const windows = Array.from({ length: body.length - 7 }, (_, i) => body.slice(i, i + 8));
  return [secret, body, ...windows, bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')];
}

/** Every stored row of the key's tables and of the audit log, as JSON text. */
export async function storedRows(h: AuthHarness): Promise<string> {
  const rows = await h.db.$queryRaw<{ row: string }[]>`
    SELECT row_to_json(k)::text AS "row" FROM "ApiKey" AS k
    UNION ALL SELECT row_to_json(s)::text FROM "ApiKeySecret" AS s
    UNION ALL SELECT row_to_json(a)::text FROM "AuditEvent" AS a`;
  return rows.map((r) => r.row).join('\n');
}
