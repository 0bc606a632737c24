import { createHash } from 'node:crypto';
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { Code } from '@parley/common/rpc-errors.ts';
import { UserRegisteredSchema } from '@parley/proto/parley/events/v1/user_registered_pb.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EMAIL_TAKEN, register } from '../../src/accounts/register.ts';
import { publishUserRegistered, userRegisteredJobId } from '../../src/accounts/user-registered.publisher.ts';
import { expectRpcError, startAuth, uniqueEmail, type AuthHarness } from './harness.ts';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth();
});
afterAll(async () => {
  await h?.close();
});

const registration = (email: string, extra: Record<string, string> = {}) => ({
  email,
  password: 'secret1',
  passwordConfirmation: 'secret1',
  ...extra,
});

describe('Register', () => {
  it('creates the account and a session, storing only hashes', async () => {
    const email = uniqueEmail('Ada');
    const before = Date.now();
    const res = await h.client.register(registration(`  ${email.toUpperCase()} `, { clientIp: '203.0.113.7' }));

    expect(res.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(res.token, 'base64url')).toHaveLength(32);
    expect(res.user?.email).toBe(email.toLowerCase());
    // No name given: it stays empty (the product greets "User"), never the email's local part.
    expect(res.user?.name).toBe('');
    expect(res.user?.id).toMatch(/^[0-9a-f-]{36}$/);
    const expiresAt = timestampDate(res.expiresAt!).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + 2592000 * 1000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 2592000 * 1000 + 1000);

    const user = await h.db.user.findUniqueOrThrow({ where: { id: res.user!.id }, include: { sessions: true } });
    expect(user.email).toBe(email.toLowerCase());
    expect(user.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(user.passwordHash).not.toContain('secret1');
    expect(user.sessions).toHaveLength(1);
    const [session] = user.sessions;
    expect(session.tokenHash).not.toBe(res.token);
    expect(session.tokenHash).toBe(createHash('sha256').update(res.token).digest('hex'));
    expect(session.clientIp).toBe('203.0.113.7');
    expect(session.revokedAt).toBeNull();

    const me = await h.client.authenticate({ token: res.token });
    expect(me.user?.id).toBe(res.user!.id);
  });

  it('gives each registration a different token', async () => {
    const [a, b] = await Promise.all([h.client.register(registration(uniqueEmail())), h.client.register(registration(uniqueEmail()))]);
    expect(a.token).not.toBe(b.token);
  });

  it('keeps a given name, trimmed', async () => {
    const res = await h.client.register(registration(uniqueEmail(), { name: '  Grace Hopper ' }));
    expect(res.user?.name).toBe('Grace Hopper');
  });

  it.each([
    [{ email: '' }, 'Please enter all required fields'],
    [{ email: '   ' }, 'Please enter all required fields'],
    [{ password: '', passwordConfirmation: '' }, 'Please enter all required fields'],
    [{ passwordConfirmation: 'secret2' }, 'Passwords do not match'],
    [{ password: 'abc', passwordConfirmation: 'abc' }, 'Password must be at least 6 characters'],
    [{ email: 'not-an-email' }, 'Please enter a valid email address'],
    [{ email: 'ada@example' }, 'Please enter a valid email address'],
    [{ email: `${'a'.repeat(250)}@example.com` }, 'Email must be at most 254 characters'],
    [{ password: 'p'.repeat(1025), passwordConfirmation: 'p'.repeat(1025) }, 'Password must be at most 1024 characters'],
    [{ name: 'n'.repeat(101) }, 'Name must be at most 100 characters'],
  ])('refuses %o with "%s"', async (override, message) => {
    const email = uniqueEmail('invalid');
    await expectRpcError(h.client.register({ ...registration(email), ...override }), Code.InvalidArgument, message);
    expect(await h.db.user.count({ where: { email } })).toBe(0);
  });

  it('refuses an email that is already registered, whatever its case, unless the password is its own', async () => {
    const email = uniqueEmail('taken');
    await h.client.register(registration(email));
    const other = { password: 'other-pass', passwordConfirmation: 'other-pass' };
    await expectRpcError(h.client.register(registration(email, other)), Code.AlreadyExists, 'An account with this email already exists');
    await expectRpcError(
      h.client.register(registration(` ${email.toUpperCase()}`, other)),
      Code.AlreadyExists,
      'An account with this email already exists',
    );
    expect(await h.db.user.count({ where: { email } })).toBe(1);
  });

  it('lets exactly one of several concurrent registrations of one address succeed', async () => {
    const email = uniqueEmail('race');
    const variants = [email, email.toUpperCase(), ` ${email}`, email.replace(/^./, (c) => c.toUpperCase())];
    // Different passwords: a request that comes after the winner's commit with the same one would be a retried sign-up.
    const results = await Promise.allSettled(
      variants.map((e, i) => h.client.register(registration(e, { password: `secret${i}`, passwordConfirmation: `secret${i}` }))),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(1);
    expect(failed).toHaveLength(variants.length - 1);
    for (const f of failed) await expectRpcError(Promise.reject(f.reason), Code.AlreadyExists, 'An account with this email already exists');
    expect(await h.db.user.count({ where: { email } })).toBe(1);
    expect(await h.db.session.count({ where: { user: { email } } })).toBe(1);
  });
});

describe('UserRegistered', () => {
  it('lands on the queue once, with the account in its payload, even when published again', async () => {
    const email = uniqueEmail('event');
    const res = await h.client.register(registration(email, { name: 'Event Person' }));
    const userId = res.user!.id;

    const job = await h.queue.getJob(userRegisteredJobId(userId));
    expect(job).toBeDefined();
    expect(job!.id).toBe(`user-registered.${userId}`);
    expect(job!.name).toBe(UserRegisteredSchema.typeName);
    const event = fromJson(UserRegisteredSchema, job!.data as JsonValue);
    expect(event.userId).toBe(userId);
    expect(event.email).toBe(email);
    expect(event.name).toBe('Event Person');
    expect(timestampDate(event.occurredAt!).toISOString()).toBe(timestampDate(res.user!.createdAt!).toISOString());

    // A retried publish (say, after a timeout that had in fact succeeded) must not enqueue it twice.
    const producer = createProducer(h.redis, QUEUES.userRegistered, UserRegisteredSchema, { prefix: h.prefix });
    const user = await h.db.user.findUniqueOrThrow({ where: { id: userId } });
    await publishUserRegistered(producer, user);
    await publishUserRegistered(producer, user);
    await producer.close();

    const jobs = await h.queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']);
    expect(jobs.filter((j) => j.id === userRegisteredJobId(userId))).toHaveLength(1);
  });

  it('is published once per account, and not for refused registrations', async () => {
    const before = await h.queue.count();
    const email = uniqueEmail('count');
    await h.client.register(registration(email));
    await expectRpcError(
      h.client.register(registration(email, { password: 'other-pass', passwordConfirmation: 'other-pass' })),
      Code.AlreadyExists,
      'An account with this email already exists',
    );
    // A retried sign-up signs in; the account was announced the first time.
    await h.client.register(registration(email));
    await expectRpcError(h.client.register(registration('bad')), Code.InvalidArgument, 'Please enter a valid email address');
    expect(await h.queue.count()).toBe(before + 1);
    expect(await h.db.user.count()).toBe(await h.queue.count());
  });
});

describe('Register when the queue is unavailable', () => {
  it('still creates the account and logs the failed publish', async () => {
    const logger = { info: vi.fn(), error: vi.fn() };
    const email = uniqueEmail('offline');
    const res = await register(
      {
        db: h.db,
        sessionTtlSeconds: 60,
        logger: logger as never,
        publishUserRegistered: () => Promise.reject(new Error('redis is down')),
        registrationThrottle: { acquire: async () => {} },
        throttle: { acquire: async () => {}, succeeded: async () => {} },
      },
      { email, password: 'secret1', passwordConfirmation: 'secret1', name: '', clientIp: '' },
    );
    expect(res.user.email).toBe(email);
    expect(await h.db.user.count({ where: { email } })).toBe(1);
    expect(logger.error).toHaveBeenCalledWith(expect.objectContaining({ userId: res.user.id }), 'could not publish UserRegistered');
    expect((await h.client.authenticate({ token: res.token })).user?.id).toBe(res.user.id);
  });
});

describe('Register throttling', () => {
  it('refuses an IP after 10 sign-ups in its window, with the wait, counting concurrent ones atomically', async () => {
    const ip = '192.0.2.10';
    const results = await Promise.allSettled(
      Array.from({ length: 14 }, () => h.client.register(registration(uniqueEmail('burst'), { clientIp: ip }))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
      await expectRpcError(
        Promise.reject(r.reason),
        Code.ResourceExhausted,
        'Too many sign-ups from this address. Please try again in 60 minutes.',
      );
    }
    const ttl = await h.redis.ttl(`${h.prefix}:auth:registrations:ip:${ip}`);
    expect(ttl).toBeGreaterThan(3590);
    // Another address is unaffected.
    expect((await h.client.register(registration(uniqueEmail(), { clientIp: '192.0.2.11' }))).token).toBeTruthy();
  });
});

describe('Register retried after a failure', () => {
  it('signs into the account it created when the same email and password come again', async () => {
    const email = uniqueEmail('retry');
    const first = await h.client.register(registration(email, { clientIp: '192.0.2.20' }));
    const again = await h.client.register(registration(email.toUpperCase(), { clientIp: '192.0.2.20' }));
    expect(again.user?.id).toBe(first.user!.id);
    expect(again.token).not.toBe(first.token);
    expect((await h.client.authenticate({ token: again.token })).user?.id).toBe(first.user!.id);
    expect(await h.db.user.count({ where: { email } })).toBe(1);
    expect(await h.db.session.count({ where: { user: { email } } })).toBe(2);
  });

  it('counts a retry with a wrong password as a failed login, so sign-up cannot be used to guess past the throttle', async () => {
    const email = uniqueEmail('guess');
    await h.client.register(registration(email));
    const ip = '192.0.2.30';
    const guesses = Array.from({ length: 8 }, (_, i) =>
      registration(email, { password: `guess-${i}`, passwordConfirmation: `guess-${i}`, clientIp: ip }),
    );
    for (const guess of guesses) {
      await expectRpcError(h.client.register(guess), Code.AlreadyExists, EMAIL_TAKEN);
    }
    // The (IP, account) limit (5) is used up: even the right password from that address is only told the address is taken.
    await expectRpcError(h.client.register(registration(email, { clientIp: ip })), Code.AlreadyExists, EMAIL_TAKEN);
    expect(await h.redis.get(`${h.prefix}:auth:login-failures:ip:${ip}`)).toBe('5');
  });
});

describe('Register input hygiene', () => {
  it.each([
    // A NUL is refused by the service kit before auth's own check (services/common/src/text-hygiene.ts).
    { email: 'ada\u0001@example.com' },
    { password: 'secret\u00011', passwordConfirmation: 'secret\u00011' },
    { name: 'Ada\u0001' },
    { name: 'Ada\u001b[31m' },
  ])('refuses control characters in %j with InvalidArgument, before the database', async (override) => {
    const email = uniqueEmail('nul');
    await expectRpcError(
      h.client.register({ ...registration(email), ...override }),
      Code.InvalidArgument,
      'Email, password and name must not contain control characters',
    );
    expect(await h.db.user.count({ where: { email } })).toBe(0);
  });
});
