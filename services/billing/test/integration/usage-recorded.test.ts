// Usage metering across a real BullMQ queue into the real database: each answer recorded once and
// paid for exactly, whatever the duplicates, concurrency, restarts and bad events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { create, fromJson, toJson } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { UsageRecordedSchema } from '@parley/proto/parley/events/v1/usage_recorded_pb.js';
import { usageRecordedBatch } from '@parley/proto/event-batches.ts';
import { createBatchProducer, createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import { openAccount } from '../../src/core/open-account.ts';
import { recordUsage, recordUsageBatch, type ParsedUsage, type RecordUsageInput } from '../../src/usage/record-usage.ts';
import { startUsageRecordedWorker } from '../../src/usage/usage-recorded.job.ts';
import { jobSettled, logger, startBilling, type Billing } from './harness.ts';

const OCCURRED_AT = new Date('2026-03-01T12:34:56.789Z');

const event = (
  requestId: string,
  ownerId: string,
  overrides: Partial<{ promptTokens: number; completionTokens: number; model: string; provider: string }> = {},
) =>
  create(UsageRecordedSchema, {
    requestId,
    ownerId,
    chatbotId: 'chatbot-1',
    chatbotName: 'Support bot',
    model: overrides.model ?? 'gpt-4o-mini',
    promptTokens: BigInt(overrides.promptTokens ?? 1000),
    completionTokens: BigInt(overrides.completionTokens ?? 500),
    occurredAt: timestampFromDate(OCCURRED_AT),
    provider: overrides.provider ?? '',
  });

const input = (requestId: string, ownerId: string, promptTokens = 1000, completionTokens = 500): RecordUsageInput => ({
  requestId,
  ownerId,
  chatbotId: 'chatbot-1',
  chatbotName: 'Support bot',
  model: 'gpt-4o-mini',
  promptTokens,
  completionTokens,
  occurredAt: OCCURRED_AT,
});

/**
 * The expected cost in units of 10^-10 dollars, computed independently of the code under test:
 * gpt-4o-mini costs 0.15 / 1M = 1500 units per prompt token and 0.60 / 1M = 6000 per completion token.
 */
const costUnits = (promptTokens: number, completionTokens: number) => BigInt(promptTokens) * 1500n + BigInt(completionTokens) * 6000n;
const INITIAL_UNITS = 100_000_000n; // $0.01

/** Units of 10^-10 dollars as the plain decimal string formatMoney would give. */
function dollars(units: bigint): string {
  const sign = units < 0n ? '-' : '';
  const abs = units < 0n ? -units : units;
  const fraction = (abs % 10_000_000_000n).toString().padStart(10, '0').replace(/0+$/, '');
  return `${sign}${abs / 10_000_000_000n}${fraction ? `.${fraction}` : ''}`;
}

let billing: Billing;
let producer: Producer<typeof UsageRecordedSchema>;
const deps = () => ({ prisma: billing.parts.prisma, initialCredit: billing.config.INITIAL_CREDIT });

const balance = async (ownerId: string) =>
  (await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId } })).creditBalance.toFixed();

/** The balance must always be explained by the ledger. */
async function expectLedgerExplainsBalance(ownerId: string) {
  const { _sum } = await billing.parts.prisma.creditLedgerEntry.aggregate({ where: { ownerId }, _sum: { amount: true } });
  expect(_sum.amount?.toFixed()).toBe(await balance(ownerId));
}

beforeAll(async () => {
  billing = await startBilling();
  producer = createProducer(billing.redis, QUEUES.usageRecorded, UsageRecordedSchema, { prefix: billing.config.QUEUE_PREFIX });
});

afterAll(async () => {
  await producer?.close();
  await billing?.stop();
});

