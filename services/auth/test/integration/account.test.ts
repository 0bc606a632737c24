import { randomUUID } from 'node:crypto';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Code } from '@parley/common/rpc-errors.ts';
import type { CaughtMail } from '@parley/common/testing/smtp-catcher.ts';
import type { Logger } from '@parley/common/logger.ts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNotices } from '../../src/mail/notices.ts';
import { changePassword } from '../../src/passwords/change-password.ts';
import { hashSessionToken } from '../../src/core/session-token.ts';
import { expectRpcError, startAuth, uniqueEmail, type AuthHarness } from './harness.ts';

const WRONG = 'Current password is incorrect';
const EXPIRED = 'Session expired. Please login again.';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth({ LOGIN_MAX_FAILURES_PER_IP_AND_ACCOUNT: '3' }, { smtp: true });
});
afterAll(async () => {
  await h?.close();
});

let ipCounter = 0;
const freshIp = () => `198.51.100.${++ipCounter}`;

async function account(password = 'secret1') {
  const email = uniqueEmail('account');
  const reg = await h.client.register({ email, password, passwordConfirmation: password, name: 'Ada', clientIp: freshIp() });
  return { email, token: reg.token, userId: reg.user!.id };
}

const mailTo = (email: string, subject: string) => (m: CaughtMail) => m.to.includes(email) && m.subject === subject;

describe('UpdateProfile', () => {
  it('sets the name, trimmed; an empty one is allowed', async () => {
    const { userId, token } = await account();
    const res = await h.client.updateProfile({ userId, name: '  Ada Lovelace ' });
    expect(res.user).toMatchObject({ id: userId, name: 'Ada Lovelace' });
    expect((await h.client.authenticate({ token })).user?.name).toBe('Ada Lovelace');
    expect((await h.client.updateProfile({ userId, name: '   ' })).user?.name).toBe('');
    expect((await h.db.user.findUniqueOrThrow({ where: { id: userId } })).name).toBe('');
  });

  it('refuses over-long names and control characters, and unknown users', async () => {
    const { userId } = await account();
    await expectRpcError(
      h.client.updateProfile({ userId, name: 'n'.repeat(101) }),
      Code.InvalidArgument,
      'Name must be at most 100 characters',
    );
    await expectRpcError(
      h.client.updateProfile({ userId, name: 'Ada\u001b[31m' }),
      Code.InvalidArgument,
      'Name must not contain control characters',
    );
    expect((await h.client.updateProfile({ userId, name: 'n'.repeat(100) })).user?.name).toHaveLength(100);
    await expectRpcError(h.client.updateProfile({ userId: randomUUID(), name: 'X' }), Code.NotFound, 'Account not found');
    await expectRpcError(h.client.updateProfile({ userId: 'not-a-uuid', name: 'X' }), Code.NotFound, 'Account not found');
  });
});

