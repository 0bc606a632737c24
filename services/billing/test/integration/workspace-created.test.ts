// The WorkspaceCreated flow across a real BullMQ queue into the real database: a workspace's account
// opens on the free plan without the starting credit, once, and never for a deleted workspace.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { timestampNow } from '@bufbuild/protobuf/wkt';
import { WorkspaceCreatedSchema } from '@parley/proto/parley/events/v1/workspace_created_pb.js';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import { openAccount } from '../../src/core/open-account.ts';
import { counts, jobSettled, startBilling, type Billing } from './harness.ts';

const event = (workspaceId: string) => create(WorkspaceCreatedSchema, { workspaceId, ownerUserId: 'owner-1', occurredAt: timestampNow() });

let billing: Billing;
let producer: Producer<typeof WorkspaceCreatedSchema>;

beforeAll(async () => {
  billing = await startBilling();
  producer = createProducer(billing.redis, QUEUES.workspaceCreated, WorkspaceCreatedSchema, { prefix: billing.config.QUEUE_PREFIX });
});

afterAll(async () => {
  await producer?.close();
  await billing?.stop();
});

describe('WorkspaceCreated', () => {
  it('opens a free account without the starting credit', async () => {
    const worker = billing.parts.workspaceCreatedWorker!;
    const settled = jobSettled(worker, 'workspace-created.w-1');
    await producer.publish(event('w-1'), 'workspace-created.w-1');
    expect((await settled).state).toBe('completed');

    const account = await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: 'w-1' } });
    expect(account.plan).toBe('free');
    expect(account.creditBalance.toFixed()).toBe('0');
    expect(await counts(billing.parts, 'w-1')).toEqual({ accounts: 1, ledgerEntries: 0 });
  });

  it('applies a redelivered event once', async () => {
    const worker = billing.parts.workspaceCreatedWorker!;
    for (const jobId of ['workspace-created.w-2', 'workspace-created.w-2.redelivered']) {
      const settled = jobSettled(worker, jobId);
      await producer.publish(event('w-2'), jobId);
      expect((await settled).state).toBe('completed');
    }
    expect(await counts(billing.parts, 'w-2')).toEqual({ accounts: 1, ledgerEntries: 0 });
  });

  it('takes back the starting credit of an account a read opened before the event, once', async () => {
    // GetAccount before the event opens the account as a person's, with the starting credit.
    await openAccount({ prisma: billing.parts.prisma, initialCredit: '0.01' }, 'w-4');
    for (const jobId of ['workspace-created.w-4', 'workspace-created.w-4.redelivered']) {
      const settled = jobSettled(billing.parts.workspaceCreatedWorker!, jobId);
      await producer.publish(event('w-4'), jobId);
      expect((await settled).state).toBe('completed');
    }
    const account = await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: 'w-4' } });
    expect(account.creditBalance.toFixed()).toBe('0');
    const ledger = await billing.parts.prisma.creditLedgerEntry.findMany({ where: { ownerId: 'w-4' }, orderBy: { createdAt: 'asc' } });
    expect(ledger.map((e) => [e.reason, e.amount.toFixed()])).toEqual([
      ['signup_credit', '0.01'],
      ['workspace_signup_credit_reversed', '-0.01'],
    ]);
  });

  it('takes back only what is left of a starting credit partly spent', async () => {
    await openAccount({ prisma: billing.parts.prisma, initialCredit: '0.01' }, 'w-5');
    await billing.parts.prisma.account.update({ where: { ownerId: 'w-5' }, data: { creditBalance: '0.004' } });
    const settled = jobSettled(billing.parts.workspaceCreatedWorker!, 'workspace-created.w-5');
    await producer.publish(event('w-5'), 'workspace-created.w-5');
    expect((await settled).state).toBe('completed');
    const account = await billing.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: 'w-5' } });
    expect(account.creditBalance.toFixed()).toBe('0');
  });

  it('skips a workspace deleted before the event arrived', async () => {
    await billing.parts.prisma.deletedAccount.create({ data: { ownerId: 'w-3', anonymousId: randomUUID() } });
    const settled = jobSettled(billing.parts.workspaceCreatedWorker!, 'workspace-created.w-3');
    await producer.publish(event('w-3'), 'workspace-created.w-3');
    expect((await settled).state).toBe('completed');
    expect(await counts(billing.parts, 'w-3')).toEqual({ accounts: 0, ledgerEntries: 0 });
  });

  it('fails an event without a workspace id without retrying', async () => {
    const settled = jobSettled(billing.parts.workspaceCreatedWorker!, 'workspace-created.empty');
    await producer.publish(event(''), 'workspace-created.empty');
    const { state, job, error } = await settled;
    expect(state).toBe('failed');
    expect(error?.name).toBe('UnrecoverableError');
    expect(job.attemptsMade).toBe(1);
  });
});
