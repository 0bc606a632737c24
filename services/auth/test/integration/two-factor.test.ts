import { readOutbox } from '@parley/common/mail-outbox.ts';
import { Code } from '@parley/common/rpc-errors.ts';
import { roleLacksPermission } from '@parley/common/roles.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENROLMENT_CODE_INCORRECT, ENROLMENT_NOT_STARTED } from '../../src/two-factor/confirm-two-factor-enrolment.ts';
import { TWO_FACTOR_CODE_INCORRECT } from '../../src/two-factor/second-factor.ts';
import { TWO_FACTOR_CHALLENGE_INVALID } from '../../src/core/two-factor-challenge.ts';
import { totpCode } from '../../src/two-factor/totp.ts';
import { ENABLE_OWN_TWO_FACTOR_FIRST } from '../../src/workspaces/set-require-two-factor.ts';
import { expectRpcError, startAuth, type AuthHarness } from './harness.ts';
import { actor, join, signUp, WORKSPACE_ENV, type Person } from './workspaces-fixtures.ts';

const THROTTLED = /^Too many wrong two-factor codes\. Please try again in (\d+) minutes?\.$/;

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth({
    ...WORKSPACE_ENV,
    TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT: '3',
    TWO_FACTOR_MAX_FAILURES_PER_IP: '5',
    TWO_FACTOR_CHALLENGE_TTL_SECONDS: '60',
  });
});
afterAll(async () => {
  await h?.close();
});

let ipCounter = 0;
const freshIp = () => `192.0.2.${++ipCounter}`;
/** The code of the step `steps` away from now (one step ahead is accepted as clock skew). */
const codeAt = (secret: string, steps = 0) => totpCode(secret, new Date(Date.now() + steps * 30_000));

interface Enrolled extends Person {
  secret: string;
  recoveryCodes: string[];
}

/** A person with two-factor sign-in on; the code that confirmed it was of the current step. */
async function enrolled(name = 'Ada'): Promise<Enrolled> {
  const person = await signUp(h, name);
  const { secret } = await h.client.startTwoFactorEnrolment({ userId: person.id });
  const { recoveryCodes } = await h.client.confirmTwoFactorEnrolment({ userId: person.id, code: codeAt(secret), clientIp: freshIp() });
  return { ...person, secret, recoveryCodes };
}

