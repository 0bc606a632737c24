import { createHash } from 'node:crypto';
import { Code } from '@parley/common/rpc-errors.ts';
import { QUEUES } from '@parley/common/queues.ts';
import type { CaughtMail } from '@parley/common/testing/smtp-catcher.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueReset } from '../../src/password-reset/issue-reset.ts';
import { RESET_LINK_EXPIRED, RESET_LINK_INVALID, RESET_LINK_USED } from '../../src/password-reset/reset-password.ts';
import { newResetToken } from '../../src/password-reset/reset-token.ts';
import { expectRpcError, startAuth, TEST_PUBLIC_URL, uniqueEmail, type AuthHarness } from './harness.ts';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth({}, { smtp: true });
});
afterAll(async () => {
  await h?.close();
});

let ipCounter = 0;
const freshIp = () => `198.51.100.${++ipCounter}`;

async function account(password = 'old-secret') {
  const email = uniqueEmail('reset');
  const reg = await h.client.register({ email, password, passwordConfirmation: password, name: 'Reset Person', clientIp: freshIp() });
  return { email, token: reg.token, userId: reg.user!.id };
}

const isResetMailTo = (email: string) => (m: CaughtMail) => m.to.includes(email) && m.subject === 'Reset your Parley password';

/** The token in the mail's link, checking the link's shape on the way. */
function tokenOf(mail: CaughtMail): string {
  const links = mail.text.match(/https?:\/\/\S+/g) ?? [];
  const link = links.find((l) => l.includes('/reset-password?'));
  expect(link, mail.text).toBeDefined();
  const url = new URL(link!);
  expect(`${url.origin}${url.pathname}`).toBe(`${TEST_PUBLIC_URL}/reset-password`);
  const token = url.searchParams.get('token')!;
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  // The HTML part carries the same link.
  expect(mail.html).toContain(`${TEST_PUBLIC_URL}/reset-password?token=${token}`);
  return token;
}

async function requestResetMail(email: string): Promise<string> {
  await h.client.requestPasswordReset({ email, clientIp: freshIp() });
  return tokenOf(await h.smtp!.waitForMail(isResetMailTo(email)));
}

