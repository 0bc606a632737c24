// Webhook delivery retention (docs/adr/0059-retention-in-every-service.md): how long a workspace keeps
// its delivery log, 7 to 36,500 days or forever (the one rule: services/common/src/retention.ts). A
// delivery is past the window when its last attempt (or, never attempted, its creation) is; one
// still pending (being retried, or redelivered) is kept until it ends. The sweep hard-deletes in
// batches (the attempts go with their delivery: ON DELETE CASCADE; SKIP LOCKED: two replicas delete
// each row once; a second run deletes nothing); the preview counts the sweep's very condition. The
// clock is injected (`now`), so tests move it instead of waiting.
import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Logger } from '@parley/common/logger.ts';
import { runPeriodically } from '@parley/common/periodic.ts';
import type { Producer } from '@parley/common/queues.ts';
import { parseRetentionDays, RETENTION_SWEEP_EVERY_MS, retentionCutoff } from '@parley/common/retention.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { RetentionSweptSchema } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
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
  const windows = await db.webhookRetention.findMany({ where: { deliveryDays: { not: null } } });
  const swept = new Map<string, number>();
  for (const w of windows) {
    const n = await sweepWebhookWorkspace(db, w.ownerId, w.deliveryDays!, now, batch);
    if (n === 0) continue;
    swept.set(w.ownerId, n);
    await record(w.ownerId, n);
  }
  return swept;
}

/** Sweeps a minute after start and then every hour until the returned function is called. */
export function startWebhookRetentionSweep(
  db: PrismaClient,
  logger: Logger,
  record: (ownerId: string, deliveries: number) => Promise<void> | void,
): () => void {
  const sweep = () =>
    sweepWebhookRetention(db, new Date(), record).then(
      (swept) => {
        if (swept.size > 0) logger.info({ workspaces: swept.size }, 'webhook retention sweep deleted the deliveries past their windows');
      },
      (err: Error) => logger.warn({ err: err.message }, 'the webhook retention sweep failed; the next round retries'),
    );
  return runPeriodically(sweep, { firstAfterMs: 60_000, everyMs: RETENTION_SWEEP_EVERY_MS });
}

/** Tells auth what a sweep deleted of one workspace (RetentionSwept, audited once per sweep id); a failure is logged, the rows are gone already. */
export async function publishWebhookRetentionSwept(
  producer: Producer<typeof RetentionSweptSchema>,
  ownerId: string,
  deliveries: number,
  logger: Logger,
): Promise<void> {
  const sweepId = randomUUID();
  const event = create(RetentionSweptSchema, {
    sweepId,
    ownerId,
    service: 'chatbot',
    kind: 'webhook_deliveries',
    webhookDeliveries: BigInt(deliveries),
    sweptAt: timestampFromDate(new Date()),
  });
  try {
    await producer.publish(event, `retention.${sweepId}`);
  } catch (err) {
    logger.warn({ err: (err as Error).message, ownerId, deliveries }, 'publishing RetentionSwept failed: the deletion is not audited');
  }
}

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