async function challengeOf(person: Person, clientIp = freshIp()): Promise<string> {
  const res = await h.client.login({ email: person.email, password: person.password, clientIp });
  expect(res.token).toBe('');
  expect(res.twoFactorChallenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return res.twoFactorChallenge;
}

const mailsTo = async (email: string) => {
  await h.parts.deps.notices.settled();
  return (await readOutbox(h.outboxDir, { limit: 1000 })).filter((m) => m.to.includes(email));
};

describe('Enrolment', () => {
  it('stores the new secret encrypted and turns it on only with a current code', async () => {
    const person = await signUp(h);
    const started = await h.client.startTwoFactorEnrolment({ userId: person.id });
    expect(started.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(started.otpauthUri);
    expect(decodeURIComponent(uri.pathname)).toBe(`/Parley:${person.email}`);
    expect(uri.searchParams.get('secret')).toBe(started.secret);
    const row = await h.db.user.findUniqueOrThrow({ where: { id: person.id } });
    expect(row.twoFactorSecret).not.toContain(started.secret);
    expect(row.twoFactorEnabledAt).toBeNull();
    // Not on yet: the password alone still signs in.
    expect((await h.client.login({ email: person.email, password: person.password, clientIp: freshIp() })).token).not.toBe('');

    const wrong = codeAt(started.secret) === '000000' ? '111111' : '000000';
    await expectRpcError(
      h.client.confirmTwoFactorEnrolment({ userId: person.id, code: wrong, clientIp: freshIp() }),
      Code.InvalidArgument,
      ENROLMENT_CODE_INCORRECT,
    );
    const { recoveryCodes } = await h.client.confirmTwoFactorEnrolment({
      userId: person.id,
      code: codeAt(started.secret),
      clientIp: freshIp(),
    });
    expect(recoveryCodes).toHaveLength(10);
    expect(await h.client.getTwoFactorStatus({ userId: person.id })).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
    expect((await h.client.authenticate({ token: person.token })).user?.twoFactorEnabled).toBe(true);
    // Only hashes are kept.
    const stored = await h.db.recoveryCode.findMany({ where: { userId: person.id } });
    expect(stored.map((c) => c.codeHash).some((hash) => recoveryCodes.some((code) => hash.includes(code.replace('-', ''))))).toBe(false);
    await expectRpcError(
      h.client.startTwoFactorEnrolment({ userId: person.id }),
      Code.FailedPrecondition,
      'Two-factor sign-in is already on.',
    );

    expect((await mailsTo(person.email)).map((m) => m.subject)).toContain('Two-factor sign-in is on for your Parley account');
    const audit = await h.db.auditEvent.findMany({ where: { workspaceId: person.id, action: 'two_factor.enabled' } });
    expect(audit).toMatchObject([{ actorUserId: person.id, target: person.email }]);
  });
});

describe('Enrolment, started again or not at all', () => {
  it('needs a started enrolment, and a new start replaces the secret not yet confirmed', async () => {
    const person = await signUp(h);
    await expectRpcError(
      h.client.confirmTwoFactorEnrolment({ userId: person.id, code: '123456', clientIp: freshIp() }),
      Code.FailedPrecondition,
      ENROLMENT_NOT_STARTED,
    );
    const first = await h.client.startTwoFactorEnrolment({ userId: person.id });
    const second = await h.client.startTwoFactorEnrolment({ userId: person.id });
    expect(second.secret).not.toBe(first.secret);
    const stale = codeAt(first.secret);
    if (stale !== codeAt(second.secret)) {
      await expectRpcError(
        h.client.confirmTwoFactorEnrolment({ userId: person.id, code: stale, clientIp: freshIp() }),
        Code.InvalidArgument,
        ENROLMENT_CODE_INCORRECT,
      );
    }
    expect(
      (await h.client.confirmTwoFactorEnrolment({ userId: person.id, code: codeAt(second.secret), clientIp: freshIp() })).recoveryCodes,
    ).toHaveLength(10);
  });
});

describe('Sign-in with two-factor on', () => {
  it('answers over-long input as a wrong code or an unknown challenge, without looking it up', async () => {
    const person = await enrolled();
    await expectRpcError(
      h.client.completeTwoFactorLogin({ challenge: await challengeOf(person), code: '1'.repeat(10_000), clientIp: freshIp() }),
      Code.Unauthenticated,
      TWO_FACTOR_CODE_INCORRECT,
    );
    await expectRpcError(
      h.client.completeTwoFactorLogin({ challenge: 'x'.repeat(10_000), code: '123456', clientIp: freshIp() }),
      Code.Unauthenticated,
      TWO_FACTOR_CHALLENGE_INVALID,
    );
  });

  it('answers a challenge, not a session, to the password, and the session to the code', async () => {
    const person = await enrolled();
    const sessionsBefore = await h.db.session.count({ where: { userId: person.id } });
    const ip = freshIp();
    const challenge = await challengeOf(person, ip);
    expect(await h.db.session.count({ where: { userId: person.id } })).toBe(sessionsBefore);

    // One step ahead: a phone whose clock runs a little fast.
    const res = await h.client.completeTwoFactorLogin({ challenge, code: codeAt(person.secret, 1), clientIp: ip });
    expect(res.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await h.client.authenticate({ token: res.token })).user?.email).toBe(person.email);
    expect(await h.db.session.count({ where: { userId: person.id, clientIp: ip } })).toBe(1);

    // The challenge worked once.
    await expectRpcError(
      h.client.completeTwoFactorLogin({ challenge, code: person.recoveryCodes[0]!, clientIp: ip }),
      Code.Unauthenticated,
      TWO_FACTOR_CHALLENGE_INVALID,
    );
    // A new address is mailed; the address the account was made from was not.
    const subjects = (await mailsTo(person.email)).map((m) => m.subject);
    expect(subjects.filter((s) => s === 'New sign-in to your Parley account')).toHaveLength(1);
    // ...and audited in the person's workspaces, with the address; a second sign-in from it is neither.
    const newDevice = { workspaceId: person.id, action: 'two_factor.new_device_sign_in' };
    expect(await h.db.auditEvent.findMany({ where: newDevice })).toEqual([
      expect.objectContaining({ actorUserId: person.id, target: person.email, clientIp: ip }),
    ]);
    const again = await challengeOf(person, ip);
    await h.client.completeTwoFactorLogin({ challenge: again, code: person.recoveryCodes[1]!, clientIp: ip });
    expect(await h.db.auditEvent.count({ where: newDevice })).toBe(1);
    const after = (await mailsTo(person.email)).map((m) => m.subject);
    expect(after.filter((s) => s === 'New sign-in to your Parley account')).toHaveLength(1);
  });

  it('does not accept a code again, nor an earlier one, once a code was accepted', async () => {
    const person = await enrolled();
    const code = codeAt(person.secret, 1);
    await h.client.completeTwoFactorLogin({ challenge: await challengeOf(person), code, clientIp: freshIp() });
    for (const replayed of [code, codeAt(person.secret)]) {
      await expectRpcError(
        h.client.completeTwoFactorLogin({ challenge: await challengeOf(person), code: replayed, clientIp: freshIp() }),
        Code.Unauthenticated,
        TWO_FACTOR_CODE_INCORRECT,
      );
    }
  });

  it('keeps the challenge open after a wrong code', async () => {
    const person = await enrolled();
    const challenge = await challengeOf(person);
    const ip = freshIp();
    await expectRpcError(
      h.client.completeTwoFactorLogin({ challenge, code: 'zzzzz-zzzzz', clientIp: ip }),
      Code.Unauthenticated,
      TWO_FACTOR_CODE_INCORRECT,
    );
    const res = await h.client.completeTwoFactorLogin({ challenge, code: person.recoveryCodes[0]!, clientIp: ip });
    expect(res.token).not.toBe('');
  });

  it('refuses an expired or unknown challenge', async () => {
    const person = await enrolled();
    const challenge = await challengeOf(person);
    await h.db.twoFactorChallenge.updateMany({ where: { userId: person.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    for (const token of [challenge, 'x'.repeat(43), '']) {
      await expectRpcError(
        h.client.completeTwoFactorLogin({ challenge: token, code: person.recoveryCodes[0]!, clientIp: freshIp() }),
        Code.Unauthenticated,
        TWO_FACTOR_CHALLENGE_INVALID,
      );
    }
  });

  it('accepts each recovery code once, even sent twice at the same moment', async () => {
    const person = await enrolled();
    const [first, second] = [await challengeOf(person), await challengeOf(person)];
    const code = person.recoveryCodes[3]!.toUpperCase();
    const results = await Promise.allSettled([
      h.client.completeTwoFactorLogin({ challenge: first, code, clientIp: freshIp() }),
      h.client.completeTwoFactorLogin({ challenge: second, code, clientIp: freshIp() }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected');
    expect((refused as PromiseRejectedResult).reason.rawMessage).toBe(TWO_FACTOR_CODE_INCORRECT);
    expect(await h.client.getTwoFactorStatus({ userId: person.id })).toMatchObject({ recoveryCodesLeft: 9 });
  });

  it('accepts the same TOTP code once when sent twice at the same moment', async () => {
    const person = await enrolled();
    const [first, second] = [await challengeOf(person), await challengeOf(person)];
    const code = codeAt(person.secret, 1);
    const results = await Promise.allSettled([
      h.client.completeTwoFactorLogin({ challenge: first, code, clientIp: freshIp() }),
      h.client.completeTwoFactorLogin({ challenge: second, code, clientIp: freshIp() }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('stops guessing at the per-account limit, even with the right code, from any address', async () => {
    const person = await enrolled();
    const challenge = await challengeOf(person);
    for (let i = 0; i < 3; i++) {
      await expectRpcError(
        h.client.completeTwoFactorLogin({ challenge, code: 'zzzzz-zzzzz', clientIp: freshIp() }),
        Code.Unauthenticated,
        TWO_FACTOR_CODE_INCORRECT,
      );
    }
    await expectRpcError(
      h.client.completeTwoFactorLogin({ challenge, code: person.recoveryCodes[0]!, clientIp: freshIp() }),
      Code.ResourceExhausted,
      THROTTLED,
    );
    expect(await h.client.getTwoFactorStatus({ userId: person.id })).toMatchObject({ recoveryCodesLeft: 10 });
  });

  it('stops guessing at the per-address limit across accounts', async () => {
    const ip = freshIp();
    const people = [await enrolled(), await enrolled(), await enrolled()];
    for (const [i, person] of people.entries()) {
      const challenge = await challengeOf(person);
      const tries = i < 2 ? 2 : 1;
      for (let t = 0; t < tries; t++) {
        await expectRpcError(
          h.client.completeTwoFactorLogin({ challenge, code: 'zzzzz-zzzzz', clientIp: ip }),
          Code.Unauthenticated,
          TWO_FACTOR_CODE_INCORRECT,
        );
      }
    }
    await expectRpcError(
      h.client.completeTwoFactorLogin({ challenge: await challengeOf(people[2]!), code: people[2]!.recoveryCodes[0]!, clientIp: ip }),
      Code.ResourceExhausted,
      THROTTLED,
    );
  });

  it("clears the account's count after a right code", async () => {
    const person = await enrolled();
    for (let round = 0; round < 3; round++) {
      const challenge = await challengeOf(person);
      await expectRpcError(
        h.client.completeTwoFactorLogin({ challenge, code: 'zzzzz-zzzzz', clientIp: freshIp() }),
        Code.Unauthenticated,
        TWO_FACTOR_CODE_INCORRECT,
      );
      await h.client.completeTwoFactorLogin({ challenge, code: person.recoveryCodes[round]!, clientIp: freshIp() });
    }
  });
});

describe('Turning it off and new recovery codes', () => {
  it('needs the password and a code to turn it off; then the password alone signs in', async () => {
    const person = await enrolled();
    const code = person.recoveryCodes[0]!;
    await expectRpcError(
      h.client.disableTwoFactor({ userId: person.id, password: 'wrong', code, clientIp: freshIp() }),
      Code.InvalidArgument,
      'Current password is incorrect',
    );
    await expectRpcError(
      h.client.disableTwoFactor({ userId: person.id, password: person.password, code: 'zzzzz-zzzzz', clientIp: freshIp() }),
      Code.InvalidArgument,
      TWO_FACTOR_CODE_INCORRECT,
    );
    await h.client.disableTwoFactor({ userId: person.id, password: person.password, code, clientIp: freshIp() });
    expect(await h.client.getTwoFactorStatus({ userId: person.id })).toMatchObject({ enabled: false, recoveryCodesLeft: 0 });
    expect(await h.db.user.findUniqueOrThrow({ where: { id: person.id } })).toMatchObject({
      twoFactorSecret: null,
      twoFactorLastStep: null,
    });
    expect((await h.client.login({ email: person.email, password: person.password, clientIp: freshIp() })).token).not.toBe('');
    expect((await mailsTo(person.email)).map((m) => m.subject)).toContain('Two-factor sign-in is off for your Parley account');
    expect(await h.db.auditEvent.count({ where: { workspaceId: person.id, action: 'two_factor.disabled' } })).toBe(1);
  });

  it('replaces every recovery code', async () => {
    const person = await enrolled();
    const { recoveryCodes } = await h.client.regenerateRecoveryCodes({
      userId: person.id,
      password: person.password,
      code: codeAt(person.secret, 1),
      clientIp: freshIp(),
    });
    expect(recoveryCodes).toHaveLength(10);
    expect(recoveryCodes.some((c) => person.recoveryCodes.includes(c))).toBe(false);
    await expectRpcError(
      h.client.completeTwoFactorLogin({ challenge: await challengeOf(person), code: person.recoveryCodes[1]!, clientIp: freshIp() }),
      Code.Unauthenticated,
      TWO_FACTOR_CODE_INCORRECT,
    );
    expect(
      (await h.client.completeTwoFactorLogin({ challenge: await challengeOf(person), code: recoveryCodes[1]!, clientIp: freshIp() })).token,
    ).not.toBe('');
    expect(await h.db.auditEvent.count({ where: { workspaceId: person.id, action: 'two_factor.recovery_codes_regenerated' } })).toBe(1);
  });
});

describe('A workspace that requires two-factor sign-in', () => {
  it('is turned on by an admin who has it, and tells each member whether they have it', async () => {
    const owner = await signUp(h, 'Owner');
    const { workspace } = await h.workspaces.createWorkspace({ userId: owner.id, name: 'Acme', clientIp: '198.51.100.7' });
    const workspaceId = workspace!.id;
    const member = await signUp(h, 'Member');
    await join(h, owner, workspaceId, member, 'editor');

    await expectRpcError(
      h.workspaces.setRequireTwoFactor({ actor: actor(owner, workspaceId), enabled: true }),
      Code.FailedPrecondition,
      ENABLE_OWN_TWO_FACTOR_FIRST,
    );
    const { secret } = await h.client.startTwoFactorEnrolment({ userId: owner.id });
    await h.client.confirmTwoFactorEnrolment({ userId: owner.id, code: codeAt(secret), clientIp: freshIp() });
    await expectRpcError(
      h.workspaces.setRequireTwoFactor({ actor: actor(member, workspaceId), enabled: true }),
      Code.PermissionDenied,
      roleLacksPermission('members:manage'),
    );
    const res = await h.workspaces.setRequireTwoFactor({ actor: actor(owner, workspaceId), enabled: true });
    expect(res.workspace?.requireTwoFactor).toBe(true);
    expect(await h.db.auditEvent.count({ where: { workspaceId, action: 'workspace.two_factor_required' } })).toBe(1);

    const seen = await h.client.authenticate({ token: member.token, workspaceId });
    expect(seen.workspace?.requireTwoFactor).toBe(true);
    expect(seen.user?.twoFactorEnabled).toBe(false);
    expect((await h.workspaces.listWorkspaces({ userId: member.id })).workspaces.find((w) => w.id === workspaceId)?.requireTwoFactor).toBe(
      true,
    );
  });
});
