import { redisKeys } from '@parley/common/redis-keys.ts';
import { createHash } from 'node:crypto';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGON2_PARAMS, parsePasswordHash, verifyPassword } from '../../src/core/password-hash.ts';
import { createLoginThrottle } from '../../src/core/login-throttle.ts';
import { INVALID_CREDENTIALS, login } from '../../src/sessions/login.ts';
import { expectRpcError, startAuth, uniqueEmail, type AuthHarness } from './harness.ts';

const THROTTLED = /^Too many failed login attempts\. Please try again in (\d+) minutes?\.$/;

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth({
    LOGIN_MAX_FAILURES_PER_IP_AND_ACCOUNT: '3',
    LOGIN_MAX_FAILURES_PER_IP: '6',
    LOGIN_MAX_FAILURES_PER_ACCOUNT: '8',
    LOGIN_FAILURE_WINDOW_SECONDS: '900',
  });
});
afterAll(async () => {
  await h?.close();
});

async function account(password = 'secret1') {
  const email = uniqueEmail('login');
  await h.client.register({ email, password, passwordConfirmation: password });
  return email;
}

/** login's dependencies as the service builds them (its keys and limits), each Argon2 verification reported. */
function loginDeps(onVerify: (stored: string) => void) {
  return {
    db: h.db,
    sessionTtlSeconds: 60,
    twoFactorChallengeTtlSeconds: 60,
    throttle: createLoginThrottle({
      redis: h.redis,
      keys: redisKeys(h.prefix),
      maxFailuresPerIpAndAccount: 3,
      maxFailuresPerIp: 6,
      maxFailuresPerAccount: 8,
      windowSeconds: 900,
    }),
    verifyPassword: async (password: string, stored: string) => {
      onVerify(stored);
      return verifyPassword(password, stored);
    },
  };
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
    expect(timestampDate(res.expiresAt!).getTime()).toBeGreaterThan(Date.now() + 2592000 * 1000 - 60_000);
    expect((await h.client.authenticate({ token: res.token })).user?.email).toBe(email);
    const sessions = await h.db.session.findMany({ where: { user: { email } } });
    expect(sessions).toHaveLength(2);
    expect(sessions.map((s) => s.clientIp)).toContain(ip);
  });

  it('requires email and password', async () => {
    await expectRpcError(
      h.client.login({ email: '', password: 'x', clientIp: freshIp() }),
      Code.InvalidArgument,
      'Please enter all fields',
    );
    await expectRpcError(
      h.client.login({ email: '  ', password: 'x', clientIp: freshIp() }),
      Code.InvalidArgument,
      'Please enter all fields',
    );
    await expectRpcError(
      h.client.login({ email: 'a@b.co', password: '', clientIp: freshIp() }),
      Code.InvalidArgument,
      'Please enter all fields',
    );
  });

  it('answers a wrong password and an unknown email the same way', async () => {
    const email = await account();
    await expectRpcError(
      h.client.login({ email, password: 'wrong-password', clientIp: freshIp() }),
      Code.Unauthenticated,
      'Invalid credentials',
    );
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

  it('verifies the password of an unknown email against a dummy hash of the same algorithm and cost as a real one', async () => {
    // No wall-clock comparison here (bench/login-timing.ts measures it): both paths must run the same
    // Argon2 verification, which is what makes them take the same time.
    const email = await account();
    const calls: string[] = [];
    const deps = loginDeps((stored) => calls.push(stored));
    const attempt = (who: string) => login(deps, { email: who, password: 'wrong-password', clientIp: freshIp() });

    await expectRpcError(attempt(email), Code.Unauthenticated, INVALID_CREDENTIALS);
    expect(calls).toHaveLength(1);
    const { passwordHash } = await h.db.user.findUniqueOrThrow({ where: { email }, select: { passwordHash: true } });
    expect(calls[0]).toBe(passwordHash);

    await expectRpcError(attempt(uniqueEmail('ghost')), Code.Unauthenticated, INVALID_CREDENTIALS);
    expect(calls).toHaveLength(2);
    const [known, unknown] = calls.map((stored) => {
      const { memory, passes, parallelism, nonce, tag } = parsePasswordHash(stored);
      return { algorithm: stored.split('$')[1], memory, passes, parallelism, tagLength: tag.length, nonceBytes: nonce.length };
    });
    expect(unknown).toEqual(known);
    expect(unknown).toMatchObject({ algorithm: 'argon2id', ...ARGON2_PARAMS });
    expect(calls[1]).not.toBe(passwordHash);
    expect(await h.db.user.count({ where: { passwordHash: calls[1] } })).toBe(0);
  });
});

