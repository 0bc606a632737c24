// Retention windows (docs/adr/0048-retention-windows.md): how long a workspace keeps its
// conversations (with their messages, past the last activity: the conversation's updatedAt) and its
// leads (past their creation), 7 to 36,500 days, or forever (null). The sweep hard-deletes what is
// past a window in batches (a conversation's messages and lead go with it: ON DELETE CASCADE), so a
// large backlog never holds locks or one transaction for long; rows another replica is deleting are
// skipped (SKIP LOCKED), and running it again deletes nothing more. The preview counts what the same
// windows would delete now, with the same conditions, before the owner saves a shorter window.
// The analytics window (docs/adr/0059-retention-in-every-service.md) bounds the analytics aggregates,
// swept in the same round (analytics/analytics-retention.ts) and audited as its own kind.
// The clock is injected (`now`), so tests move it instead of waiting.
import { invalid } from '@parley/common/rpc-errors.ts';
import {
  MAX_RETENTION_DAYS,
  MIN_RETENTION_DAYS,
  parseRetentionDays,
  RETENTION_DAYS_INVALID,
  RETENTION_SWEEP_EVERY_MS,
  retentionCutoff,
} from '@parley/common/retention.ts';
import type { Logger } from '@parley/common/logger.ts';
import { runPeriodically } from '@parley/common/periodic.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Producer } from '@parley/common/queues.ts';
import { RetentionSweptSchema } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
import { previewAnalyticsRetention, sweepAnalyticsRetention } from '../analytics/analytics-retention.ts';

/** Conversations (or leads) deleted per statement. */
const BATCH = 1000;
export { MIN_RETENTION_DAYS, MAX_RETENTION_DAYS, RETENTION_DAYS_INVALID, RETENTION_SWEEP_EVERY_MS, parseRetentionDays };

/** A workspace's windows in days; null: kept forever. */
export interface RetentionWindows {
  conversationDays: number | null;
  leadDays: number | null;
  /** The analytics aggregates; absent: forever. */
  analyticsDays?: number | null;
}

/** What a sweep deleted, or a preview would: conversations, the messages in them, leads (with their conversation or on their own). */
export interface RetentionCounts {
  conversations: number;
  messages: number;
  leads: number;
  /** Chatbot days of analytics figures, and question groups last seen before the analytics window. */
  analyticsDays: number;
  questionGroups: number;
}

export const FOREVER: RetentionWindows = { conversationDays: null, leadDays: null, analyticsDays: null };

const cutoff = retentionCutoff;

export async function getRetentionWindows(db: PrismaClient, ownerId: string): Promise<RetentionWindows> {
  const row = await db.retentionWindow.findUnique({ where: { ownerId } });
  return row ? { conversationDays: row.conversationDays, leadDays: row.leadDays, analyticsDays: row.analyticsDays } : FOREVER;
}

export async function setRetentionWindows(db: PrismaClient, ownerId: string, windows: RetentionWindows): Promise<RetentionWindows> {
  const conversationDays = parseRetentionDays(windows.conversationDays);
  const leadDays = parseRetentionDays(windows.leadDays);
  const analyticsDays = parseRetentionDays(windows.analyticsDays);
  await db.retentionWindow.upsert({
    where: { ownerId },
    create: { ownerId, conversationDays, leadDays, analyticsDays },
    update: { conversationDays, leadDays, analyticsDays },
  });
  return { conversationDays, leadDays, analyticsDays };
}