describe('one UsageRecorded event', () => {
  it('records the usage at the exact price and debits the new account in the same step', async () => {
    const settled = jobSettled(billing.parts.usageRecordedWorker!, 'req-one');
    await producer.publish(event('req-one', 'owner-one'), 'req-one');
    expect((await settled).state).toBe('completed');

    const record = await billing.parts.prisma.usageRecord.findUniqueOrThrow({ where: { requestId: 'req-one' } });
    expect(record).toMatchObject({
      ownerId: 'owner-one',
      chatbotId: 'chatbot-1',
      chatbotName: 'Support bot',
      model: 'gpt-4o-mini',
      promptTokens: 1000,
      completionTokens: 500,
      totalTokens: 1500,
      occurredAt: OCCURRED_AT,
    });
    expect(record.promptCost.toFixed()).toBe('0.00015');
    expect(record.completionCost.toFixed()).toBe('0.0003');
    expect(record.totalCost.toFixed()).toBe('0.00045');
    expect(record.totalCost.equals('0.00045')).toBe(true);

    // The account did not exist: it was opened with the initial credit, then debited.
    expect(await balance('owner-one')).toBe('0.00955');
    const ledger = await billing.parts.prisma.creditLedgerEntry.findMany({
      where: { ownerId: 'owner-one' },
      orderBy: { createdAt: 'asc' },
    });
    expect(ledger.map((e) => [e.reason, e.reference, e.amount.toFixed()])).toEqual(
      expect.arrayContaining([
        ['signup_credit', 'signup:owner-one', '0.01'],
        ['usage', 'usage:req-one', '-0.00045'],
      ]),
    );
    expect(ledger).toHaveLength(2);
  });

  it('names the developer API key an answer was asked through on its usage record, and none for the public chat', async () => {
    const viaKey = await recordUsage(deps(), { ...input('req-key', 'owner-key'), apiKeyId: 'key-42' });
    expect(viaKey.usageRecord.apiKeyId).toBe('key-42');
    const visitor = await recordUsage(deps(), input('req-no-key', 'owner-key'));
    expect(visitor.usageRecord.apiKeyId).toBeNull();
  });

  it('keeps the smallest amounts exact (one token) on an existing account', async () => {
    await openAccount(deps(), 'owner-tiny');
    await recordUsage(deps(), input('req-tiny-1', 'owner-tiny', 1, 0));
    expect(await balance('owner-tiny')).toBe('0.00999985');
    await recordUsage(deps(), input('req-tiny-2', 'owner-tiny', 0, 1));
    expect(await balance('owner-tiny')).toBe('0.00999925');
    const tiny = await billing.parts.prisma.usageRecord.findUniqueOrThrow({ where: { requestId: 'req-tiny-1' } });
    expect(tiny.totalCost.toFixed()).toBe('0.00000015');
    await expectLedgerExplainsBalance('owner-tiny');
  });

  it('lets the balance go negative: an answer already given is billed', async () => {
    await openAccount(deps(), 'owner-broke');
    // 100,000 completion tokens cost $0.06 against $0.01 of credit.
    const { recorded } = await recordUsage(deps(), input('req-broke', 'owner-broke', 0, 100_000));
    expect(recorded).toBe(true);
    expect(await balance('owner-broke')).toBe('-0.05');
    await expectLedgerExplainsBalance('owner-broke');
  });

  it('is exact for the largest token counts accepted', async () => {
    const { usageRecord } = await recordUsage(deps(), input('req-huge', 'owner-huge', 1_000_000_000, 1_000_000_000));
    expect(usageRecord.totalCost.toFixed()).toBe('750');
    expect(usageRecord.totalTokens).toBe(2_000_000_000);
    expect(await balance('owner-huge')).toBe('-749.99');
  });
});

describe('duplicates', () => {
  it('applies the same request id once when it is published twice, or again under another job id', async () => {
    const worker = billing.parts.usageRecordedWorker!;
    const first = jobSettled(worker, 'req-dup');
    await producer.publish(event('req-dup', 'owner-dup'), 'req-dup');
    await producer.publish(event('req-dup', 'owner-dup'), 'req-dup'); // BullMQ ignores the repeated job id
    expect((await first).state).toBe('completed');

    // The same event under another job id (e.g. republished) reaches the worker and changes nothing.
    const second = jobSettled(worker, 'req-dup.again');
    await producer.publish(event('req-dup', 'owner-dup'), 'req-dup.again');
    expect((await second).state).toBe('completed');

    expect(await billing.parts.prisma.usageRecord.count({ where: { requestId: 'req-dup' } })).toBe(1);
    expect(await balance('owner-dup')).toBe('0.00955');
    expect(await billing.parts.prisma.creditLedgerEntry.count({ where: { ownerId: 'owner-dup' } })).toBe(2);
  });

  it('applies the use case once when it is called twice', async () => {
    const first = await recordUsage(deps(), input('req-twice', 'owner-twice'));
    const again = await recordUsage(deps(), input('req-twice', 'owner-twice'));
    expect(first.recorded).toBe(true);
    expect(again.recorded).toBe(false);
    expect(again.usageRecord.id).toBe(first.usageRecord.id);
    expect(await balance('owner-twice')).toBe('0.00955');
  });

  it('applies the use case once when 20 calls for the same request id race, on an account that does not exist yet', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => recordUsage(deps(), input('req-race', 'owner-race'))));
    expect(results.filter((r) => r.recorded)).toHaveLength(1);
    expect(new Set(results.map((r) => r.usageRecord.id)).size).toBe(1);
    expect(await billing.parts.prisma.usageRecord.count({ where: { requestId: 'req-race' } })).toBe(1);
    expect(await balance('owner-race')).toBe('0.00955');
    expect(await billing.parts.prisma.creditLedgerEntry.count({ where: { ownerId: 'owner-race' } })).toBe(2);
  });
  it('applies the use case once when 20 calls for the same request id race on an existing account', async () => {
    await openAccount(deps(), 'owner-race-open');
    const results = await Promise.all(Array.from({ length: 20 }, () => recordUsage(deps(), input('req-race-open', 'owner-race-open'))));
    expect(results.filter((r) => r.recorded)).toHaveLength(1);
    expect(new Set(results.map((r) => r.usageRecord.id)).size).toBe(1);
    // What the recording call returns is the record as stored.
    const stored = await billing.parts.prisma.usageRecord.findUniqueOrThrow({ where: { requestId: 'req-race-open' } });
    expect(results.find((r) => r.recorded)!.usageRecord).toEqual(stored);
    expect(await balance('owner-race-open')).toBe('0.00955');
    expect(await billing.parts.prisma.creditLedgerEntry.count({ where: { ownerId: 'owner-race-open' } })).toBe(2);
    await expectLedgerExplainsBalance('owner-race-open');
  });
});