describe('ChangeEmail', () => {
  it('needs the current password, then changes the email and tells the old address', async () => {
    const { email, userId } = await account();
    const newEmail = uniqueEmail('moved');
    await expectRpcError(
      h.client.changeEmail({ userId, currentPassword: 'wrong-one', newEmail, clientIp: freshIp() }),
      Code.InvalidArgument,
      WRONG,
    );
    expect((await h.db.user.findUniqueOrThrow({ where: { id: userId } })).email).toBe(email);

    await h.client.requestPasswordReset({ email, clientIp: freshIp() });
    await h.smtp!.waitForMail(mailTo(email, 'Reset your Parley password'));
    await expect.poll(() => h.db.passwordResetToken.count({ where: { userId, mailedAt: { not: null } } })).toBe(1);

    const res = await h.client.changeEmail({
      userId,
      currentPassword: 'secret1',
      newEmail: ` ${newEmail.toUpperCase()} `,
      clientIp: freshIp(),
    });
    expect(res.user).toMatchObject({ id: userId, email: newEmail });
    expect((await h.client.login({ email: newEmail, password: 'secret1', clientIp: freshIp() })).user?.id).toBe(userId);
    await expectRpcError(h.client.login({ email, password: 'secret1', clientIp: freshIp() }), Code.Unauthenticated, 'Invalid credentials');

    // A reset link sent to the old address before the change no longer works.
    const resetToken = await h.db.passwordResetToken.findFirst({ where: { userId } });
    expect(resetToken?.usedAt).not.toBeNull();

    const notice = await h.smtp!.waitForMail(mailTo(email, 'Your Parley email address was changed'));
    expect(notice.text).toContain(newEmail);
    expect(h.smtp!.mails.filter((m) => m.to.includes(newEmail))).toHaveLength(0);
  });

  it('refuses an email another account has, and returns the user unchanged for the same email', async () => {
    const { email, userId } = await account();
    const other = await account();
    await expectRpcError(
      h.client.changeEmail({ userId, currentPassword: 'secret1', newEmail: other.email.toUpperCase(), clientIp: freshIp() }),
      Code.AlreadyExists,
      'An account with this email already exists',
    );
    const same = await h.client.changeEmail({ userId, currentPassword: 'secret1', newEmail: email.toUpperCase(), clientIp: freshIp() });
    expect(same.user).toMatchObject({ id: userId, email });
  });

  it('validates the new email like registration', async () => {
    const { userId } = await account();
    const cases: [string, string][] = [
      ['', 'Please enter all required fields'],
      ['not-an-email', 'Please enter a valid email address'],
      [`${'a'.repeat(250)}@example.com`, 'Email must be at most 254 characters'],
      ['ada\u0001@example.com', 'Email must not contain control characters'],
    ];
    for (const [newEmail, message] of cases) {
      await expectRpcError(
        h.client.changeEmail({ userId, currentPassword: 'secret1', newEmail, clientIp: freshIp() }),
        Code.InvalidArgument,
        message,
      );
    }
    await expectRpcError(
      h.client.changeEmail({ userId, currentPassword: '', newEmail: uniqueEmail(), clientIp: freshIp() }),
      Code.InvalidArgument,
      'Please enter all required fields',
    );
  });

  it('counts wrong current passwords with the login throttle, so the form cannot be used to guess', async () => {
    const { userId } = await account();
    const ip = freshIp();
    for (let i = 0; i < 3; i++) {
      await expectRpcError(
        h.client.changeEmail({ userId, currentPassword: `guess-${i}`, newEmail: uniqueEmail(), clientIp: ip }),
        Code.InvalidArgument,
        WRONG,
      );
    }
    // The (IP, account) limit (3) is used up: even the right password is refused from that address.
    await expectRpcError(
      h.client.changeEmail({ userId, currentPassword: 'secret1', newEmail: uniqueEmail(), clientIp: ip }),
      Code.ResourceExhausted,
      /^Too many failed login attempts\. Please try again in \d+ minutes?\.$/,
    );
    // ... and the same counter stops a login from there.
    const { email } = await h.db.user.findUniqueOrThrow({ where: { id: userId } });
    await expectRpcError(
      h.client.login({ email, password: 'secret1', clientIp: ip }),
      Code.ResourceExhausted,
      /^Too many failed login attempts/,
    );
  });
});

