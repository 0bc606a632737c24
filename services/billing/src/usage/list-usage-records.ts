// An owner's usage records, oldest first, a page at a time (for their data export, which may span
// years of usage). Keyset pagination on (occurredAt, id): each page starts after the last row of the
// previous one, so pages neither skip nor repeat rows however many there are, and a deep page costs
// what the first one does. The cursor is opaque to callers (base64url JSON of that last row's key).
import { invalid } from '@parley/common/rpc-errors.ts';
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import { parseOwnerId } from '../core/owner-id.ts';
import type { ReportedUsageRecord } from './usage-report.ts';
import { isUuid } from '@parley/common/ids.ts';

export const DEFAULT_PAGE_SIZE = 500;
export const MAX_PAGE_SIZE = 1_000;

export interface ListUsageRecordsInput {
  ownerId: string;
  /** The previous page's nextCursor; empty for the first page. */
  cursor: string;
  /** 0: DEFAULT_PAGE_SIZE. */
  pageSize: number;
}

export interface UsageRecordsPage {
  records: ReportedUsageRecord[];
  /** Empty when this was the last page. */
  nextCursor: string;
}

interface CursorKey {
  occurredAt: Date;
  id: string;
}

const INVALID_CURSOR = 'cursor is not one this service gave out.';

export async function listUsageRecords(deps: { prisma: PrismaClient }, input: ListUsageRecordsInput): Promise<UsageRecordsPage> {
  const ownerId = parseOwnerId(input.ownerId);
  const pageSize = parsePageSize(input.pageSize);
  const after = input.cursor ? decodeCursor(input.cursor) : undefined;
  // One row more than the page tells whether another page follows.
  const rows = await deps.prisma.$queryRaw<(ReportedUsageRecord & { id: string })[]>`
    SELECT r."id"::text AS id, r."requestId", r."occurredAt", r."chatbotId", r."chatbotName", r."model",
           coalesce(p."displayName", r."model") AS "modelDisplayName",
           r."promptTokens", r."completionTokens", r."totalTokens",
           trim_scale(r."promptCost")::text AS "promptCost", trim_scale(r."completionCost")::text AS "completionCost",
           trim_scale(r."totalCost")::text AS "totalCost", r."apiKeyId", r."ownKey"
      FROM "UsageRecord" AS r LEFT JOIN "ModelPrice" AS p ON p."modelId" = r."model"
     WHERE r."userId" = ${ownerId}
       ${after ? Prisma.sql`AND (r."occurredAt", r."id") > (${after.occurredAt.toISOString()}::timestamptz, ${after.id}::uuid)` : Prisma.empty}
     ORDER BY r."occurredAt", r."id"
     LIMIT ${pageSize + 1}`;
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  return {
    records: page.map(({ id: _id, ...record }) => record),
    nextCursor: rows.length > pageSize && last ? encodeCursor({ occurredAt: last.occurredAt, id: last.id }) : '',
  };
}

function parsePageSize(raw: number): number {
  if (raw === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(raw) || raw < 1 || raw > MAX_PAGE_SIZE) {
    throw invalid(`page_size must be a whole number from 1 to ${MAX_PAGE_SIZE} (0 for the default, ${DEFAULT_PAGE_SIZE}).`);
  }
  return raw;
}

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify({ t: key.occurredAt.toISOString(), id: key.id })).toString('base64url');
}

export function decodeCursor(cursor: string): CursorKey {
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid(INVALID_CURSOR);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid(INVALID_CURSOR);
  }
  const { t, id } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { t?: unknown; id?: unknown };
  if (typeof t !== 'string' || typeof id !== 'string' || !isUuid(id)) throw invalid(INVALID_CURSOR);
  const occurredAt = new Date(t);
  // Only the exact ISO text this service writes: a date Postgres would read differently is refused.
  if (Number.isNaN(occurredAt.getTime()) || occurredAt.toISOString() !== t) throw invalid(INVALID_CURSOR);
  return { occurredAt, id };
}