describe('many events', () => {
  it('200 distinct events published at once are all recorded, and the balance drops by exactly their sum', async () => {
    const owner = 'owner-many';
    const usages = Array.from({ length: 200 }, (_, i) => ({
      requestId: `req-many-${i}`,
      promptTokens: 1000 + i * 37,
      completionTokens: 1 + i * 11,
    }));
    await Promise.all(usages.map((u) => producer.publish(event(u.requestId, owner, u), u.requestId)));

    await expect.poll(() => billing.parts.prisma.usageRecord.count({ where: { ownerId: owner } }), { timeout: 20_000 }).toBe(200);
    const spent = usages.reduce((sum, u) => sum + costUnits(u.promptTokens, u.completionTokens), 0n);
    expect(await balance(owner)).toBe(dollars(INITIAL_UNITS - spent));
    const total = await billing.parts.prisma.usageRecord.aggregate({ where: { ownerId: owner }, _sum: { totalCost: true } });
    expect(total._sum.totalCost?.toFixed()).toBe(dollars(spent));
    expect(await billing.parts.prisma.creditLedgerEntry.count({ where: { ownerId: owner, reason: 'usage' } })).toBe(200);
    await expectLedgerExplainsBalance(owner);
  });

  it('loses and repeats nothing when the worker stops midway and is started again', async () => {
    const owner = 'owner-restart';
    const usages = Array.from({ length: 40 }, (_, i) => ({
      requestId: `req-restart-${i}`,
      promptTokens: 2000 + i,
      completionTokens: 300 + i,
    }));
    const slowRecord = async (batch: ParsedUsage[]) => {
      await new Promise((r) => setTimeout(r, 40));
      return recordUsageBatch(deps(), batch);
    };
    const count = () => billing.parts.prisma.usageRecord.count({ where: { ownerId: owner } });

    // The service's own worker stands aside so the test controls who takes the jobs.
    await billing.parts.usageRecordedWorker!.pause();
    const start = () =>
      startUsageRecordedWorker({
        redis: billing.redis,
        logger,
        prefix: billing.config.QUEUE_PREFIX,
        recordUsageBatch: slowRecord,
        concurrency: 2,
      });
    const first = start();
    let second: ReturnType<typeof start> | undefined;
    try {
      for (const u of usages) await producer.publish(event(u.requestId, owner, u), u.requestId);
      await expect.poll(count, { timeout: 15_000, interval: 20 }).toBeGreaterThanOrEqual(usages.length / 2);
      await first.close(); // waits for the jobs in flight
      const before = await count();
      expect(before).toBeLessThan(usages.length); // stopped midway: the rest waits in the queue

      second = start();
      await expect.poll(count, { timeout: 15_000 }).toBe(usages.length);
      const spent = usages.reduce((sum, u) => sum + costUnits(u.promptTokens, u.completionTokens), 0n);
      expect(await balance(owner)).toBe(dollars(INITIAL_UNITS - spent));
      expect(await billing.parts.prisma.creditLedgerEntry.count({ where: { ownerId: owner, reason: 'usage' } })).toBe(usages.length);
    } finally {
      await first.close();
      await second?.close();
      billing.parts.usageRecordedWorker!.resume();
    }
  });

  it('retries a job whose database step failed, and applies it once', async () => {
    await billing.parts.usageRecordedWorker!.pause();
    let calls = 0;
    const flaky = async (batch: ParsedUsage[]) => {
      if (++calls === 1) throw new Error('Connection terminated unexpectedly');
      return recordUsageBatch(deps(), batch);
    };
    const worker = startUsageRecordedWorker({ redis: billing.redis, logger, prefix: billing.config.QUEUE_PREFIX, recordUsageBatch: flaky });
    try {
      const failedOnce = jobSettled(worker, 'req-flaky');
      const completed = new Promise<number>((resolve) =>
        worker.on('completed', (job) => job.id === 'req-flaky' && resolve(job.attemptsMade)),
      );
      await producer.publish(event('req-flaky', 'owner-flaky'), 'req-flaky');
      expect((await failedOnce).state).toBe('failed'); // the first attempt, scheduled again with backoff
      expect(await completed).toBe(2);
      expect(calls).toBe(2);
      expect(await balance('owner-flaky')).toBe('0.00955');
    } finally {
      await worker.close();
      billing.parts.usageRecordedWorker!.resume();
    }
  });
});

