// Every conversation of one of the owner's chatbots with every message, for the owner's download
// (docs/product.md, Conversation export). Same access as history (owner, Pro). The rows come a page at a time by keyset
// pagination, so a chatbot with millions of messages is never held in memory and each page is one
// query on indexes whose cost does not grow with how far the export has got: conversations oldest
// first (the (chatbotId, createdAt, id) index), each one's messages in the order they were sent
// (createdAt, id).
//
// A conversation's creation never changes, so a visitor writing during the export neither moves a
// conversation nor makes it appear twice; one opened during the export comes at the end.
import type pg from 'pg';
import { Code, ConnectError, forbidden, invalid } from '@parley/common/rpc-errors.ts';
import { assertHistoryAccess, type HistoryAccessDeps } from '../core/history-access.ts';

export const EXPORT_PRO_ONLY = 'Upgrade to Pro to export conversations';
export const DATES_FORMAT = 'Dates must be YYYY-MM-DD';
export const END_BEFORE_START = 'The end date must not be before the start date';

/**
 * Rows per page (one query, one streamed response). Measured with `node bench/export.ts` (100,000
 * conversations, Parley's memory settings, same data): 250 rows gave 70–75,000 CSV messages/s and a
 * chat service peak of 170–189 MB; 1,000 rows 62–66,000 messages/s and 195–199 MB (the export's bound
 * is 200 MB, ADR 20), as larger pages leave more garbage per page between collections.
 */
export const EXPORT_PAGE_SIZE = 250;

const DAY_MS = 86_400_000;

/** What reads the pages: the chat service's plain pg pool (pgPool in database.ts), not Prisma, for memory. */
export type ExportDb = Pick<pg.Pool, 'query'>;

export type ExportDeps = HistoryAccessDeps & { exportDb: ExportDb };

export interface ExportInput {
  ownerId: string;
  chatbotId: string;
  /** Inclusive UTC days, YYYY-MM-DD; empty or absent: unbounded on that side. */
  startDate?: string;
  endDate?: string;
}

export interface ExportRow {
  conversationId: string;
  sessionId: string;
  userIp: string | null;
  userAgent: string | null;
  messageId: string;
  role: string;
  content: string;
  timestamp: Date;
  rating: string | null;
  /** What the host page told the widget about the visitor (Parley.identify); null when not told. */
  visitorId: string | null;
  visitorName: string | null;
  /** The member who wrote an agent reply or a note; null for every other message. */
  authorName: string | null;
}

/** A range of UTC instants, [from, to); either side open. */
export interface ExportRange {
  from: Date | null;
  to: Date | null;
}

/** A YYYY-MM-DD day as its UTC midnight, or null when it is not a real day. */
function parseDay(raw: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(raw)) return null;
  const day = new Date(`${raw}T00:00:00.000Z`);
  return Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== raw ? null : day;
}

/** The optional inclusive days as instants: the end day counts whole (to its next midnight). */
export function parseExportRange(startDate = '', endDate = ''): ExportRange {
  const start = startDate.trim();
  const end = endDate.trim();
  const from = start ? parseDay(start) : null;
  const endDay = end ? parseDay(end) : null;
  if ((start && !from) || (end && !endDay)) throw invalid(DATES_FORMAT);
  if (from && endDay && endDay < from) throw invalid(END_BEFORE_START);
  return { from, to: endDay ? new Date(endDay.getTime() + DAY_MS) : null };
}

/** Where the previous page stopped: its last row's conversation and message. */
interface Cursor {
  conversationCreatedAt: Date;
  conversationId: string;
  messageCreatedAt: Date;
  messageId: bigint;
}

interface PageRow {
  conversationId: string;
  conversationCreatedAt: Date;
  sessionId: string;
  userIp: string | null;
  userAgent: string | null;
  messageId: bigint;
  role: string;
  content: string;
  createdAt: Date;
  rating: string | null;
  visitorId: string | null;
  visitorName: string | null;
  authorName: string | null;
}

/**
 * One page: the conversations from the cursor's on (its own included, for its remaining messages,
 * and `size` more) along the (chatbotId, createdAt, id) index, then their messages through the
 * (conversationId, createdAt) index. The candidates stop once their message counts fill a page, so a
 * page reads about as many messages as it returns.
 */
