// Usage detail retention in the billing service (docs/adr/0059-retention-in-every-service.md), on
// real PostgreSQL: with the clock moved (never waited for), the sweep deletes exactly the usage
// records past each workspace's window and nothing else, in batches, idempotently (a second run and
// two sweeps at once delete each record once), with the counts it reports and publishes for auth's
// audit; the preview counts what the sweep then deletes; balances, the ledger and the daily totals
// (so the usage report's totals) do not change, and a redelivered usage of a swept record is not
// debited again; the window is set and read over the RPC, 7 days to forever.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code } from '@connectrpc/connect';
import { Queue } from 'bullmq';
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { RetentionSweptSchema } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { RETENTION_DAYS_INVALID } from '@parley/common/retention.ts';
import { DEVELOPMENT_SERVICE_SECRET } from '@parley/common/service-auth.ts';
import { rpcError } from '@parley/common/testing/rpc.ts';
import { openAccount } from '../../src/core/open-account.ts';
import { parseUsage, recordUsage, recordUsageBatch } from '../../src/usage/record-usage.ts';
import {
  previewUsageRetention,
  publishUsageRetentionSwept,
  sweepUsageRetention,
  sweepUsageWorkspace,
} from '../../src/usage/usage-retention.ts';
import { logger, startBilling, type Billing } from './harness.ts';

let billing: Billing;
beforeAll(async () => {
  billing = await startBilling({ workers: false, env: { STRIPE_SECRET_KEY: '', STRIPE_API_BASE: '' } });
}, 120_000);
afterAll(async () => {
  await billing?.stop();
});

const DAY = 24 * 3600_000;
// The clock the sweep is given: a year from now, so every record made here is in its past.
const NOW = new Date(Date.now() + 365 * DAY);
const daysBefore = (days: number) => new Date(NOW.getTime() - days * DAY);
const deps = () => ({ prisma: billing.parts.prisma, initialCredit: billing.config.INITIAL_CREDIT });
const client = () =>
  createServiceClient(BillingService, billing.url, {
    credentials: { caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET },
    role: 'owner',
  });

let sequence = 0;
const input = (ownerId: string, occurredDaysAgo: number) => ({
  requestId: `ret-${ownerId}-${++sequence}`,
  ownerId,
  chatbotId: 'bot',
  chatbotName: 'Bot',
  model: 'gpt-4o-mini',
  promptTokens: 1000,
  completionTokens: 100,
  occurredAt: daysBefore(occurredDaysAgo),
});
/** Records a usage `occurredDaysAgo` before NOW through the real use case (debit, ledger, daily totals); returns its request id. */
async function used(ownerId: string, occurredDaysAgo: number): Promise<string> {
  const u = input(ownerId, occurredDaysAgo);
  await recordUsage(deps(), u);
  return u.requestId;
}

const remaining = async (ownerId: string) =>
  (await billing.parts.prisma.usageRecord.findMany({ where: { ownerId }, select: { requestId: true } })).map((r) => r.requestId).sort();

/** What money is: the balance, the ledger and the daily totals, exactly. */
async function money(ownerId: string) {
  const db = billing.parts.prisma;
  const account = await db.account.findUniqueOrThrow({ where: { ownerId } });
  const ledger = await db.creditLedgerEntry.findMany({ where: { ownerId }, orderBy: { reference: 'asc' } });
  const daily = await db.usageDaily.findMany({ where: { ownerId }, orderBy: { day: 'asc' } });
  return {
    balance: account.creditBalance.toString(),
    ledger: ledger.map((l) => `${l.reference} ${l.amount.toString()}`),
    daily: daily.map((d) => `${d.day.toISOString()} ${d.requestCount} ${d.promptCost.toString()} ${d.completionCost.toString()}`),
  };
}