describe('batches of events (as the chat service publishes them)', () => {
  const batchProducer = () =>
    createBatchProducer(billing.redis, QUEUES.usageRecorded, usageRecordedBatch, {
      prefix: billing.config.QUEUE_PREFIX,
      waitMs: 60_000,
      maxEvents: 100,
      logger,
    });

  it('applies each event of a batch once, and a batch delivered again, or an event also published alone, changes nothing', async () => {
    const events = [
      event('req-batch-1', 'owner-batch'),
      event('req-batch-2', 'owner-batch', { promptTokens: 7 }),
      event('req-batch-3', 'owner-batch-2'),
    ];
    const queue = new Queue(QUEUES.usageRecorded, { connection: billing.redis, prefix: billing.config.QUEUE_PREFIX });
    try {
      const batches = batchProducer();
      events.forEach((e) => batches.publish(e, e.requestId));
      await batches.close();
      const [job] = (await queue.getJobs(['waiting', 'active', 'completed'])).filter((j) => j.name === usageRecordedBatch.schema.typeName);
      expect(job).toBeDefined();
      expect(usageRecordedBatch.unwrap(fromJson(usageRecordedBatch.schema, job.data)).map((u) => u.requestId)).toEqual(
        events.map((e) => e.requestId),
      );
      for (let state = ''; state !== 'completed'; await new Promise((r) => setTimeout(r, 20))) {
        state = await queue.getJobState(job.id!);
        expect(state).not.toBe('failed');
      }

      // The same batch under another job id, and one of its events alone.
      const again = jobSettled(billing.parts.usageRecordedWorker!, 'batch-again');
      await queue.add(job.name, job.data, { jobId: 'batch-again' });
      expect((await again).state).toBe('completed');
      const alone = jobSettled(billing.parts.usageRecordedWorker!, 'req-batch-2.alone');
      await producer.publish(events[1], 'req-batch-2.alone');
      expect((await alone).state).toBe('completed');
    } finally {
      await queue.close();
    }
    for (const e of events) expect(await billing.parts.prisma.usageRecord.count({ where: { requestId: e.requestId } })).toBe(1);
    expect(await balance('owner-batch')).toBe(dollars(INITIAL_UNITS - costUnits(1000, 500) - costUnits(7, 500)));
    expect(await balance('owner-batch-2')).toBe(dollars(INITIAL_UNITS - costUnits(1000, 500)));
    await expectLedgerExplainsBalance('owner-batch');
    await expectLedgerExplainsBalance('owner-batch-2');
  });

  it('applies the other events of a batch when one can never be applied, and completes the job', async () => {
    await openAccount(deps(), 'owner-batch-bad');
    const queue = new Queue(QUEUES.usageRecorded, { connection: billing.redis, prefix: billing.config.QUEUE_PREFIX });
    try {
      const data = usageRecordedBatch.wrap([
        event('req-batch-ok', 'owner-batch-bad'),
        event('req-batch-bad-provider', 'owner-batch-bad', { provider: 'mistral' }),
      ]);
      const settled = jobSettled(billing.parts.usageRecordedWorker!, 'batch-with-bad');
      await queue.add(usageRecordedBatch.schema.typeName, toJson(usageRecordedBatch.schema, data) as object, { jobId: 'batch-with-bad' });
      expect((await settled).state).toBe('completed');
    } finally {
      await queue.close();
    }
    expect(await billing.parts.prisma.usageRecord.count({ where: { requestId: 'req-batch-ok' } })).toBe(1);
    expect(await billing.parts.prisma.usageRecord.count({ where: { requestId: 'req-batch-bad-provider' } })).toBe(0);
    expect(await balance('owner-batch-bad')).toBe(dollars(INITIAL_UNITS - costUnits(1000, 500)));
    await expectLedgerExplainsBalance('owner-batch-bad');
  });

  it('fails a batch job whose payload is not a batch without retrying, and debits nothing', async () => {
    const queue = new Queue(QUEUES.usageRecorded, { connection: billing.redis, prefix: billing.config.QUEUE_PREFIX });
    try {
      const settled = jobSettled(billing.parts.usageRecordedWorker!, 'batch-garbage');
      await queue.add(usageRecordedBatch.schema.typeName, { usages: 'lots' }, { jobId: 'batch-garbage', attempts: 5 });
      const { state, job, error } = await settled;
      expect(state).toBe('failed');
      expect(error?.name).toBe('UnrecoverableError');
      expect(error?.message).toMatch(/invalid parley.events.v1.UsageRecordedBatch payload/);
      expect(job.attemptsMade).toBe(1);
    } finally {
      await queue.close();
    }
  });
});

