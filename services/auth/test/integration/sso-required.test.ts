// A workspace that requires single sign-on: password sign-in is refused for its members in the
// claimed domains, with a message naming the SSO path; an owner breaks glass with password and
// two-factor sign-in only; people outside the claimed domains sign in as before.
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { Code } from '@parley/common/rpc-errors.ts';
import { SsoService } from '@parley/proto/parley/auth/v1/sso_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SSO_REQUIRED, SSO_REQUIRED_OWNER_WITHOUT_TWO_FACTOR } from '../../src/core/sso-required.ts';
import { REQUIRE_SSO_NEEDS_SET_UP } from '../../src/sso/sso-settings.ts';
import { totpCode } from '../../src/two-factor/totp.ts';
import { expectRpcError, startAuth, type AuthHarness } from './harness.ts';
import { actor, join, signUp, WORKSPACE_ENV, type Person } from './workspaces-fixtures.ts';
import { idpKeys } from './sso-fixtures.ts';

let h: AuthHarness;
let sso: ReturnType<typeof createServiceClient<typeof SsoService>>;
let owner: Person;
let member: Person;
let outsider: Person;
let workspaceId: string;
let certificate: string;

async function person(email: string): Promise<Person> {
  const password = 'secret1';
  const r = await h.client.register({ email, password, passwordConfirmation: password, name: 'P', clientIp: '203.0.113.1' });
  return { id: r.user!.id, email, token: r.token, password };
}

const settings = (requireSso: boolean, claimedDomains = ['globex.test']) => ({
  actor: actor(owner, workspaceId),
  protocol: 'saml',
  samlEntryPoint: 'https://idp.globex.test/sso',
  samlIdpCertificate: certificate,
  claimedDomains,
  defaultRole: 'viewer',
  requireSso,
});

const login = (p: Person) => h.client.login({ email: p.email, password: p.password, clientIp: '198.51.100.40' });

beforeAll(async () => {
  h = await startAuth(WORKSPACE_ENV);
  sso = createServiceClient(SsoService, h.url, { timeoutMs: 15_000 });
  certificate = (await idpKeys()).certificate;
  owner = await person('owner@globex.test');
  member = await person('hank@globex.test');
  outsider = await signUp(h, 'Guest');
  workspaceId = (await h.workspaces.createWorkspace({ userId: owner.id, name: 'Globex', clientIp: '198.51.100.7' })).workspace!.id;
  await join(h, owner, workspaceId, member, 'editor');
  await join(h, owner, workspaceId, outsider, 'viewer');
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('a workspace that requires single sign-on', () => {
  it('cannot require it before a provider is set up and a domain claimed', async () => {
    await expectRpcError(sso.saveSsoSettings(settings(true, [])), Code.FailedPrecondition, REQUIRE_SSO_NEEDS_SET_UP);
  });

  it('refuses the password of a member in its claimed domains, naming the SSO path, and lets them in once it is off', async () => {
    await sso.saveSsoSettings(settings(true));
    await expectRpcError(login(member), Code.FailedPrecondition, SSO_REQUIRED('Globex'));
    // A wrong password learns nothing about the workspace.
    await expectRpcError(
      h.client.login({ email: member.email, password: 'wrong1', clientIp: '198.51.100.40' }),
      Code.Unauthenticated,
      /Invalid credentials/,
    );
    // Members from other domains are not the identity provider's to sign in.
    expect((await login(outsider)).token).toBeTruthy();
    await sso.saveSsoSettings(settings(false));
    expect((await login(member)).token).toBeTruthy();
  });

  it('lets an owner break glass with password and two-factor sign-in, not with the password alone', async () => {
    await sso.saveSsoSettings(settings(true));
    await expectRpcError(login(owner), Code.FailedPrecondition, SSO_REQUIRED_OWNER_WITHOUT_TWO_FACTOR('Globex'));
    const { secret } = await h.client.startTwoFactorEnrolment({ userId: owner.id });
    await h.client.confirmTwoFactorEnrolment({ userId: owner.id, code: totpCode(secret, new Date()), clientIp: '198.51.100.41' });
    const first = await login(owner);
    expect(first.token).toBe('');
    expect(first.twoFactorChallenge).toBeTruthy();
    const signedIn = await h.client.completeTwoFactorLogin({
      challenge: first.twoFactorChallenge,
      code: totpCode(secret, new Date(Date.now() + 30_000)),
      clientIp: '198.51.100.40',
    });
    expect((await h.client.authenticate({ token: signedIn.token, workspaceId })).workspace!.role).toBe('owner');
  });
});
