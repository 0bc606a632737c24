// GetAccount over a real Connect client, its race with the UserRegistered event, and concurrency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampNow } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { BillingService, Plan } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { UserRegisteredSchema } from '@parley/proto/parley/events/v1/user_registered_pb.js';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { openAccount } from '../../src/core/open-account.ts';
import { counts, jobSettled, startBilling, type Billing } from './harness.ts';

let billing: Billing;
let client: Client<typeof BillingService>;

beforeAll(async () => {
  billing = await startBilling();
  client = createServiceClient(BillingService, billing.url);
});

afterAll(async () => {
  await billing?.stop();
});

describe('GetAccount', () => {
  it('opens the account when read before the UserRegistered event, and the event then changes nothing', async () => {
    const started = Date.now();
    const { account } = await client.getAccount({ ownerId: 'early-reader' });
    expect(account?.ownerId).toBe('early-reader');
    expect(account?.plan).toBe(Plan.FREE);
    expect(account?.creditBalance).toBe('0.01');
    expect(timestampDate(account!.lastCreditRefill!).getTime()).toBeGreaterThanOrEqual(started - 1000);
    expect(await counts(billing.parts, 'early-reader')).toEqual({ accounts: 1, ledgerEntries: 1 });

    const producer = createProducer(billing.redis, QUEUES.userRegistered, UserRegisteredSchema, { prefix: billing.config.QUEUE_PREFIX });
    try {
      const settled = jobSettled(billing.parts.userRegisteredWorker!, 'user-registered.early-reader');
      await producer.publish(
        create(UserRegisteredSchema, { userId: 'early-reader', email: 'e@example.com', name: 'E', occurredAt: timestampNow() }),
        'user-registered.early-reader',
      );
      expect((await settled).state).toBe('completed');
    } finally {
      await producer.close();
    }
    expect(await counts(billing.parts, 'early-reader')).toEqual({ accounts: 1, ledgerEntries: 1 });
    const again = await client.getAccount({ ownerId: 'early-reader' });
    expect(again.account?.creditBalance).toBe('0.01');
  });

  it('returns an existing account as stored, plan and exact balance included', async () => {
    await openAccount({ prisma: billing.parts.prisma, initialCredit: '0.01' }, 'pro-owner');
    await billing.parts.prisma.account.update({ where: { ownerId: 'pro-owner' }, data: { plan: 'pro', creditBalance: '2.0000000001' } });
    const { account } = await client.getAccount({ ownerId: 'pro-owner' });
    expect(account?.plan).toBe(Plan.PRO);
    expect(account?.creditBalance).toBe('2.0000000001');

    await billing.parts.prisma.account.update({ where: { ownerId: 'pro-owner' }, data: { creditBalance: '0.0000001' } });
    expect((await client.getAccount({ ownerId: 'pro-owner' })).account?.creditBalance).toBe('0.0000001');
  });

  it.each([
    ['empty', '', /owner_id is required/],
    ['blank', '   ', /owner_id is required/],
    ['too long', 'x'.repeat(101), /at most 100 characters/],
  ])('rejects a %s owner_id with InvalidArgument', async (_label, ownerId, message) => {
    const err = await client.getAccount({ ownerId }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    expect((err as ConnectError).rawMessage).toMatch(message);
  });

  it('accepts an owner_id of exactly 100 characters', async () => {
    const ownerId = 'y'.repeat(100);
    expect((await client.getAccount({ ownerId })).account?.ownerId).toBe(ownerId);
  });
});

describe('concurrency', () => {
  it('20 parallel GetAccount calls for a new user open exactly one account and one ledger entry', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => client.getAccount({ ownerId: 'racer' })));
    for (const { account } of results) expect(account?.creditBalance).toBe('0.01');
    expect(await counts(billing.parts, 'racer')).toEqual({ accounts: 1, ledgerEntries: 1 });
  });

  it('20 parallel openAccount calls, mixed with GetAccount, never fail and open one account', async () => {
    const deps = { prisma: billing.parts.prisma, initialCredit: billing.config.INITIAL_CREDIT };
    const calls = Array.from({ length: 20 }, (_, i) =>
      i % 2
        ? openAccount(deps, 'racer-2').then((a) => a.creditBalance.toFixed())
        : client.getAccount({ ownerId: 'racer-2' }).then((r) => r.account?.creditBalance),
    );
    expect(await Promise.all(calls)).toEqual(Array(20).fill('0.01'));
    expect(await counts(billing.parts, 'racer-2')).toEqual({ accounts: 1, ledgerEntries: 1 });
  });
});

describe('health', () => {
  it('answers /healthz', async () => {
    const res = await fetch(`${billing.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz with the database and Redis checked', async () => {
    const res = await fetch(`${billing.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'ok' } });
  });
});
