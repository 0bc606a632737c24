// The one rule of a retention window (docs/adr/0048-retention-windows.md, docs/adr/0059-retention-in-every-service.md):
// 7 to 36,500 days, or forever (null). Every service that holds a workspace's data keeps its own
// windows with that data and checks them here.
import { randomUUID } from 'node:crypto';
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { RetentionSweptSchema } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
import type { Logger } from './logger.ts';
import { runPeriodically } from './periodic.ts';
import type { Producer } from './queues.ts';
import { invalid } from './rpc-errors.ts';

export const MIN_RETENTION_DAYS = 7;
export const MAX_RETENTION_DAYS = 36_500;
export const RETENTION_DAYS_INVALID = `A retention window is ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS.toLocaleString('en-US')} days, or forever.`;
const DAY_MS = 24 * 3600_000;
/** How often each service sweeps what is past its windows. */
export const RETENTION_SWEEP_EVERY_MS = 3600_000;

/** A window in days, checked; null or undefined: forever. INVALID_ARGUMENT otherwise. */
export function parseRetentionDays(days: number | null | undefined): number | null {
  if (days === null || days === undefined) return null;
  if (!Number.isInteger(days) || days < MIN_RETENTION_DAYS || days > MAX_RETENTION_DAYS) throw invalid(RETENTION_DAYS_INVALID);
  return days;
}

/** The moment before which a `days` window deletes at `now` (ISO), or null for forever. */
export const retentionCutoff = (now: Date, days: number | null): string | null =>
  days === null ? null : new Date(now.getTime() - days * DAY_MS).toISOString();

/**
 * One sweep of every workspace with a window: `sweepOne` deletes what is past it (in batches, SKIP
 * LOCKED, so two replicas delete each row once); `record` is told each workspace's count when
 * something went. Resolves to those counts by workspace.
 */
export async function sweepWindows(
  windows: { ownerId: string; days: number }[],
  sweepOne: (ownerId: string, days: number) => Promise<number>,
  record: (ownerId: string, deleted: number) => Promise<void> | void,
): Promise<Map<string, number>> {
  const swept = new Map<string, number>();
  for (const w of windows) {
    const n = await sweepOne(w.ownerId, w.days);
    if (n === 0) continue;
    swept.set(w.ownerId, n);
    await record(w.ownerId, n);
  }
  return swept;
}

/**
 * Runs `sweep` a minute after start and then every RETENTION_SWEEP_EVERY_MS until the returned
 * function is called; a round that fails is logged and the next one retries. `what` names what is
 * swept in the log ("usage detail", "webhook deliveries").
 */
export function startRetentionSweep(sweep: () => Promise<Map<string, number>>, logger: Logger, what: string): () => void {
  const round = () =>
    sweep().then(
      (swept) => {
        if (swept.size > 0) logger.info({ workspaces: swept.size }, `retention sweep deleted the ${what} past their windows`);
      },
      (err: Error) => logger.warn({ err: err.message }, `the ${what} retention sweep failed; the next round retries`),
    );
  return runPeriodically(round, { firstAfterMs: 60_000, everyMs: RETENTION_SWEEP_EVERY_MS });
}

/**
 * Tells auth what a sweep deleted of one workspace (RetentionSwept, audited once per sweep id). A
 * failure is logged: the rows are gone already, only the audit entry is missing.
 */
export async function publishRetentionSwept(
  producer: Producer<typeof RetentionSweptSchema>,
  swept: Omit<MessageInitShape<typeof RetentionSweptSchema>, 'sweepId' | 'sweptAt' | '$typeName'> & { ownerId: string },
  logger: Logger,
): Promise<void> {
  const sweepId = randomUUID();
  const event = create(RetentionSweptSchema, { ...swept, sweepId, sweptAt: timestampFromDate(new Date()) });
  try {
    await producer.publish(event, `retention.${sweepId}`);
  } catch (err) {
    logger.warn(
      { err: (err as Error).message, ownerId: swept.ownerId, kind: swept.kind },
      'publishing RetentionSwept failed: the deletion is not audited',
    );
  }
}