describe('Login throttling', () => {
  const pairKey = (ip: string, email: string) =>
    `${h.prefix}:auth:login-failures:ip-account:${ip}:${createHash('sha256').update(email).digest('hex')}`;

  it('checks at most the (IP, account) limit of 50 concurrent wrong passwords, and refuses the rest with ResourceExhausted', async () => {
    const email = await account();
    const ip = freshIp();
    let checks = 0;
    const deps = loginDeps(() => checks++);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => login(deps, { email, password: 'wrong-password', clientIp: ip })),
    );
    const codes = results.map((r) => (r.status === 'rejected' ? Code[(r.reason as ConnectError).code] : 'ok'));
    expect(checks).toBe(3);
    expect(codes.filter((c) => c === 'Unauthenticated')).toHaveLength(3);
    expect(codes.filter((c) => c === 'ResourceExhausted')).toHaveLength(47);
    // The owner, from another address, still signs in.
    expect((await h.client.login({ email, password: 'secret1', clientIp: freshIp() })).user?.email).toBe(email);
  });

  it('holds over RPC too: of 50 concurrent wrong passwords from one IP, at most the limit get "Invalid credentials"', async () => {
    const email = await account();
    const ip = freshIp();
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => h.client.login({ email, password: 'wrong-password', clientIp: ip })),
    );
    const codes = results.map((r) => (r.status === 'rejected' ? Code[(r.reason as ConnectError).code] : 'ok'));
    expect(codes.filter((c) => c === 'Unauthenticated')).toHaveLength(3);
    expect(codes.filter((c) => c === 'ResourceExhausted')).toHaveLength(47);
    expect((await h.client.login({ email, password: 'secret1', clientIp: freshIp() })).user?.email).toBe(email);
  });

  it('blocks a guessing IP for an account, even with the right password, but not the owner elsewhere', async () => {
    const email = await account();
    const attacker = freshIp();
    for (let i = 0; i < 3; i++) {
      await expectRpcError(
        h.client.login({ email, password: 'wrong-password', clientIp: attacker }),
        Code.Unauthenticated,
        'Invalid credentials',
      );
    }
    await expectRpcError(
      h.client.login({ email: email.toUpperCase(), password: 'secret1', clientIp: attacker }),
      Code.ResourceExhausted,
      'Too many failed login attempts. Please try again in 15 minutes.',
    );
    expect((await h.client.login({ email, password: 'secret1', clientIp: freshIp() })).user?.email).toBe(email);
    // Other accounts from the attacker's address are unaffected (its IP has 3 of its 6).
    const other = await account();
    expect((await h.client.login({ email: other, password: 'secret1', clientIp: attacker })).token).toBeTruthy();
  });

  it('refuses an account after its global maximum of failures from many IPs', async () => {
    const email = await account();
    for (let i = 0; i < 8; i++) {
      await expectRpcError(
        h.client.login({ email, password: 'wrong-password', clientIp: freshIp() }),
        Code.Unauthenticated,
        'Invalid credentials',
      );
    }
    await expectRpcError(h.client.login({ email, password: 'secret1', clientIp: freshIp() }), Code.ResourceExhausted, THROTTLED);
  });

  it('refuses an IP after its maximum failures, across accounts', async () => {
    const ip = freshIp();
    for (let i = 0; i < 6; i++) {
      await expectRpcError(
        h.client.login({ email: uniqueEmail('spray'), password: 'guess1', clientIp: ip }),
        Code.Unauthenticated,
        'Invalid credentials',
      );
    }
    const email = await account();
    await expectRpcError(h.client.login({ email, password: 'secret1', clientIp: ip }), Code.ResourceExhausted, THROTTLED);
    // The same account from another address is fine: the block belongs to the IP.
    expect((await h.client.login({ email, password: 'secret1', clientIp: freshIp() })).user?.email).toBe(email);
  });

  it('clears the (IP, account) counter on a successful login, and does not count successes', async () => {
    const email = await account();
    const ip = freshIp();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2; i++) {
        await expectRpcError(h.client.login({ email, password: 'nope-nope', clientIp: ip }), Code.Unauthenticated, 'Invalid credentials');
      }
      // 2 failures per round, 4 in all: without the reset the (IP, account) limit (3) would block this.
      expect((await h.client.login({ email, password: 'secret1', clientIp: ip })).user?.email).toBe(email);
      expect(await h.redis.get(pairKey(ip, email))).toBeNull();
    }
    // The IP keeps its failures (they count across accounts), but not the successes.
    expect(await h.redis.get(`${h.prefix}:auth:login-failures:ip:${ip}`)).toBe('4');
  });

  it('keeps its counters in Redis under the configured prefix, expiring with the window', async () => {
    const email = await account();
    const ip = freshIp();
    await expectRpcError(h.client.login({ email, password: 'nope-nope', clientIp: ip }), Code.Unauthenticated, 'Invalid credentials');
    const ipKey = `${h.prefix}:auth:login-failures:ip:${ip}`;
    expect(await h.redis.get(ipKey)).toBe('1');
    expect(await h.redis.get(pairKey(ip, email))).toBe('1');
    const ttl = await h.redis.ttl(ipKey);
    expect(ttl).toBeGreaterThan(890);
    expect(ttl).toBeLessThanOrEqual(900);
    const accountKeys = await h.redis.keys(`${h.prefix}:auth:login-failures:*account*`);
    expect(accountKeys.length).toBeGreaterThan(0);
    expect(accountKeys.every((k) => !k.includes('@'))).toBe(true);
  });

  it('reports the time left in the window, rounded up to whole minutes, and lifts the block after it', async () => {
    const email = await account();
    const ip = freshIp();
    for (let i = 0; i < 3; i++) {
      await expectRpcError(h.client.login({ email, password: 'nope-nope', clientIp: ip }), Code.Unauthenticated, 'Invalid credentials');
    }
    const key = pairKey(ip, email);
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

describe('Control characters in credentials', () => {
  // A NUL never reaches auth's own check: the service kit refuses it first (services/common/src/text-hygiene.ts).
  it.each(['\u0001', '\u0007', '\n', '\u007f', '\u0085'])('refuses %j in the email or the password with InvalidArgument', async (c) => {
    await expectRpcError(
      h.client.login({ email: `ada${c}@example.com`, password: 'secret1', clientIp: freshIp() }),
      Code.InvalidArgument,
      'Email and password must not contain control characters',
    );
    await expectRpcError(
      h.client.login({ email: 'ada@example.com', password: `secret${c}1`, clientIp: freshIp() }),
      Code.InvalidArgument,
      'Email and password must not contain control characters',
    );
  });

  it('never fails concurrent normal logins sent alongside NUL logins', async () => {
    const emails = await Promise.all(Array.from({ length: 5 }, () => account()));
    const normal = emails.map((email) => h.client.login({ email, password: 'secret1', clientIp: freshIp() }));
    const nul = emails.map((email) => h.client.login({ email: `${email}\u0000`, password: 'secret1', clientIp: freshIp() }));
    const [ok, bad] = await Promise.all([Promise.allSettled(normal), Promise.allSettled(nul)]);
    expect(ok.map((r) => r.status)).toEqual(emails.map(() => 'fulfilled'));
    for (const r of bad) {
      expect(r.status).toBe('rejected');
      expect(Code[((r as PromiseRejectedResult).reason as ConnectError).code]).toBe('InvalidArgument');
    }
  });
});
