// The UserRegistered flow across a real BullMQ queue into the real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { create } from '@bufbuild/protobuf';
import { timestampNow } from '@bufbuild/protobuf/wkt';
import { UserRegisteredSchema } from '@parley/proto/parley/events/v1/user_registered_pb.js';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import { openAccount } from '../../src/core/open-account.ts';
import { startUserRegisteredWorker } from '../../src/accounts/user-registered.job.ts';
import { counts, jobSettled, logger, startBilling, type Billing } from './harness.ts';

const event = (ownerId: string) =>
  create(UserRegisteredSchema, { userId: ownerId, email: `${ownerId}@example.com`, name: 'Ada', occurredAt: timestampNow() });

let billing: Billing;
let producer: Producer<typeof UserRegisteredSchema>;

beforeAll(async () => {
  billing = await startBilling();
  producer = createProducer(billing.redis, QUEUES.userRegistered, UserRegisteredSchema, { prefix: billing.config.QUEUE_PREFIX });
});

afterAll(async () => {
  await producer?.close();
  await billing?.stop();
});

describe('UserRegistered', () => {
  it('opens a free account with exactly the initial credit and its ledger entry', async () => {
    const worker = billing.parts.userRegisteredWorker!;
    const settled = jobSettled(worker, 'user-registered.u-1');
    await producer.publish(event('u-1'), 'user-registered.u-1');
    expect((await settled).state).toBe('completed');

    const account = await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: 'u-1' } });
    expect(account.plan).toBe('free');
    expect(account.creditBalance.toFixed()).toBe('0.01');
    expect(account.creditBalance.equals('0.01')).toBe(true);
    expect(account.stripeCustomerId).toBeNull();
    const ledger = await billing.parts.prisma.creditLedgerEntry.findMany({ where: { ownerId: 'u-1' } });
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ reason: 'signup_credit', reference: 'signup:u-1' });
    expect(ledger[0].amount.toFixed()).toBe('0.01');
  });

  it('applies a duplicated event once, whether it repeats the job id or not', async () => {
    const worker = billing.parts.userRegisteredWorker!;
    const first = jobSettled(worker, 'user-registered.u-2');
    await producer.publish(event('u-2'), 'user-registered.u-2');
    await producer.publish(event('u-2'), 'user-registered.u-2'); // BullMQ ignores the repeated id
    expect((await first).state).toBe('completed');

    // The same event delivered again under another id (e.g. republished by auth) reaches the worker.
    const second = jobSettled(worker, 'user-registered.u-2.redelivered');
    await producer.publish(event('u-2'), 'user-registered.u-2.redelivered');
    expect((await second).state).toBe('completed');

    expect(await counts(billing.parts, 'u-2')).toEqual({ accounts: 1, ledgerEntries: 1 });
    const account = await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: 'u-2' } });
    expect(account.creditBalance.toFixed()).toBe('0.01');
  });

  it('fails a job whose payload is not a UserRegistered, without retrying, and creates nothing', async () => {
    const worker = billing.parts.userRegisteredWorker!;
    const queue = new Queue(QUEUES.userRegistered, { connection: billing.redis, prefix: billing.config.QUEUE_PREFIX });
    try {
      const settled = jobSettled(worker, 'user-registered.bad');
      await queue.add(
        'parley.events.v1.UserRegistered',
        { ownerId: 42, unknownField: true },
        { jobId: 'user-registered.bad', attempts: 5 },
      );
      const { state, job, error } = await settled;
      expect(state).toBe('failed');
      expect(error?.name).toBe('UnrecoverableError');
      expect(error?.message).toMatch(/invalid parley.events.v1.UserRegistered payload/);
      expect(job.attemptsMade).toBe(1);
      expect(await queue.getJobState('user-registered.bad')).toBe('failed');
      expect(await billing.parts.prisma.account.count({ where: { ownerId: '42' } })).toBe(0);
    } finally {
      await queue.close();
    }
  });

  it('fails an event with an empty user id without retrying, and creates nothing', async () => {
    const worker = billing.parts.userRegisteredWorker!;
    const before = await billing.parts.prisma.account.count();
    const settled = jobSettled(worker, 'user-registered.empty');
    await producer.publish(event(''), 'user-registered.empty');
    const { state, job, error } = await settled;
    expect(state).toBe('failed');
    expect(error?.message).toMatch(/user_id is required/);
    expect(job.attemptsMade).toBe(1);
    expect(await billing.parts.prisma.account.count()).toBe(before);
    expect(await billing.parts.prisma.creditLedgerEntry.count({ where: { ownerId: '' } })).toBe(0);
  });
});

describe('graceful stop', () => {
  const deps = () => ({ prisma: billing.parts.prisma, initialCredit: billing.config.INITIAL_CREDIT });

  it('lets the job in flight finish before the worker closes', async () => {
    let entered!: () => void;
    const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // A second worker on the same queue whose use case is held open by the test.
    await billing.parts.userRegisteredWorker!.pause();
    const worker = startUserRegisteredWorker({
      redis: billing.redis,
      logger,
      prefix: billing.config.QUEUE_PREFIX,
      openAccount: async (ownerId) => {
        entered();
        await gate;
        return openAccount(deps(), ownerId);
      },
    });
    try {
      const settled = jobSettled(worker, 'user-registered.slow');
      await producer.publish(event('slow'), 'user-registered.slow');
      await handlerEntered;

      let closed = false;
      const closing = worker.close().then(() => (closed = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(closed).toBe(false); // still waiting for the job in flight
      release();
      await closing;
      expect((await settled).state).toBe('completed');
      expect(await counts(billing.parts, 'slow')).toEqual({ accounts: 1, ledgerEntries: 1 });
    } finally {
      release();
      await worker.close();
      billing.parts.userRegisteredWorker!.resume();
    }
  });

  it('loses no job when a worker stops midway and a new one takes over', async () => {
    await billing.parts.userRegisteredWorker!.pause();
    const ids = Array.from({ length: 12 }, (_, i) => `batch-${i}`);
    const slowOpen = async (ownerId: string) => {
      await new Promise((r) => setTimeout(r, 50));
      return openAccount(deps(), ownerId);
    };
    const first = startUserRegisteredWorker({
      redis: billing.redis,
      logger,
      prefix: billing.config.QUEUE_PREFIX,
      openAccount: slowOpen,
      concurrency: 2,
    });
    let second: ReturnType<typeof startUserRegisteredWorker> | undefined;
    try {
      const firstDone = jobSettled(first, `user-registered.${ids[0]}`);
      for (const id of ids) await producer.publish(event(id), `user-registered.${id}`);
      await firstDone;
      await first.close();
      const before = await billing.parts.prisma.account.count({ where: { ownerId: { in: ids } } });
      expect(before).toBeGreaterThan(0);
      expect(before).toBeLessThan(ids.length); // stopped midway: the rest waits in the queue

      second = startUserRegisteredWorker({
        redis: billing.redis,
        logger,
        prefix: billing.config.QUEUE_PREFIX,
        openAccount: slowOpen,
        concurrency: 2,
      });
      await expect
        .poll(() => billing.parts.prisma.account.count({ where: { ownerId: { in: ids } } }), { timeout: 15_000 })
        .toBe(ids.length);
      expect(await billing.parts.prisma.creditLedgerEntry.count({ where: { ownerId: { in: ids } } })).toBe(ids.length);
    } finally {
      await first.close();
      await second?.close();
      billing.parts.userRegisteredWorker!.resume();
    }
  });
});