/** What `windows` would delete of the workspace's data at `now`: the sweep's conditions, counted. */
export async function previewRetention(db: PrismaClient, ownerId: string, windows: RetentionWindows, now: Date): Promise<RetentionCounts> {
  const conversationsBefore = cutoff(now, parseRetentionDays(windows.conversationDays));
  const leadsBefore = cutoff(now, parseRetentionDays(windows.leadDays));
  const analytics = await previewAnalyticsRetention(db, ownerId, cutoff(now, parseRetentionDays(windows.analyticsDays)));
  const [row] = await db.$queryRaw<{ conversations: bigint; messages: bigint; leads: bigint }[]>`
    WITH doomed AS (
      SELECT "id" FROM "Conversation"
       WHERE "ownerId" = ${ownerId} AND ${conversationsBefore}::timestamptz IS NOT NULL AND "updatedAt" < ${conversationsBefore}::timestamptz)
    SELECT (SELECT count(*) FROM doomed) AS "conversations",
           (SELECT count(*) FROM "Message" WHERE "conversationId" IN (SELECT "id" FROM doomed)) AS "messages",
           (SELECT count(*) FROM "Lead" WHERE "ownerId" = ${ownerId}
               AND ("conversationId" IN (SELECT "id" FROM doomed)
                    OR (${leadsBefore}::timestamptz IS NOT NULL AND "createdAt" < ${leadsBefore}::timestamptz))) AS "leads"`;
  return { conversations: Number(row!.conversations), messages: Number(row!.messages), leads: Number(row!.leads), ...analytics };
}

/** Deletes what is past the workspace's windows at `now`, in batches; returns what went. */
export async function sweepWorkspace(
  db: PrismaClient,
  ownerId: string,
  windows: RetentionWindows,
  now: Date,
  batch = BATCH,
): Promise<RetentionCounts> {
  const total: RetentionCounts = { conversations: 0, messages: 0, leads: 0, analyticsDays: 0, questionGroups: 0 };
  const conversationsBefore = cutoff(now, windows.conversationDays);
  const leadsBefore = cutoff(now, windows.leadDays);
  if (conversationsBefore) {
    for (;;) {
      // The messages and the lead go with their conversation (cascade); counted in the same statement.
      const [row] = await db.$queryRaw<{ conversations: bigint; messages: bigint; leads: bigint }[]>`
        WITH doomed AS (
          SELECT "id" FROM "Conversation"
           WHERE "ownerId" = ${ownerId} AND "updatedAt" < ${conversationsBefore}::timestamptz
           LIMIT ${batch} FOR UPDATE SKIP LOCKED),
        messages AS (SELECT count(*) AS n FROM "Message" WHERE "conversationId" IN (SELECT "id" FROM doomed)),
        leads AS (SELECT count(*) AS n FROM "Lead" WHERE "conversationId" IN (SELECT "id" FROM doomed)),
        deleted AS (DELETE FROM "Conversation" WHERE "id" IN (SELECT "id" FROM doomed) RETURNING 1)
        SELECT (SELECT count(*) FROM deleted) AS "conversations", (SELECT n FROM messages) AS "messages", (SELECT n FROM leads) AS "leads"`;
      const conversations = Number(row!.conversations);
      total.conversations += conversations;
      total.messages += Number(row!.messages);
      total.leads += Number(row!.leads);
      if (conversations < batch) break;
    }
  }
  if (leadsBefore) {
    for (;;) {
      const deleted = await db.$executeRaw`
        DELETE FROM "Lead" WHERE "id" IN (
          SELECT "id" FROM "Lead" WHERE "ownerId" = ${ownerId} AND "createdAt" < ${leadsBefore}::timestamptz
           LIMIT ${batch} FOR UPDATE SKIP LOCKED)`;
      total.leads += deleted;
      if (deleted < batch) break;
    }
  }
  const analyticsBefore = cutoff(now, windows.analyticsDays ?? null);
  if (analyticsBefore) Object.assign(total, await sweepAnalyticsRetention(db, ownerId, analyticsBefore, batch));
  return total;
}

/** One sweep of every workspace with a window; `record` is told each workspace's counts when something went. */
export async function sweepRetention(
  db: PrismaClient,
  now: Date,
  record: (ownerId: string, counts: RetentionCounts) => Promise<void> | void,
  batch = BATCH,
): Promise<Map<string, RetentionCounts>> {
  const windows = await db.retentionWindow.findMany({
    where: { OR: [{ conversationDays: { not: null } }, { leadDays: { not: null } }, { analyticsDays: { not: null } }] },
  });
  const swept = new Map<string, RetentionCounts>();
  for (const w of windows) {
    const counts = await sweepWorkspace(
      db,
      w.ownerId,
      { conversationDays: w.conversationDays, leadDays: w.leadDays, analyticsDays: w.analyticsDays },
      now,
      batch,
    );
    if (counts.conversations + counts.leads + counts.analyticsDays + counts.questionGroups === 0) continue;
    swept.set(w.ownerId, counts);
    await record(w.ownerId, counts);
  }
  return swept;
}

