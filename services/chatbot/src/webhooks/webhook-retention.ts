// Webhook delivery retention (docs/adr/0059-retention-in-every-service.md): how long a workspace keeps
// its delivery log, 7 to 36,500 days or forever (the one rule: services/common/src/retention.ts). A
// delivery is past the window when its last attempt (or, never attempted, its creation) is; one
// still pending (being retried, or redelivered) is kept until it ends. The sweep hard-deletes in
// batches (the attempts go with their delivery: ON DELETE CASCADE; SKIP LOCKED: two replicas delete
// each row once; a second run deletes nothing); the preview counts the sweep's very condition. The
// clock is injected (`now`), so tests move it instead of waiting.
import type { Logger } from '@parley/common/logger.ts';
import type { Producer } from '@parley/common/queues.ts';
import { parseRetentionDays, publishRetentionSwept, retentionCutoff, startRetentionSweep, sweepWindows } from '@parley/common/retention.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { RetentionSweptSchema } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
import type { PrismaClient } from '../generated/prisma/client.ts';

/** Deliveries deleted per statement. */
const BATCH = 1000;

export async function getWebhookRetention(db: PrismaClient, ownerId: string): Promise<number | null> {
  const row = await db.webhookRetention.findUnique({ where: { ownerId } });
  return row?.deliveryDays ?? null;
}

export async function setWebhookRetention(db: PrismaClient, ownerId: string, days: number | null): Promise<number | null> {
  const deliveryDays = parseRetentionDays(days);
  await db.webhookRetention.upsert({ where: { ownerId }, create: { ownerId, deliveryDays }, update: { deliveryDays } });
  return deliveryDays;
}

/** How many deliveries a `days` window would delete of the workspace's at `now`: the sweep's condition, counted. */
export async function previewWebhookRetention(db: PrismaClient, ownerId: string, days: number | null, now: Date): Promise<number> {
  const before = retentionCutoff(now, parseRetentionDays(days));
  if (!before) return 0;
  const [row] = await db.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM "WebhookDelivery" AS d JOIN "WebhookEndpoint" AS e ON e."id" = d."endpointId"
     WHERE e."ownerId" = ${ownerId} AND d."status" <> 'pending'
       AND coalesce(d."lastAttemptAt", d."createdAt") < ${before}::timestamptz`;
  return Number(row!.n);
}

/** Deletes the workspace's deliveries past `days` at `now`, in batches; returns how many went. */
export async function sweepWebhookWorkspace(db: PrismaClient, ownerId: string, days: number, now: Date, batch = BATCH): Promise<number> {
  const before = retentionCutoff(now, days)!;
  let total = 0;
  for (;;) {
    const deleted = await db.$executeRaw`
      DELETE FROM "WebhookDelivery" WHERE "id" IN (
        SELECT d."id" FROM "WebhookDelivery" AS d
         WHERE d."endpointId" IN (SELECT e."id" FROM "WebhookEndpoint" AS e WHERE e."ownerId" = ${ownerId})
           AND d."status" <> 'pending' AND coalesce(d."lastAttemptAt", d."createdAt") < ${before}::timestamptz
         LIMIT ${batch} FOR UPDATE SKIP LOCKED)`;
    total += deleted;
    if (deleted < batch) break;
  }
  return total;
}

/** One sweep of every workspace with a window; `record` is told each workspace's count when something went. */
export async function sweepWebhookRetention(
  db: PrismaClient,
  now: Date,
  record: (ownerId: string, deliveries: number) => Promise<void> | void,
  batch = BATCH,
): Promise<Map<string, number>> {
  const rows = await db.webhookRetention.findMany({ where: { deliveryDays: { not: null } } });
  const windows = rows.map((w) => ({ ownerId: w.ownerId, days: w.deliveryDays! }));
  return sweepWindows(windows, (ownerId, days) => sweepWebhookWorkspace(db, ownerId, days, now, batch), record);
}

/** Sweeps a minute after start and then every hour until the returned function is called. */
export function startWebhookRetentionSweep(
  db: PrismaClient,
  logger: Logger,
  record: (ownerId: string, deliveries: number) => Promise<void> | void,
): () => void {
  return startRetentionSweep(() => sweepWebhookRetention(db, new Date(), record), logger, 'webhook deliveries');
}

/** Tells auth what a sweep deleted of one workspace (RetentionSwept, audited once per sweep id). */
export const publishWebhookRetentionSwept = (
  producer: Producer<typeof RetentionSweptSchema>,
  ownerId: string,
  deliveries: number,
  logger: Logger,
): Promise<void> =>
  publishRetentionSwept(
    producer,
    { ownerId, service: 'chatbot', kind: 'webhook_deliveries', webhookDeliveries: BigInt(deliveries) },
    logger,
  );

const ownerIdOf = (raw: string): string => {
  if (!/^[\w-]{1,64}$/.test(raw)) throw invalid('owner_id is required.');
  return raw;
};

/** The WebhookService's retention methods, spread into its routes by rpc.ts; `now` is the preview's clock. */
export function webhookRetentionMethods(deps: { db: PrismaClient; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return {
    async getWebhookRetention(req: { ownerId: string }) {
      return { retention: { deliveryDays: (await getWebhookRetention(deps.db, ownerIdOf(req.ownerId))) ?? undefined } };
    },
    async setWebhookRetention(req: { ownerId: string; retention?: { deliveryDays?: number } }) {
      const days = await setWebhookRetention(deps.db, ownerIdOf(req.ownerId), req.retention?.deliveryDays ?? null);
      return { retention: { deliveryDays: days ?? undefined } };
    },
    async previewWebhookRetention(req: { ownerId: string; retention?: { deliveryDays?: number } }) {
      return {
        webhookDeliveries: BigInt(
          await previewWebhookRetention(deps.db, ownerIdOf(req.ownerId), req.retention?.deliveryDays ?? null, now()),
        ),
      };
    },
  };
}
