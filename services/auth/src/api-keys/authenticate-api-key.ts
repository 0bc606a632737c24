// Resolves an API key's secret to its workspace, key, scopes and chatbots, in one statement: the
// gateway asks on every developer API call it has not answered from its few seconds' cache. The same
// statement records the key's last use, at most once a minute per key (a row locked by another call
// recording it is skipped, never waited for), so calls cost no write of their own.
import { unauthenticated } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { hashApiKeySecret, isApiKeySecretShaped } from './api-key-secret.ts';

export const API_KEY_INVALID = 'Invalid API key';
/** How often a key's last use is written at most. */
export const LAST_USE_PRECISION_SECONDS = 60;

export interface AuthenticatedApiKey {
  workspaceId: string;
  apiKeyId: string;
  scopes: string[];
  chatbotIds: string[];
  /** When this secret stops working by itself (the key's expiry or the end of a roll's overlap). */
  expiresAt: Date | null;
}

interface Row {
  apiKeyId: string;
  workspaceId: string;
  scopes: string[];
  chatbotIds: string[];
  expiresAt: Date | null;
}

const utc = (date: Date) => date.toISOString();

/**
 * One answer for anything that is not a working secret: unknown, forged, revoked, expired, rolled past
 * its overlap, of a deleted workspace (its keys went with it). A text that is not shaped like a secret
 * is not looked up.
 */
export async function authenticateApiKey(db: PrismaClient, secret: string, now = new Date()): Promise<AuthenticatedApiKey> {
  if (!isApiKeySecretShaped(secret)) throw unauthenticated(API_KEY_INVALID);
  const at = utc(now);
  const lastUseBefore = utc(new Date(now.getTime() - LAST_USE_PRECISION_SECONDS * 1000));
  const [row] = await db.$queryRaw<Row[]>`
    WITH "found" AS (
      SELECT k."id" AS "apiKeyId", k."workspaceId"::text AS "workspaceId", k."scopes", k."chatbotIds"::text[] AS "chatbotIds",
             LEAST(k."expiresAt", s."validUntil") AS "expiresAt"
        FROM "ApiKeySecret" AS s
        JOIN "ApiKey" AS k ON k."id" = s."apiKeyId"
       WHERE s."secretHash" = ${hashApiKeySecret(secret)}
         AND k."revokedAt" IS NULL
         AND (k."expiresAt" IS NULL OR k."expiresAt" > (${at}::timestamptz AT TIME ZONE 'UTC'))
         AND (s."validUntil" IS NULL OR s."validUntil" > (${at}::timestamptz AT TIME ZONE 'UTC'))
    ), "used" AS (
      UPDATE "ApiKey" SET "lastUsedAt" = (${at}::timestamptz AT TIME ZONE 'UTC')
       WHERE "id" IN (
         SELECT k."id" FROM "ApiKey" AS k JOIN "found" AS f ON f."apiKeyId" = k."id"
          WHERE k."lastUsedAt" IS NULL OR k."lastUsedAt" <= (${lastUseBefore}::timestamptz AT TIME ZONE 'UTC')
            FOR UPDATE OF k SKIP LOCKED)
    )
    SELECT "apiKeyId"::text AS "apiKeyId", "workspaceId", "scopes", "chatbotIds", "expiresAt" FROM "found"`;
  if (!row) throw unauthenticated(API_KEY_INVALID);
  return { workspaceId: row.workspaceId, apiKeyId: row.apiKeyId, scopes: row.scopes, chatbotIds: row.chatbotIds, expiresAt: row.expiresAt };
}
