import { randomUUID } from 'node:crypto';
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { createLogger } from '@parley/common/logger.ts';
import { createRedis } from '@parley/common/redis.ts';
import { Code } from '@parley/common/rpc-errors.ts';
import { AccountDeletedSchema } from '@parley/proto/parley/events/v1/account_deleted_pb.js';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayAccountDeleted } from '../../src/accounts/account-deleted.outbox.ts';
import {
  ACCOUNT_DELETED_QUEUES,
  accountDeletedJobId,
  createAccountDeletedProducers,
  publishAccountDeleted,
} from '../../src/accounts/account-deleted.publisher.ts';
import { deleteAccount } from '../../src/accounts/delete-account.ts';
import { expectRpcError, startAuth, uniqueEmail, type AuthHarness } from './harness.ts';

let h: AuthHarness;
let queues: Queue[];
beforeAll(async () => {
  h = await startAuth({ LOGIN_MAX_FAILURES_PER_IP_AND_ACCOUNT: '3' }, { smtp: true });
  queues = ACCOUNT_DELETED_QUEUES.map((name) => h.queueOf(name));
});
afterAll(async () => {
  await h?.close();
});

let ipCounter = 0;
const freshIp = () => `198.51.100.${++ipCounter}`;

async function account() {
  const email = uniqueEmail('leaving');
  const reg = await h.client.register({ email, password: 'secret1', passwordConfirmation: 'secret1', clientIp: freshIp() });
  const userId = reg.user!.id;
  await h.client.login({ email, password: 'secret1', clientIp: freshIp() });
  // An outstanding reset link, which must go with the account.
  await h.db.passwordResetToken.create({
    data: { userId, tokenHash: randomUUID(), jobId: randomUUID(), expiresAt: new Date(Date.now() + 3600_000) },
  });
  return { email, token: reg.token, userId };
}

/** The AccountDeleted jobs for this user in each of the three queues. */
async function jobsFor(userId: string) {
  return Promise.all(queues.map((q) => q.getJob(accountDeletedJobId(userId))));
}