describe('usage detail retention', () => {
  it('deletes exactly the records past each window, in batches, once; the preview counted them; money does not change', async () => {
    const [a, b, untouched] = ['uret-a', 'uret-b', 'uret-none'];
    for (const o of [a, b, untouched]) await openAccount(deps(), o);
    const aOld = [await used(a, 31), await used(a, 45), await used(a, 400)];
    const aKept = [await used(a, 29), await used(a, 1)];
    const bOld = [await used(b, 8)];
    const bKept = [await used(b, 6)];
    const untouchedAll = [await used(untouched, 1000)];
    await client().setUsageRetention({ ownerId: a, retention: { usageDetailDays: 30 } });
    await client().setUsageRetention({ ownerId: b, retention: { usageDetailDays: 7 } });
    const before = { a: await money(a), b: await money(b), untouched: await money(untouched) };

    // The RPC's preview runs on today's clock: of a's, only the record 400 days before NOW (35 days ago) is past 30 days yet.
    expect(Number((await client().previewUsageRetention({ ownerId: a, retention: { usageDetailDays: 30 } })).usageRecords)).toBe(1);
    expect(await previewUsageRetention(billing.parts.prisma, a, 30, NOW)).toBe(3);
    expect(await previewUsageRetention(billing.parts.prisma, b, 7, NOW)).toBe(1);
    expect(await previewUsageRetention(billing.parts.prisma, a, null, NOW)).toBe(0);

    const recorded: [string, number][] = [];
    const swept = await sweepUsageRetention(billing.parts.prisma, NOW, (ownerId, n) => void recorded.push([ownerId, n]), 2);
    expect(swept.get(a)).toBe(3);
    expect(swept.get(b)).toBe(1);
    expect(swept.has(untouched)).toBe(false);
    expect(recorded.filter(([o]) => o === a || o === b || o === untouched).sort()).toEqual([
      [a, 3],
      [b, 1],
    ]);
    expect(await remaining(a)).toEqual([...aKept].sort());
    expect(await remaining(b)).toEqual(bKept);
    expect(await remaining(untouched)).toEqual(untouchedAll);
    expect(aOld.length + bOld.length).toBe(4);

    // Balances, the ledger and the daily totals are exactly as before.
    expect({ a: await money(a), b: await money(b), untouched: await money(untouched) }).toEqual(before);

    // Again: nothing more, nothing recorded.
    const again: string[] = [];
    const second = await sweepUsageRetention(billing.parts.prisma, NOW, (ownerId) => void again.push(ownerId));
    expect([...second.keys()].filter((o) => o === a || o === b)).toEqual([]);
    expect(again.filter((o) => o === a || o === b)).toEqual([]);

    // A redelivered usage of a swept record is a duplicate: no new record, no second debit.
    const redelivered = { ...input(a, 45), requestId: aOld[1]! };
    expect(await recordUsageBatch(deps(), [parseUsage(redelivered)])).toEqual(['duplicate']);
    expect(await remaining(a)).toEqual([...aKept].sort());
    expect(await money(a)).toEqual(before.a);
  }, 120_000);

  it('two sweeps at once delete each record once', async () => {
    const owner = 'uret-race';
    await openAccount(deps(), owner);
    for (let i = 0; i < 9; i++) await used(owner, 100 + i);
    await used(owner, 1);
    const [one, two] = await Promise.all([
      sweepUsageWorkspace(billing.parts.prisma, owner, 30, NOW, 2),
      sweepUsageWorkspace(billing.parts.prisma, owner, 30, NOW, 2),
    ]);
    expect(one + two).toBe(9);
    expect((await remaining(owner)).length).toBe(1);
  }, 120_000);

  it('sets and reads the window over the RPC: 7 days to forever, anything else refused', async () => {
    const owner = 'uret-rpc';
    expect((await client().getUsageRetention({ ownerId: owner })).retention?.usageDetailDays).toBeUndefined();
    await client().setUsageRetention({ ownerId: owner, retention: { usageDetailDays: 7 } });
    expect((await client().getUsageRetention({ ownerId: owner })).retention?.usageDetailDays).toBe(7);
    for (const days of [6, 36_501, 0, -1]) {
      const err = await rpcError(client().setUsageRetention({ ownerId: owner, retention: { usageDetailDays: days } }));
      expect(err.code).toBe(Code.InvalidArgument);
      expect(err.rawMessage).toBe(RETENTION_DAYS_INVALID);
      const preview = await rpcError(client().previewUsageRetention({ ownerId: owner, retention: { usageDetailDays: days } }));
      expect(preview.code).toBe(Code.InvalidArgument);
    }
    await client().setUsageRetention({ ownerId: owner, retention: {} });
    expect((await client().getUsageRetention({ ownerId: owner })).retention?.usageDetailDays).toBeUndefined();
    // A viewer may not change the workspace's settings.
    const viewer = createServiceClient(BillingService, billing.url, {
      credentials: { caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET },
      role: 'viewer',
    });
    expect((await rpcError(viewer.setUsageRetention({ ownerId: owner, retention: { usageDetailDays: 30 } }))).code).toBe(
      Code.PermissionDenied,
    );
  }, 120_000);

  it('publishes what a sweep deleted as RetentionSwept from billing, one job per sweep', async () => {
    const producer = createProducer(billing.redis, QUEUES.retentionSwept, RetentionSweptSchema, { prefix: billing.config.QUEUE_PREFIX });
    const queue = new Queue(QUEUES.retentionSwept, { connection: billing.redis, prefix: billing.config.QUEUE_PREFIX });
    try {
      await publishUsageRetentionSwept(producer, 'uret-pub', 42, logger);
      const jobs = await queue.getJobs(['waiting', 'delayed', 'prioritized']);
      const events = jobs.map((j) => fromJson(RetentionSweptSchema, j.data as JsonValue)).filter((e) => e.ownerId === 'uret-pub');
      expect(events).toHaveLength(1);
      expect([events[0]!.ownerId, events[0]!.service, Number(events[0]!.usageRecords)]).toEqual(['uret-pub', 'billing', 42]);
      expect(jobs.find((j) => j.id === `retention.${events[0]!.sweepId}`)).toBeDefined();
    } finally {
      await queue.close();
      await producer.close();
    }
  });
});