describe('password reset, end to end through SMTP', () => {
  it('mails a single-use link that sets a new password and signs out every session', async () => {
    const { email, token: sessionToken, userId } = await account();
    const other = await h.client.login({ email, password: 'old-secret', clientIp: freshIp() });

    expect(await h.client.requestPasswordReset({ email: ` ${email.toUpperCase()} `, clientIp: freshIp() })).toEqual(expect.any(Object));
    const mail = await h.smtp!.waitForMail(isResetMailTo(email));
    expect(mail.from).toBe('Parley <no-reply@parley.local>');
    expect(mail.text).toContain('expires in 1 hour');
    expect(mail.text).toContain('you can ignore this mail');
    const token = tokenOf(mail);

    // Only the hash is stored, with an expiry an hour away. The worker records the send just after the SMTP
    // server accepted the mail, so the row is read once it has.
    await expect.poll(() => h.db.passwordResetToken.count({ where: { userId, mailedAt: { not: null } } })).toBe(1);
    const row = await h.db.passwordResetToken.findFirstOrThrow({ where: { userId } });
    expect(row.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(3600 * 1000);
    expect(row.mailedAt).not.toBeNull();
    expect(row.usedAt).toBeNull();

    await h.client.resetPassword({ token, password: 'new-secret', passwordConfirmation: 'new-secret' });

    // Every session is signed out, the new password works and the old one no longer does.
    for (const t of [sessionToken, other.token]) {
      await expectRpcError(h.client.authenticate({ token: t }), Code.Unauthenticated, 'Session expired. Please login again.');
    }
    expect(await h.db.session.count({ where: { userId, revokedAt: null } })).toBe(0);
    expect((await h.client.login({ email, password: 'new-secret', clientIp: freshIp() })).user?.id).toBe(userId);
    await expectRpcError(
      h.client.login({ email, password: 'old-secret', clientIp: freshIp() }),
      Code.Unauthenticated,
      'Invalid credentials',
    );

    // The link works once.
    await expectRpcError(
      h.client.resetPassword({ token, password: 'third-secret', passwordConfirmation: 'third-secret' }),
      Code.InvalidArgument,
      RESET_LINK_USED,
    );
    expect((await h.client.login({ email, password: 'new-secret', clientIp: freshIp() })).user?.id).toBe(userId);

    // The owner is told the password changed.
    const notice = await h.smtp!.waitForMail((m) => m.to.includes(email) && m.subject === 'Your Parley password was changed');
    expect(notice.text).toContain(`${TEST_PUBLIC_URL}/forgot-password`);
  });

  it('refuses an expired link, and a forged one', async () => {
    const { email, userId } = await account();
    const token = await requestResetMail(email);
    await h.db.passwordResetToken.updateMany({ where: { userId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectRpcError(
      h.client.resetPassword({ token, password: 'new-secret', passwordConfirmation: 'new-secret' }),
      Code.InvalidArgument,
      RESET_LINK_EXPIRED,
    );

    for (const forged of [
      newResetToken(),
      '',
      'x'.repeat(500),
      (token[0] === 'A' ? 'B' : 'A') + token.slice(1),
      createHash('sha256').update(token).digest('hex'),
    ]) {
      await expectRpcError(
        h.client.resetPassword({ token: forged, password: 'new-secret', passwordConfirmation: 'new-secret' }),
        Code.InvalidArgument,
        RESET_LINK_INVALID,
      );
    }
    // Nothing changed.
    expect((await h.client.login({ email, password: 'old-secret', clientIp: freshIp() })).user?.id).toBe(userId);
  });

  it("applies registration's password rules, leaving the link usable", async () => {
    const { email, userId } = await account();
    const token = await requestResetMail(email);
    const cases: [string, string, string][] = [
      ['', '', 'Please enter all required fields'],
      ['new-secret', 'other-secret', 'Passwords do not match'],
      ['abc', 'abc', 'Password must be at least 6 characters'],
      ['p'.repeat(1025), 'p'.repeat(1025), 'Password must be at most 1024 characters'],
    ];
    for (const [password, passwordConfirmation, message] of cases) {
      await expectRpcError(h.client.resetPassword({ token, password, passwordConfirmation }), Code.InvalidArgument, message);
    }
    await h.client.resetPassword({ token, password: 'new-secret', passwordConfirmation: 'new-secret' });
    expect((await h.client.login({ email, password: 'new-secret', clientIp: freshIp() })).user?.id).toBe(userId);
  });

  it('lets exactly one of two concurrent uses of a link win', async () => {
    const { email, userId } = await account();
    const token = await requestResetMail(email);
    const results = await Promise.allSettled(
      ['first-secret', 'second-secret'].map((p) => h.client.resetPassword({ token, password: p, passwordConfirmation: p })),
    );
    const won = results.findIndex((r) => r.status === 'fulfilled');
    expect(won).toBeGreaterThanOrEqual(0);
    const lost = results[1 - won];
    expect(lost.status).toBe('rejected');
    await expectRpcError(Promise.reject((lost as PromiseRejectedResult).reason), Code.InvalidArgument, RESET_LINK_USED);
    const winner = won === 0 ? 'first-secret' : 'second-secret';
    const loser = won === 0 ? 'second-secret' : 'first-secret';
    expect((await h.client.login({ email, password: winner, clientIp: freshIp() })).user?.id).toBe(userId);
    await expectRpcError(h.client.login({ email, password: loser, clientIp: freshIp() }), Code.Unauthenticated, 'Invalid credentials');
  });

  it("a used link retires the user's other outstanding links", async () => {
    const { email } = await account();
    const first = await requestResetMail(email);
    await h.client.requestPasswordReset({ email, clientIp: freshIp() });
    await h.smtp!.waitForMail((m) => isResetMailTo(email)(m) && !m.text.includes(first));
    const second = tokenOf(h.smtp!.mails.filter(isResetMailTo(email)).find((m) => !m.text.includes(first))!);
    await h.client.resetPassword({ token: second, password: 'new-secret', passwordConfirmation: 'new-secret' });
    await expectRpcError(
      h.client.resetPassword({ token: first, password: 'evil-secret', passwordConfirmation: 'evil-secret' }),
      Code.InvalidArgument,
      RESET_LINK_USED,
    );
  });

  it('validates the email of a request like sign-in does', async () => {
    await expectRpcError(
      h.client.requestPasswordReset({ email: '  ', clientIp: freshIp() }),
      Code.InvalidArgument,
      'Please enter your email',
    );
    await expectRpcError(
      h.client.requestPasswordReset({ email: 'ada\u0001@example.com', clientIp: freshIp() }),
      Code.InvalidArgument,
      'Email must not contain control characters',
    );
    await expectRpcError(
      h.client.requestPasswordReset({ email: `${'a'.repeat(250)}@example.com`, clientIp: freshIp() }),
      Code.InvalidArgument,
      'Email must be at most 254 characters',
    );
    await expectRpcError(
      h.client.requestPasswordReset({ email: 'not-an-email', clientIp: freshIp() }),
      Code.InvalidArgument,
      'Please enter a valid email address',
    );
  });
});

describe('a retried reset job', () => {
  it('does not send a second link once the mail went out, and a retry before that leaves only its own link working', async () => {
    const { email, userId } = await account();
    const jobId = `password-reset.retry-${userId}`;
    const mailsTo = () => h.smtp!.mails.filter(isResetMailTo(email)).length;

    // A first attempt whose mail went out but was not recorded as sent (the worker died right after).
    expect(await issueReset(h.parts.issueResetDeps, { email, jobId })).toBe('sent');
    const firstToken = tokenOf(await h.smtp!.waitForMail(isResetMailTo(email)));
    await h.db.passwordResetToken.update({ where: { jobId }, data: { mailedAt: null } });

    // Its retry sends a new link, and the first one stops working: one working link per request.
    expect(await issueReset(h.parts.issueResetDeps, { email, jobId })).toBe('sent');
    await h.smtp!.waitForMail((m) => isResetMailTo(email)(m) && !m.text.includes(firstToken));
    expect(mailsTo()).toBe(2);
    expect(await h.db.passwordResetToken.count({ where: { userId } })).toBe(1);
    await expectRpcError(
      h.client.resetPassword({ token: firstToken, password: 'new-secret', passwordConfirmation: 'new-secret' }),
      Code.InvalidArgument,
      RESET_LINK_INVALID,
    );

    // Once recorded as sent, a further retry sends nothing.
    expect(await issueReset(h.parts.issueResetDeps, { email, jobId })).toBe('already-sent');
    expect(mailsTo()).toBe(2);
  });
});

describe('enumeration', () => {
  it('answers known and unknown emails the same way, with the same work, and mails only the known one', async () => {
    const { email: known } = await account();
    const unknown = uniqueEmail('nobody');
    const queue = h.queueOf(QUEUES.passwordResetRequested);

    // Same (empty) answer for both.
    const a = await h.client.requestPasswordReset({ email: known, clientIp: freshIp() });
    const b = await h.client.requestPasswordReset({ email: unknown, clientIp: freshIp() });
    expect(a).toEqual(b);
    expect(Object.keys(a)).toEqual(['$typeName']);

    // Same work: the request path does not look the account up, it queues the request whatever the
    // email (the worker looks it up, off the answer's path), so an answer cannot tell by its time
    // whether the email has an account (bench/login-timing.ts times logins the same way). Each
    // email from its own addresses, the per-email limit cleared between requests.
    const request = async (email: string) => {
      const counters = await h.redis.keys(`${h.prefix}:auth:password-resets:*`);
      if (counters.length) await h.redis.del(...counters);
      await h.client.requestPasswordReset({ email, clientIp: freshIp() });
    };
    for (let i = 0; i < 5; i++) {
      await request(known);
      await request(unknown);
    }

    // Every request was queued alike; once the queue has drained, the known email got its mails and the unknown none.
    await expect
      .poll(async () => await queue.getJobCounts('wait', 'active', 'delayed'), { timeout: 30_000, interval: 100 })
      .toEqual({ wait: 0, active: 0, delayed: 0 });
    expect(await queue.getJobCounts('failed')).toEqual({ failed: 0 });
    const jobs = await queue.getJobs(['completed']);
    const queued = (email: string) => jobs.filter((job) => job.data.email === email);
    expect(queued(known)).toHaveLength(6);
    expect(queued(unknown)).toHaveLength(6);
    expect(
      new Set(jobs.filter((job) => [known, unknown].includes(job.data.email)).map((job) => Object.keys(job.data).sort().join())),
    ).toEqual(new Set([Object.keys(queued(known)[0].data).sort().join()]));
    expect(h.smtp!.mails.filter(isResetMailTo(known))).toHaveLength(6);
    expect(h.smtp!.mails.filter((m) => m.to.includes(unknown))).toHaveLength(0);
  });
});

describe('request throttling', () => {
  let t: AuthHarness;
  beforeAll(async () => {
    t = await startAuth(
      { PASSWORD_RESET_MAX_PER_EMAIL: '2', PASSWORD_RESET_MAX_PER_IP: '3', PASSWORD_RESET_WINDOW_SECONDS: '600' },
      { workers: false },
    );
  });
  afterAll(async () => {
    await t?.close();
  });
  const TOO_MANY = 'Too many reset requests. Please try again later.';

  it('limits requests per email, whatever its case and whoever asks, counted whether or not the account exists', async () => {
    const email = uniqueEmail('ghost');
    await t.client.requestPasswordReset({ email, clientIp: '203.0.113.1' });
    await t.client.requestPasswordReset({ email: email.toUpperCase(), clientIp: '203.0.113.2' });
    await expectRpcError(t.client.requestPasswordReset({ email, clientIp: '203.0.113.3' }), Code.ResourceExhausted, TOO_MANY);
    const ttl = await t.redis.ttl(`${t.prefix}:auth:password-resets:email:${createHash('sha256').update(email).digest('hex')}`);
    expect(ttl).toBeGreaterThan(590);
    expect(ttl).toBeLessThanOrEqual(600);
    // Another email is not affected.
    await t.client.requestPasswordReset({ email: uniqueEmail('ghost'), clientIp: '203.0.113.3' });
  });

  it('limits requests per IP across emails, concurrent ones counted atomically, and queues only the accepted ones', async () => {
    const queue = t.queueOf(QUEUES.passwordResetRequested);
    const before = await queue.count();
    const ip = '203.0.113.50';
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => t.client.requestPasswordReset({ email: uniqueEmail('spray'), clientIp: ip })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
      await expectRpcError(Promise.reject(r.reason), Code.ResourceExhausted, TOO_MANY);
    }
    expect(await queue.count()).toBe(before + 3);
    // Another address is not affected.
    await t.client.requestPasswordReset({ email: uniqueEmail('spray'), clientIp: '203.0.113.51' });
  });
});