async function readPage(db: ExportDb, chatbotId: string, range: ExportRange, after: Cursor | null, size: number): Promise<PageRow[]> {
  const values = [
    chatbotId,
    after?.conversationId ?? null,
    after?.conversationCreatedAt ?? null,
    range.from,
    range.to,
    size + 1,
    size,
    after?.messageCreatedAt ?? null,
    after?.messageId.toString() ?? null,
  ];
  const { rows } = await db.query<Omit<PageRow, 'messageId'> & { messageId: string }>(
    `
    WITH candidates AS (
      SELECT c."id", c."createdAt", c."sessionId", c."userIp", c."userAgent", c."visitorId", c."visitorName",
             CASE WHEN c."id" = $2::uuid THEN 0 ELSE c."messageCount" END AS "pending"
        FROM "Conversation" AS c
       WHERE c."chatbotId" = $1::uuid
         AND ($3::timestamptz IS NULL OR (c."createdAt", c."id") >= ($3::timestamptz, $2::uuid))
         AND ($4::timestamptz IS NULL OR c."updatedAt" >= $4::timestamptz)
         AND ($5::timestamptz IS NULL OR c."createdAt" < $5::timestamptz)
         AND ($4::timestamptz IS NULL AND $5::timestamptz IS NULL OR EXISTS (
               SELECT 1 FROM "Message" AS r
                WHERE r."conversationId" = c."id"
                  AND r."createdAt" >= coalesce($4::timestamptz, '-infinity')
                  AND r."createdAt" < coalesce($5::timestamptz, 'infinity')))
       ORDER BY c."createdAt", c."id"
       LIMIT $6::int
    ), page AS (
      SELECT * FROM (
        SELECT candidates.*, coalesce(sum("pending") OVER (ORDER BY "createdAt", "id" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS "before"
          FROM candidates
      ) AS counted
       WHERE "before" < $7::int
    )
    SELECT page."id" AS "conversationId", page."createdAt" AS "conversationCreatedAt", page."sessionId", page."userIp", page."userAgent",
           m."id" AS "messageId", m."role"::text AS "role", m."content", m."createdAt", m."rating",
           page."visitorId", page."visitorName", m."authorName"
      FROM page
      JOIN LATERAL (
        SELECT m."id", m."role", m."content", m."createdAt", m."rating", m."authorName"
          FROM "Message" AS m
         WHERE m."conversationId" = page."id"
           AND (page."id" IS DISTINCT FROM $2::uuid
                OR (m."createdAt", m."id") > ($8::timestamptz, $9::bigint))
         ORDER BY m."createdAt", m."id"
         LIMIT $7::int
      ) AS m ON true
     ORDER BY page."createdAt", page."id", m."createdAt", m."id"
     LIMIT $7::int`,
    values,
  );
  // bigint ids arrive as text (pg's default for int8).
  return rows.map((r) => ({ ...r, messageId: BigInt(r.messageId) }));
}

const toExportRow = (r: PageRow): ExportRow => ({
  conversationId: r.conversationId,
  sessionId: r.sessionId,
  userIp: r.userIp,
  userAgent: r.userAgent,
  messageId: r.messageId.toString(),
  role: r.role,
  content: r.content,
  timestamp: r.createdAt,
  rating: r.rating,
  visitorId: r.visitorId,
  visitorName: r.visitorName,
  authorName: r.authorName,
});

/** The rows of the pages after `after` (null: from the start), one page at a time. */
export async function* exportPages(
  db: ExportDb,
  chatbotId: string,
  range: ExportRange,
  pageSize = EXPORT_PAGE_SIZE,
): AsyncGenerator<ExportRow[]> {
  let after: Cursor | null = null;
  for (;;) {
    const rows = await readPage(db, chatbotId, range, after, pageSize);
    // A page ends at the page size or where its conversations' messages ran out (their counts fill a
    // page); only an empty page is the end.
    if (rows.length === 0) return;
    const last = rows[rows.length - 1];
    after = {
      conversationCreatedAt: last.conversationCreatedAt,
      conversationId: last.conversationId,
      messageCreatedAt: last.createdAt,
      messageId: last.messageId,
    };
    yield rows.map(toExportRow);
  }
}

/**
 * Checks access and the range before the first row (so a refusal is a clean error), then yields the
 * pages. History's Pro refusal is reworded for the export.
 */
export async function exportConversations(deps: ExportDeps, input: ExportInput): Promise<AsyncGenerator<ExportRow[]>> {
  const range = parseExportRange(input.startDate, input.endDate);
  let chatbotId: string;
  try {
    chatbotId = await assertHistoryAccess(deps, input);
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.PermissionDenied) throw forbidden(EXPORT_PRO_ONLY);
    throw err;
  }
  return exportPages(deps.exportDb, chatbotId, range);
}