/** Sweeps a minute after start and then every hour until the returned function is called. */
export function startRetentionSweep(
  db: PrismaClient,
  logger: Logger,
  record: (ownerId: string, counts: RetentionCounts) => Promise<void> | void,
): () => void {
  const sweep = () =>
    sweepRetention(db, new Date(), record).then(
      (swept) => {
        if (swept.size > 0) logger.info({ workspaces: swept.size }, 'retention sweep deleted what was past its windows');
      },
      (err: Error) => logger.warn({ err: err.message }, 'the retention sweep failed; the next round retries'),
    );
  return runPeriodically(sweep, { firstAfterMs: 60_000, everyMs: RETENTION_SWEEP_EVERY_MS });
}

const ownerIdOf = (raw: string): string => {
  if (!/^[\w-]{1,64}$/.test(raw)) throw invalid('owner_id is required.');
  return raw;
};
type WindowsMessage = { conversationDays?: number; leadDays?: number; analyticsDays?: number };
const windowsOf = (w: WindowsMessage | undefined): RetentionWindows => ({
  conversationDays: w?.conversationDays ?? null,
  leadDays: w?.leadDays ?? null,
  analyticsDays: w?.analyticsDays ?? null,
});
const toWindows = (w: RetentionWindows) => ({
  conversationDays: w.conversationDays ?? undefined,
  leadDays: w.leadDays ?? undefined,
  analyticsDays: w.analyticsDays ?? undefined,
});

/** The ChatService's retention methods, spread into its routes by rpc.ts; `now` is the preview's clock. */
export function retentionMethods(deps: { db: PrismaClient; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return {
    async getRetention(req: { ownerId: string }) {
      return { windows: toWindows(await getRetentionWindows(deps.db, ownerIdOf(req.ownerId))) };
    },
    async setRetention(req: { ownerId: string; windows?: WindowsMessage }) {
      return { windows: toWindows(await setRetentionWindows(deps.db, ownerIdOf(req.ownerId), windowsOf(req.windows))) };
    },
    async previewRetention(req: { ownerId: string; windows?: WindowsMessage }) {
      const c = await previewRetention(deps.db, ownerIdOf(req.ownerId), windowsOf(req.windows), now());
      return { counts: bigints(c) };
    },
  };
}

/** Tells auth what a sweep deleted of one workspace (RetentionSwept, audited once per sweep id): one event per kind that lost
 * something (conversations with their messages and leads; analytics). A failure is logged, the rows are gone already. */
export async function publishRetentionSwept(
  producer: Producer<typeof RetentionSweptSchema>,
  ownerId: string,
  counts: RetentionCounts,
  logger: Logger,
): Promise<void> {
  const kinds: [string, Partial<ReturnType<typeof bigints>>][] = [];
  if (counts.conversations + counts.messages + counts.leads > 0)
    kinds.push([
      'conversations',
      { conversations: BigInt(counts.conversations), messages: BigInt(counts.messages), leads: BigInt(counts.leads) },
    ]);
  if (counts.analyticsDays + counts.questionGroups > 0)
    kinds.push(['analytics', { analyticsDays: BigInt(counts.analyticsDays), questionGroups: BigInt(counts.questionGroups) }]);
  for (const [kind, figures] of kinds) {
    const sweepId = randomUUID();
    const event = create(RetentionSweptSchema, {
      sweepId,
      ownerId,
      service: 'chat',
      kind,
      ...figures,
      sweptAt: timestampFromDate(new Date()),
    });
    try {
      await producer.publish(event, `retention.${sweepId}`);
    } catch (err) {
      logger.warn(
        { err: (err as Error).message, ownerId, kind, ...counts },
        'publishing RetentionSwept failed: the deletion is not audited',
      );
    }
  }
}

const bigints = (c: RetentionCounts) => ({
  conversations: BigInt(c.conversations),
  messages: BigInt(c.messages),
  leads: BigInt(c.leads),
  analyticsDays: BigInt(c.analyticsDays),
  questionGroups: BigInt(c.questionGroups),
});
