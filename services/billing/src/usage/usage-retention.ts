// Usage detail retention (docs/adr/0059-retention-in-every-service.md): how long a workspace keeps
// its per-message usage records (`UsageRecord`, past their occurredAt), 7 to 36,500 days or forever
// (the one rule: services/common/src/retention.ts). The sweep hard-deletes records past the window
// in batches (SKIP LOCKED: two replicas delete each row once; a second run deletes nothing). Only
// the detail goes: `UsageDaily` totals, the balance and the credit ledger stay, so reports' totals,
// balances and invoices never change, and settle_usage refuses a swept request id again by its
// ledger entry. The preview counts the sweep's very condition. The clock is injected (`now`).
import type { Logger } from '@parley/common/logger.ts';
import type { Producer } from '@parley/common/queues.ts';
import { parseRetentionDays, publishRetentionSwept, retentionCutoff, startRetentionSweep, sweepWindows } from '@parley/common/retention.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { RetentionSweptSchema } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
import type { PrismaClient } from '../generated/prisma/client.ts';

/** Usage records deleted per statement. */
const BATCH = 1000;

export async function getUsageRetention(db: PrismaClient, ownerId: string): Promise<number | null> {
  const row = await db.usageRetention.findUnique({ where: { ownerId } });
  return row?.usageDetailDays ?? null;
}

export async function setUsageRetention(db: PrismaClient, ownerId: string, days: number | null): Promise<number | null> {
  const usageDetailDays = parseRetentionDays(days);
  await db.usageRetention.upsert({ where: { ownerId }, create: { ownerId, usageDetailDays }, update: { usageDetailDays } });
  return usageDetailDays;
}

/** How many usage records a `days` window would delete of the workspace's at `now`: the sweep's condition, counted. */
export async function previewUsageRetention(db: PrismaClient, ownerId: string, days: number | null, now: Date): Promise<number> {
  const before = retentionCutoff(now, parseRetentionDays(days));
  if (!before) return 0;
  const [row] = await db.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM "UsageRecord" WHERE "userId" = ${ownerId} AND "occurredAt" < ${before}::timestamptz`;
  return Number(row!.n);
}

/** Deletes the workspace's usage records past `days` at `now`, in batches; returns how many went. */
export async function sweepUsageWorkspace(db: PrismaClient, ownerId: string, days: number, now: Date, batch = BATCH): Promise<number> {
  const before = retentionCutoff(now, days)!;
  let total = 0;
  for (;;) {
    const deleted = await db.$executeRaw`
      DELETE FROM "UsageRecord" WHERE "id" IN (
        SELECT "id" FROM "UsageRecord" WHERE "userId" = ${ownerId} AND "occurredAt" < ${before}::timestamptz
         LIMIT ${batch} FOR UPDATE SKIP LOCKED)`;
    total += deleted;
    if (deleted < batch) break;
  }
  return total;
}

/** One sweep of every workspace with a window; `record` is told each workspace's count when something went. */
export async function sweepUsageRetention(
  db: PrismaClient,
  now: Date,
  record: (ownerId: string, usageRecords: number) => Promise<void> | void,
  batch = BATCH,
): Promise<Map<string, number>> {
  const rows = await db.usageRetention.findMany({ where: { usageDetailDays: { not: null } } });
  const windows = rows.map((w) => ({ ownerId: w.ownerId, days: w.usageDetailDays! }));
  return sweepWindows(windows, (ownerId, days) => sweepUsageWorkspace(db, ownerId, days, now, batch), record);
}

/** Sweeps a minute after start and then every hour until the returned function is called. */
export function startUsageRetentionSweep(
  db: PrismaClient,
  logger: Logger,
  record: (ownerId: string, usageRecords: number) => Promise<void> | void,
): () => void {
  return startRetentionSweep(() => sweepUsageRetention(db, new Date(), record), logger, 'usage detail');
}

/** Tells auth what a sweep deleted of one workspace (RetentionSwept, audited once per sweep id). */
export const publishUsageRetentionSwept = (
  producer: Producer<typeof RetentionSweptSchema>,
  ownerId: string,
  usageRecords: number,
  logger: Logger,
): Promise<void> =>
  publishRetentionSwept(producer, { ownerId, service: 'billing', kind: 'usage_detail', usageRecords: BigInt(usageRecords) }, logger);

const ownerIdOf = (raw: string): string => {
  if (!/^[\w-]{1,64}$/.test(raw)) throw invalid('owner_id is required.');
  return raw;
};

/** The BillingService's usage retention methods, spread into its routes by rpc.ts; `now` is the preview's clock. */
export function usageRetentionMethods(deps: { prisma: PrismaClient; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return {
    async getUsageRetention(req: { ownerId: string }) {
      return { retention: { usageDetailDays: (await getUsageRetention(deps.prisma, ownerIdOf(req.ownerId))) ?? undefined } };
    },
    async setUsageRetention(req: { ownerId: string; retention?: { usageDetailDays?: number } }) {
      const days = await setUsageRetention(deps.prisma, ownerIdOf(req.ownerId), req.retention?.usageDetailDays ?? null);
      return { retention: { usageDetailDays: days ?? undefined } };
    },
    async previewUsageRetention(req: { ownerId: string; retention?: { usageDetailDays?: number } }) {
      return {
        usageRecords: BigInt(
          await previewUsageRetention(deps.prisma, ownerIdOf(req.ownerId), req.retention?.usageDetailDays ?? null, now()),
        ),
      };
    },
  };
}
