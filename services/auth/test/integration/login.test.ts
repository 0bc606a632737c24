import { createHash } from 'node:crypto';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Code } from '@parley/common/rpc-errors.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRpcError, startAuth, uniqueEmail, type AuthHarness } from './harness.ts';

const THROTTLED = /^Too many failed login attempts\. Please try again in (\d+) minutes?\.$/;

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '3', LOGIN_MAX_FAILURES_PER_IP: '6', LOGIN_FAILURE_WINDOW_SECONDS: '900' });
});
afterAll(async () => {
  await h?.close();
});

async function account(password = 'secret1') {
  const email = uniqueEmail('login');
  await h.client.register({ email, password, passwordConfirmation: password });
  return email;
}

let ipCounter = 0;
const freshIp = () => `198.51.100.${++ipCounter}`;

describe('Login', () => {
  it('signs in with the right password, whatever the email case, and opens a new session', async () => {
    const email = await account('correct horse');
    const ip = freshIp();
    const res = await h.client.login({ email: ` ${email.toUpperCase()} `, password: 'correct horse', clientIp: ip });
    expect(res.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.user?.email).toBe(email);
    expect(timestampDate(res.expiresAt!).getTime()).toBeGreaterThan(Date.now() + 2592000 * 1000 - 5000);
    expect((await h.client.authenticate({ token: res.token })).user?.email).toBe(email);
    const sessions = await h.db.session.findMany({ where: { user: { email } } });
    expect(sessions).toHaveLength(2);
    expect(sessions.map((s) => s.clientIp)).toContain(ip);
  });

  it('requires email and password', async () => {
    await expectRpcError(h.client.login({ email: '', password: 'x', clientIp: freshIp() }), Code.InvalidArgument, 'Please enter all fields');
    await expectRpcError(h.client.login({ email: '  ', password: 'x', clientIp: freshIp() }), Code.InvalidArgument, 'Please enter all fields');
    await expectRpcError(h.client.login({ email: 'a@b.co', password: '', clientIp: freshIp() }), Code.InvalidArgument, 'Please enter all fields');
  });

  it('answers a wrong password and an unknown email the same way', async () => {
    const email = await account();
    await expectRpcError(h.client.login({ email, password: 'wrong-password', clientIp: freshIp() }), Code.Unauthenticated, 'Invalid credentials');
    await expectRpcError(
      h.client.login({ email: uniqueEmail('nobody'), password: 'secret1', clientIp: freshIp() }),
      Code.Unauthenticated,
      'Invalid credentials',
    );
    await expectRpcError(
      h.client.login({ email, password: 'p'.repeat(5000), clientIp: freshIp() }),
      Code.Unauthenticated,
      'Invalid credentials',
    );
  });

  it('takes about as long for an unknown email as for a wrong password', async () => {
    const emails = await Promise.all([account(), account(), account()]);
    const time = async (email: string) => {
      const started = performance.now();
      await h.client.login({ email, password: 'wrong-password', clientIp: freshIp() }).catch(() => {});
      return performance.now() - started;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[1];
    const known: number[] = [];
    const unknown: number[] = [];
    for (const email of emails) {
      known.push(await time(email));
      unknown.push(await time(uniqueEmail('ghost')));
    }
    // Both paths run one Argon2 verification; without the dummy hash the unknown path would be ~10x faster.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.5);
  });
});

describe('Login throttling', () => {
  it('refuses an account after its maximum failures, even with the right password and from new IPs', async () => {
    const email = await account();
    for (let i = 0; i < 3; i++) {
      await expectRpcError(h.client.login({ email, password: 'wrong-password', clientIp: freshIp() }), Code.Unauthenticated, 'Invalid credentials');
    }
    await expectRpcError(h.client.login({ email, password: 'secret1', clientIp: freshIp() }), Code.ResourceExhausted, THROTTLED);
    await expectRpcError(
      h.client.login({ email: email.toUpperCase(), password: 'secret1', clientIp: freshIp() }),
      Code.ResourceExhausted,
      'Too many failed login attempts. Please try again in 15 minutes.',
    );
    // Other accounts are unaffected.
    const other = await account();
    expect((await h.client.login({ email: other, password: 'secret1', clientIp: freshIp() })).token).toBeTruthy();
  });

  it('refuses an IP after its maximum failures, across accounts', async () => {
    const ip = freshIp();
    for (let i = 0; i < 6; i++) {
      await expectRpcError(h.client.login({ email: uniqueEmail('spray'), password: 'guess1', clientIp: ip }), Code.Unauthenticated, 'Invalid credentials');
    }
    const email = await account();
    await expectRpcError(h.client.login({ email, password: 'secret1', clientIp: ip }), Code.ResourceExhausted, THROTTLED);
    // The same account from another address is fine: the block belongs to the IP.
    expect((await h.client.login({ email, password: 'secret1', clientIp: freshIp() })).user?.email).toBe(email);
  });

  it('clears the account counter on a successful login', async () => {
    const email = await account();
    const ip = freshIp();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 2; i++) {
        await expectRpcError(h.client.login({ email, password: 'nope-nope', clientIp: ip }), Code.Unauthenticated, 'Invalid credentials');
      }
      // 2 failures per round, 6 in all: without the reset the account limit (3) would block this.
      expect((await h.client.login({ email, password: 'secret1', clientIp: freshIp() })).user?.email).toBe(email);
    }
  });

  it('keeps its counters in Redis under the configured prefix, expiring with the window', async () => {
    const email = await account();
    const ip = freshIp();
    await expectRpcError(h.client.login({ email, password: 'nope-nope', clientIp: ip }), Code.Unauthenticated, 'Invalid credentials');
    const ipKey = `${h.prefix}:auth:login-failures:ip:${ip}`;
    expect(await h.redis.get(ipKey)).toBe('1');
    const ttl = await h.redis.ttl(ipKey);
    expect(ttl).toBeGreaterThan(890);
    expect(ttl).toBeLessThanOrEqual(900);
    const accountKeys = await h.redis.keys(`${h.prefix}:auth:login-failures:account:*`);
    expect(accountKeys.length).toBeGreaterThan(0);
    expect(accountKeys.every((k) => !k.includes('@'))).toBe(true);
  });

  it('reports the time left in the window, rounded up to whole minutes, and lifts the block after it', async () => {
    const email = await account();
    const ip = freshIp();
    for (let i = 0; i < 3; i++) {
      await expectRpcError(h.client.login({ email, password: 'nope-nope', clientIp: ip }), Code.Unauthenticated, 'Invalid credentials');
    }
    // Only the account is blocked (the IP has 3 of its 6); shorten its window as if time had passed.
    const key = `${h.prefix}:auth:login-failures:account:${createHash('sha256').update(email).digest('hex')}`;
    expect(await h.redis.get(key)).toBe('3');
    await h.redis.pexpire(key, 61_000);
    await expectRpcError(
      h.client.login({ email, password: 'secret1', clientIp: ip }),
      Code.ResourceExhausted,
      'Too many failed login attempts. Please try again in 2 minutes.',
    );
    await h.redis.pexpire(key, 5_000);
    await expectRpcError(
      h.client.login({ email, password: 'secret1', clientIp: ip }),
      Code.ResourceExhausted,
      'Too many failed login attempts. Please try again in 1 minute.',
    );
    await h.redis.pexpire(key, 1);
    await new Promise((r) => setTimeout(r, 20));
    expect((await h.client.login({ email, password: 'secret1', clientIp: ip })).user?.email).toBe(email);
  });
});