describe('DeleteAccount', () => {
  it('deletes the user with sessions and reset links, and announces it once to chatbot, chat and billing', async () => {
    const { email, token, userId } = await account();
    const before = Date.now();
    await h.client.deleteAccount({ userId, password: 'secret1', clientIp: freshIp() });

    expect(await h.db.user.findUnique({ where: { id: userId } })).toBeNull();
    expect(await h.db.session.count({ where: { userId } })).toBe(0);
    expect(await h.db.passwordResetToken.count({ where: { userId } })).toBe(0);
    expect(await h.db.accountDeletedOutbox.count({ where: { userId } })).toBe(0);
    await expectRpcError(h.client.authenticate({ token }), Code.Unauthenticated, 'Session expired. Please login again.');
    await expectRpcError(h.client.login({ email, password: 'secret1', clientIp: freshIp() }), Code.Unauthenticated, 'Invalid credentials');

    const jobs = await jobsFor(userId);
    expect(jobs.map((j) => j?.queueName)).toEqual([...ACCOUNT_DELETED_QUEUES]);
    for (const job of jobs) {
      expect(job!.id).toBe(`account-deleted.${userId}`);
      expect(job!.name).toBe(AccountDeletedSchema.typeName);
      const event = fromJson(AccountDeletedSchema, job!.data as JsonValue);
      expect(event.userId).toBe(userId);
      const occurredAt = timestampDate(event.occurredAt!).getTime();
      expect(occurredAt).toBeGreaterThanOrEqual(before - 1000);
      expect(occurredAt).toBeLessThanOrEqual(Date.now() + 1000);
    }

    const mail = await h.smtp!.waitForMail((m) => m.to.includes(email) && m.subject === 'Your Parley account was deleted');
    expect(mail.text).toContain('Parley');
  });

  it('needs the password, counting wrong ones with the login throttle', async () => {
    const { userId } = await account();
    const ip = freshIp();
    await expectRpcError(
      h.client.deleteAccount({ userId, password: '', clientIp: ip }),
      Code.InvalidArgument,
      'Please enter your password',
    );
    for (let i = 0; i < 3; i++) {
      await expectRpcError(
        h.client.deleteAccount({ userId, password: `guess-${i}`, clientIp: ip }),
        Code.InvalidArgument,
        'Password is incorrect',
      );
    }
    await expectRpcError(
      h.client.deleteAccount({ userId, password: 'secret1', clientIp: ip }),
      Code.ResourceExhausted,
      /^Too many failed login attempts/,
    );
    expect(await h.db.user.count({ where: { id: userId } })).toBe(1);
    expect((await jobsFor(userId)).every((j) => j === undefined)).toBe(true);
  });

  it('answers NotFound for an unknown user, and the second time, without another job', async () => {
    await expectRpcError(
      h.client.deleteAccount({ userId: randomUUID(), password: 'secret1', clientIp: freshIp() }),
      Code.NotFound,
      'Account not found',
    );
    const { userId } = await account();
    await h.client.deleteAccount({ userId, password: 'secret1', clientIp: freshIp() });
    await expectRpcError(h.client.deleteAccount({ userId, password: 'secret1', clientIp: freshIp() }), Code.NotFound, 'Account not found');
    for (const q of queues) {
      const all = await q.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']);
      expect(all.filter((j) => j.id === accountDeletedJobId(userId))).toHaveLength(1);
    }
  });

  it('lets exactly one of two concurrent deletions through', async () => {
    const { userId } = await account();
    const results = await Promise.allSettled(
      [1, 2].map(() => h.client.deleteAccount({ userId, password: 'secret1', clientIp: freshIp() })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const [failed] = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    await expectRpcError(Promise.reject(failed.reason), Code.NotFound, 'Account not found');
    expect((await jobsFor(userId)).every((j) => j !== undefined)).toBe(true);
  });
});

describe('DeleteAccount when the queues are unreachable', () => {
  it('still deletes the account, keeps the record in the outbox, and the relay announces it later, once', async () => {
    const { userId } = await account();
    // Producers whose Redis connection is closed: every publish fails.
    const closed = createRedis(h.config.REDIS_URL);
    const down = createAccountDeletedProducers(closed, h.prefix);
    await closed.quit();
    const logger = createLogger('auth-test', 'silent');
    await deleteAccount(
      { ...h.parts.deps, logger, publishAccountDeleted: (account) => publishAccountDeleted(down, account) },
      { userId, password: 'secret1', clientIp: freshIp() },
    );

    // Deleted for the owner, not announced yet, and remembered.
    expect(await h.db.user.findUnique({ where: { id: userId } })).toBeNull();
    expect((await jobsFor(userId)).every((j) => j === undefined)).toBe(true);
    const [waiting] = await h.db.accountDeletedOutbox.findMany({ where: { userId } });
    expect(waiting).toBeDefined();

    // The relay leaves records younger than its cut-off to the owner's call...
    expect(await relayAccountDeleted(h.db, h.parts.deps.publishAccountDeleted, new Date(waiting.deletedAt.getTime() - 1000))).toBe(0);
    // ...and publishes the older ones, with the time of the deletion, then forgets them.
    expect(await relayAccountDeleted(h.db, h.parts.deps.publishAccountDeleted, new Date(Date.now() + 1000))).toBeGreaterThanOrEqual(1);
    for (const job of await jobsFor(userId)) {
      const event = fromJson(AccountDeletedSchema, job!.data as JsonValue);
      expect(event.userId).toBe(userId);
      expect(timestampDate(event.occurredAt!).getTime()).toBe(waiting.deletedAt.getTime());
    }
    expect(await h.db.accountDeletedOutbox.count({ where: { userId } })).toBe(0);
    expect(await relayAccountDeleted(h.db, h.parts.deps.publishAccountDeleted, new Date(Date.now() + 1000))).toBe(0);
    for (const q of queues) {
      const all = await q.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']);
      expect(all.filter((j) => j.id === accountDeletedJobId(userId))).toHaveLength(1);
    }
    await Promise.all(down.map((p) => p.close().catch(() => {})));
  });
});