describe('events that cannot be applied', () => {
  it('fails a job whose payload is not a UsageRecorded without retrying, and debits nothing', async () => {
    await openAccount(deps(), 'owner-bad');
    const queue = new Queue(QUEUES.usageRecorded, { connection: billing.redis, prefix: billing.config.QUEUE_PREFIX });
    try {
      const settled = jobSettled(billing.parts.usageRecordedWorker!, 'req-garbage');
      await queue.add(
        'parley.events.v1.UsageRecorded',
        { requestId: 'req-garbage', ownerId: 'owner-bad', promptTokens: 'lots' },
        { jobId: 'req-garbage', attempts: 5 },
      );
      const { state, job, error } = await settled;
      expect(state).toBe('failed');
      expect(error?.name).toBe('UnrecoverableError');
      expect(error?.message).toMatch(/invalid parley.events.v1.UsageRecorded payload/);
      expect(job.attemptsMade).toBe(1);
    } finally {
      await queue.close();
    }
    expect(await billing.parts.prisma.usageRecord.count({ where: { requestId: 'req-garbage' } })).toBe(0);
    expect(await balance('owner-bad')).toBe('0.01');
  });

  it.each([
    ['an unknown provider', { provider: 'mistral' }, /provider must be one of openai, anthropic, gemini/],
    ['negative prompt tokens', { promptTokens: -5n }, /prompt_tokens must be a whole number/],
    ['too many completion tokens', { completionTokens: 1_000_000_001n }, /completion_tokens must be a whole number/],
    ['an empty request id', { requestId: '' }, /request_id is required/],
    ['an empty owner id', { ownerId: ' ' }, /owner_id is required/],
    ['an empty model', { model: '' }, /model is required/],
    ['no occurred_at', { occurredAt: undefined }, /occurred_at is required/],
  ])('fails an event with %s at once, records nothing and debits nothing', async (label, overrides, message) => {
    const jobId = `req-bad-${label.replace(/\W+/g, '-')}`;
    const bad = { ...event(jobId, 'owner-bad'), ...overrides };
    const settled = jobSettled(billing.parts.usageRecordedWorker!, jobId);
    await producer.publish(bad, jobId);
    const { state, job, error } = await settled;
    expect(state).toBe('failed');
    expect(error?.name).toBe('UnrecoverableError');
    expect(error?.message).toMatch(message);
    expect(job.attemptsMade).toBe(1);
    expect(await billing.parts.prisma.usageRecord.count({ where: { requestId: bad.requestId } })).toBe(0);
    expect(await balance('owner-bad')).toBe('0.01');
    expect(await billing.parts.prisma.creditLedgerEntry.count({ where: { ownerId: 'owner-bad' } })).toBe(1);
  });

  it('opens no account for an event it refuses', async () => {
    await expect(recordUsage(deps(), { ...input('req-nobody', 'owner-nobody'), provider: 'mistral' })).rejects.toThrow(
      /provider must be one of/,
    );
    expect(await billing.parts.prisma.account.count({ where: { ownerId: 'owner-nobody' } })).toBe(0);
  });
});

describe('wiring', () => {
  it('starts no UsageRecorded worker when workers are off', async () => {
    const quiet = await startBilling({ workers: false });
    try {
      expect(quiet.parts.usageRecordedWorker).toBeUndefined();
      expect(quiet.parts.userRegisteredWorker).toBeUndefined();
    } finally {
      await quiet.stop();
    }
  });
});