describe('ChangePassword', () => {
  it('needs the current password, then signs out every other session but keeps the current one', async () => {
    const { email, token, userId } = await account();
    const second = await h.client.login({ email, password: 'secret1', clientIp: freshIp() });
    const third = await h.client.login({ email, password: 'secret1', clientIp: freshIp() });
    // An already expired session is not counted.
    const expired = await h.client.login({ email, password: 'secret1', clientIp: freshIp() });
    await h.db.session.update({ where: { tokenHash: hashSessionToken(expired.token) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectRpcError(h.client.authenticate({ token: expired.token }), Code.Unauthenticated, EXPIRED);

    const request = {
      userId,
      currentPassword: 'secret1',
      newPassword: 'new-secret',
      newPasswordConfirmation: 'new-secret',
      keepToken: token,
      clientIp: freshIp(),
    };
    await expectRpcError(h.client.changePassword({ ...request, currentPassword: 'wrong-one' }), Code.InvalidArgument, WRONG);
    // Nothing changed by the refused attempt.
    expect((await h.client.authenticate({ token: second.token })).user?.id).toBe(userId);

    const res = await h.client.changePassword(request);
    expect(res.revokedSessions).toBe(2);
    expect((await h.client.authenticate({ token })).user?.id).toBe(userId);
    for (const t of [second.token, third.token]) await expectRpcError(h.client.authenticate({ token: t }), Code.Unauthenticated, EXPIRED);
    expect((await h.client.login({ email, password: 'new-secret', clientIp: freshIp() })).user?.id).toBe(userId);
    await expectRpcError(h.client.login({ email, password: 'secret1', clientIp: freshIp() }), Code.Unauthenticated, 'Invalid credentials');
    await h.smtp!.waitForMail(mailTo(email, 'Your Parley password was changed'));
  });

  it("applies registration's password rules", async () => {
    const { token, userId } = await account();
    const base = { userId, currentPassword: 'secret1', keepToken: token, clientIp: freshIp() };
    const cases: [string, string, string][] = [
      ['', '', 'Please enter all required fields'],
      ['new-secret', 'other-secret', 'Passwords do not match'],
      ['abc', 'abc', 'Password must be at least 6 characters'],
      ['p'.repeat(1025), 'p'.repeat(1025), 'Password must be at most 1024 characters'],
    ];
    for (const [newPassword, newPasswordConfirmation, message] of cases) {
      await expectRpcError(h.client.changePassword({ ...base, newPassword, newPasswordConfirmation }), Code.InvalidArgument, message);
    }
    await expectRpcError(
      h.client.changePassword({ ...base, currentPassword: '', newPassword: 'new-secret', newPasswordConfirmation: 'new-secret' }),
      Code.InvalidArgument,
      'Please enter all required fields',
    );
  });

  it('retires reset links asked for before the change', async () => {
    const { email, token, userId } = await account();
    await h.client.requestPasswordReset({ email, clientIp: freshIp() });
    const mail = await h.smtp!.waitForMail(mailTo(email, 'Reset your Parley password'));
    const resetToken = new URL(mail.text.match(/https?:\/\/\S+reset-password\S+/)![0]).searchParams.get('token')!;
    await h.client.changePassword({
      userId,
      currentPassword: 'secret1',
      newPassword: 'new-secret',
      newPasswordConfirmation: 'new-secret',
      keepToken: token,
      clientIp: freshIp(),
    });
    await expectRpcError(
      h.client.resetPassword({ token: resetToken, password: 'evil-secret', passwordConfirmation: 'evil-secret' }),
      Code.InvalidArgument,
      'This reset link has already been used.',
    );
  });
});

describe('ListSessions and RevokeOtherSessions', () => {
  it('lists live sessions newest first, marks the current one, and signs out the others', async () => {
    const { email, token, userId } = await account();
    const ipA = freshIp();
    const a = await h.client.login({ email, password: 'secret1', clientIp: ipA });
    const b = await h.client.login({ email, password: 'secret1', clientIp: freshIp() });
    await h.client.logout({ token: b.token });
    const c = await h.client.login({ email, password: 'secret1', clientIp: freshIp() });
    await h.db.session.update({ where: { tokenHash: hashSessionToken(c.token) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectRpcError(h.client.authenticate({ token: c.token }), Code.Unauthenticated, EXPIRED);

    const { sessions } = await h.client.listSessions({ userId, currentToken: a.token });
    // The sign-up's session and a's: not the revoked one, not the expired one.
    expect(sessions).toHaveLength(2);
    expect(sessions.map((s) => s.current)).toEqual([true, false]);
    expect(sessions[0].clientIp).toBe(ipA);
    expect(timestampDate(sessions[0].createdAt!).getTime()).toBeGreaterThanOrEqual(timestampDate(sessions[1].createdAt!).getTime());
    expect(timestampDate(sessions[0].expiresAt!).getTime()).toBeGreaterThan(Date.now());
    // Nothing secret is listed.
    expect(JSON.stringify(sessions, (_key, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(a.token);

    const res = await h.client.revokeOtherSessions({ userId, keepToken: a.token });
    expect(res.revokedSessions).toBe(1);
    await expectRpcError(h.client.authenticate({ token }), Code.Unauthenticated, EXPIRED);
    expect((await h.client.authenticate({ token: a.token })).user?.id).toBe(userId);
    expect((await h.client.listSessions({ userId, currentToken: a.token })).sessions.map((s) => s.current)).toEqual([true]);
    expect((await h.client.revokeOtherSessions({ userId, keepToken: a.token })).revokedSessions).toBe(0);
  });

  it("never touches another user's sessions", async () => {
    const mine = await account();
    const theirs = await account();
    expect((await h.client.revokeOtherSessions({ userId: mine.userId, keepToken: theirs.token })).revokedSessions).toBe(1);
    expect((await h.client.authenticate({ token: theirs.token })).user?.id).toBe(theirs.userId);
    expect((await h.client.listSessions({ userId: mine.userId, currentToken: theirs.token })).sessions).toHaveLength(0);
    expect((await h.client.listSessions({ userId: theirs.userId, currentToken: '' })).sessions.map((s) => s.current)).toEqual([false]);
  });
});

describe('notices', () => {
  it('a notice that cannot be sent is logged; the change it reports stands', async () => {
    const { email, token, userId } = await account();
    const error = vi.fn();
    const logger = { ...h.parts.deps.logger, error, debug: vi.fn(), info: vi.fn() } as unknown as Logger;
    const failing = createNotices({ send: () => Promise.reject(new Error('mail server down')), close: () => {} }, logger);
    const revoked = await changePassword(
      { ...h.parts.deps, logger, notices: failing },
      {
        userId,
        currentPassword: 'secret1',
        newPassword: 'new-secret',
        newPasswordConfirmation: 'new-secret',
        keepToken: token,
        clientIp: freshIp(),
      },
    );
    expect(revoked).toBe(0);
    await failing.settled();
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({ userId, subject: 'Your Parley password was changed', err: 'mail server down' }),
      'could not send a notice mail',
    );
    expect((await h.client.login({ email, password: 'new-secret', clientIp: freshIp() })).user?.id).toBe(userId);
  });
});
