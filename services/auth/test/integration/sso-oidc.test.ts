// Single sign-on through a real OpenID provider (oidc-provider on a local port, its login form walked
// as a browser would): the sign-in, and every kind of refused answer, each without a session.
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { Code } from '@parley/common/rpc-errors.ts';
import { SsoService } from '@parley/proto/parley/auth/v1/sso_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_NEEDS_OWNER_IN_DOMAIN, DOMAIN_CLAIMED_ELSEWHERE } from '../../src/sso/claimed-domains.ts';
import { EMAIL_OUTSIDE_CLAIMED_DOMAINS, NO_SEAT_FOR_SSO, NOT_A_MEMBER } from '../../src/sso/complete-sso-sign-in.ts';
import { NO_BROWSER_BINDING, OTHER_BROWSER, SSO_SIGN_IN_EXPIRED } from '../../src/sso/sso-deps.ts';
import { NO_SSO_FOR_EMAIL } from '../../src/sso/start-sso-sign-in.ts';
import { expectRpcError, startAuth, TEST_PUBLIC_URL, type AuthHarness } from './harness.ts';
import { actor, WORKSPACE_ENV, type Person } from './workspaces-fixtures.ts';
import {
  BROWSER,
  newBrowser,
  OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET,
  signInAtProvider,
  startOidcProvider,
  type OidcProviderHarness,
} from './sso-fixtures.ts';

const CALLBACK = `${TEST_PUBLIC_URL}/api/auth/sso/oidc/callback`;
let h: AuthHarness;
let idp: OidcProviderHarness;
let sso: ReturnType<typeof createServiceClient<typeof SsoService>>;
let owner: Person;
let workspaceId: string;

async function person(email: string): Promise<Person> {
  const password = 'secret1';
  const r = await h.client.register({
    email,
    password,
    passwordConfirmation: password,
    name: email.split('@')[0],
    clientIp: '203.0.113.1',
  });
  return { id: r.user!.id, email, token: r.token, password };
}

const settings = (overrides: Record<string, unknown> = {}) => ({
  actor: actor(owner, workspaceId),
  protocol: 'oidc',
  oidcIssuer: idp.issuer,
  oidcClientId: OIDC_CLIENT_ID,
  oidcClientSecret: OIDC_CLIENT_SECRET,
  claimedDomains: ['acme.test'],
  defaultRole: 'editor',
  autoCreate: true,
  requireSso: false,
  ...overrides,
});

/** Starts at Parley, signs in at the provider, and answers the callback's query string. */
async function throughProvider(email: string, login = email): Promise<string> {
  const { redirectUrl } = await sso.startSsoSignIn({ email, browserBinding: BROWSER });
  const callback = await signInAtProvider(redirectUrl, login, CALLBACK);
  return callback.search.slice(1);
}

/** The provider's answer brought back by a browser (the one that started, unless said), with room for 100 members. */
const complete = (oidcQuery: string, opts: { browserBinding?: string; seatLimit?: number } = {}) =>
  sso.completeSsoSignIn({
    protocol: 'oidc',
    oidcQuery,
    clientIp: '198.51.100.20',
    browserBinding: opts.browserBinding ?? BROWSER,
    seatLimit: opts.seatLimit ?? 100,
    plan: 'pro',
  });
const sessions = () => h.db.session.count();

beforeAll(async () => {
  h = await startAuth({ ...WORKSPACE_ENV, SSO_ALLOW_PRIVATE_ADDRESSES: '1' });
  idp = await startOidcProvider(CALLBACK);
  sso = createServiceClient(SsoService, h.url, { timeoutMs: 15_000 });
  owner = await person('owner@acme.test');
  workspaceId = (await h.workspaces.createWorkspace({ userId: owner.id, name: 'Acme', clientIp: '198.51.100.7' })).workspace!.id;
  await sso.saveSsoSettings(settings());
}, 60_000);

afterAll(async () => {
  await idp?.close();
  await h?.close();
});

describe('settings', () => {
  it('seals the client secret, never answers it, and audits the change without it', async () => {
    const { settings: s } = await sso.getSsoSettings({ actor: actor(owner, workspaceId) });
    expect(s).toMatchObject({ protocol: 'oidc', oidcIssuer: idp.issuer, oidcClientSecretSet: true, claimedDomains: ['acme.test'] });
    expect(s!.oidcRedirectUri).toBe(CALLBACK);
    const row = await h.db.ssoConnection.findUniqueOrThrow({ where: { workspaceId } });
    expect(row.oidcClientSecret).toMatch(/^v1\./);
    expect(row.oidcClientSecret).not.toContain(OIDC_CLIENT_SECRET);
    const audit = await h.db.auditEvent.findFirstOrThrow({ where: { workspaceId, action: 'workspace.sso_updated' } });
    expect(JSON.stringify(audit.details)).not.toContain(OIDC_CLIENT_SECRET);
  });

  it('lets only an owner whose own email is in a domain claim it, and one workspace only', async () => {
    await expectRpcError(
      sso.saveSsoSettings(settings({ claimedDomains: ['acme.test', 'other.test'] })),
      Code.PermissionDenied,
      CLAIM_NEEDS_OWNER_IN_DOMAIN('other.test'),
    );
    const rival = await person('boss@acme.test');
    const rivalWs = (await h.workspaces.createWorkspace({ userId: rival.id, name: 'Rival', clientIp: '198.51.100.7' })).workspace!.id;
    await expectRpcError(
      sso.saveSsoSettings({ ...settings({ claimedDomains: ['acme.test'] }), actor: actor(rival, rivalWs) }),
      Code.AlreadyExists,
      DOMAIN_CLAIMED_ELSEWHERE('acme.test'),
    );
    await expectRpcError(sso.saveSsoSettings(settings({ claimedDomains: ['gmail.com'] })), Code.InvalidArgument, /public mail provider/);
  });
});

describe('sign-in through the provider', () => {
  it('creates the account at the default role on first sign-in and opens a session like a password sign-in', async () => {
    const { token, test } = await complete(await throughProvider('dev@acme.test'));
    expect(test).toBe(false);
    const { user, workspace } = await h.client.authenticate({ token, workspaceId });
    expect(user!.email).toBe('dev@acme.test');
    expect(workspace!.role).toBe('editor');
    // Signing in again reuses the account.
    const again = await complete(await throughProvider('DEV@acme.test', 'dev@acme.test'));
    expect((await h.client.authenticate({ token: again.token, workspaceId })).user!.id).toBe(user!.id);
    expect(await h.db.auditEvent.count({ where: { workspaceId, action: 'member.joined_by_sso' } })).toBe(1);
  });

  it('refuses an email whose domain no workspace claims', async () => {
    await expectRpcError(sso.startSsoSignIn({ email: 'someone@nowhere.test', browserBinding: BROWSER }), Code.NotFound, NO_SSO_FOR_EMAIL);
  });

  it('refuses a bad state, and a callback used twice', async () => {
    const query = await throughProvider('dev@acme.test');
    const before = await sessions();
    const tampered = new URLSearchParams(query);
    tampered.set('state', 'x'.repeat(43));
    await expectRpcError(complete(tampered.toString()), Code.Unauthenticated, SSO_SIGN_IN_EXPIRED);
    await complete(query);
    await expectRpcError(complete(query), Code.Unauthenticated, SSO_SIGN_IN_EXPIRED);
    expect(await sessions()).toBe(before + 1);
  });

  it('refuses an ID token whose nonce is not the one this sign-in sent', async () => {
    const query = await throughProvider('dev@acme.test');
    const state = new URLSearchParams(query).get('state')!;
    const { createHash } = await import('node:crypto');
    await h.db.ssoSignIn.update({
      where: { stateHash: createHash('sha256').update(state).digest('hex') },
      data: { nonce: 'another-nonce' },
    });
    const before = await sessions();
    await expectRpcError(complete(query), Code.Unauthenticated, /nonce/);
    expect(await sessions()).toBe(before);
  });

  it('refuses an ID token signed by another key than the issuer publishes', async () => {
    const query = await throughProvider('dev@acme.test');
    const before = await sessions();
    idp.publishOtherKeys(true);
    try {
      await expectRpcError(complete(query), Code.Unauthenticated, /Single sign-on failed/);
    } finally {
      idp.publishOtherKeys(false);
    }
    expect(await sessions()).toBe(before);
  });

  it('refuses an email outside the claimed domains, whatever the provider says', async () => {
    const before = await sessions();
    await expectRpcError(
      complete(await throughProvider('dev@acme.test', 'eve@evil.test')),
      Code.PermissionDenied,
      EMAIL_OUTSIDE_CLAIMED_DOMAINS('eve@evil.test'),
    );
    expect(await sessions()).toBe(before);
  });

  it('without automatic accounts, refuses a person who is not a member', async () => {
    await sso.saveSsoSettings(settings({ autoCreate: false, oidcClientSecret: '' }));
    try {
      await expectRpcError(complete(await throughProvider('new@acme.test')), Code.PermissionDenied, NOT_A_MEMBER);
      expect(await h.db.user.count({ where: { email: 'new@acme.test' } })).toBe(0);
    } finally {
      await sso.saveSsoSettings(settings());
    }
  });

  it('a Test sign-in checks the set-up and opens no session', async () => {
    const { redirectUrl } = await sso.startSsoSignIn({ testBy: actor(owner, workspaceId), browserBinding: BROWSER });
    const callback = await signInAtProvider(redirectUrl, 'owner@acme.test', CALLBACK);
    const before = await sessions();
    const r = await complete(callback.search.slice(1));
    expect(r).toMatchObject({ test: true, token: '', email: 'owner@acme.test', workspaceId });
    expect(await sessions()).toBe(before);
  });
});

describe('the browser that started the sign-in', () => {
  it('is required: a start without its cookie value is refused', async () => {
    await expectRpcError(sso.startSsoSignIn({ email: 'dev@acme.test' }), Code.InvalidArgument, NO_BROWSER_BINDING);
    await expectRpcError(sso.startSsoSignIn({ email: 'dev@acme.test', browserBinding: 'short' }), Code.InvalidArgument, NO_BROWSER_BINDING);
  });

  it('alone completes it: an answer brought by another browser, or none, opens nothing and spends the state', async () => {
    // The attacker starts a sign-in and walks the provider with their own account; the victim's
    // browser then follows the callback link, carrying the victim's own cookie (or none).
    const query = await throughProvider('dev@acme.test');
    const before = await sessions();
    await expectRpcError(complete(query, { browserBinding: newBrowser() }), Code.Unauthenticated, OTHER_BROWSER);
    await expectRpcError(complete(query, { browserBinding: BROWSER }), Code.Unauthenticated, SSO_SIGN_IN_EXPIRED);
    const again = await throughProvider('dev@acme.test');
    await expectRpcError(complete(again, { browserBinding: '' }), Code.Unauthenticated, OTHER_BROWSER);
    expect(await sessions()).toBe(before);
  });

  it('keeps only the hash of the cookie value with the sign-in', async () => {
    const query = await throughProvider('dev@acme.test');
    const state = new URLSearchParams(query).get('state')!;
    const { createHash } = await import('node:crypto');
    const row = await h.db.ssoSignIn.findUniqueOrThrow({ where: { stateHash: createHash('sha256').update(state).digest('hex') } });
    expect(row.browserBindingHash).toBe(createHash('sha256').update(BROWSER).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(BROWSER);
  });

  it('names the workspace of a sign-in in flight, and nothing for a state it does not know', async () => {
    const query = await throughProvider('dev@acme.test');
    expect(await sso.getSsoSignInWorkspace({ protocol: 'oidc', oidcQuery: query })).toEqual(expect.objectContaining({ workspaceId }));
    expect((await sso.getSsoSignInWorkspace({ protocol: 'oidc', oidcQuery: 'state=unknown' })).workspaceId).toBe('');
    expect((await sso.getSsoSignInWorkspace({ protocol: 'saml', relayState: new URLSearchParams(query).get('state')! })).workspaceId).toBe(
      '',
    );
  });
});

describe('seats on a first sign-in', () => {
  const members = () => h.db.membership.count({ where: { workspaceId } });

  it('refuses a new member beyond the seat limit, with a clear message, audited, and creates no account', async () => {
    const full = await members();
    const before = await sessions();
    await expectRpcError(
      complete(await throughProvider('latecomer@acme.test'), { seatLimit: full }),
      Code.PermissionDenied,
      NO_SEAT_FOR_SSO('pro', full),
    );
    expect(await members()).toBe(full);
    expect(await h.db.user.count({ where: { email: 'latecomer@acme.test' } })).toBe(0);
    expect(await sessions()).toBe(before);
    const audit = await h.db.auditEvent.findFirstOrThrow({ where: { workspaceId, action: 'member.sso_refused_no_seat' } });
    expect(audit).toMatchObject({
      actorUserId: null,
      actorEmail: 'latecomer@acme.test',
      target: 'latecomer@acme.test',
      clientIp: '198.51.100.20',
    });
    expect(audit.details).toMatchObject({ role: 'editor', seatLimit: full, plan: 'pro' });
  });

  it('still lets a member in when the workspace is full: they hold a seat already', async () => {
    const full = await members();
    const { token } = await complete(await throughProvider('dev@acme.test'), { seatLimit: full });
    expect((await h.client.authenticate({ token, workspaceId })).user!.email).toBe('dev@acme.test');
  });

  it('counts pending invitations as taken seats', async () => {
    const full = await members();
    await h.workspaces.createInvitation({
      actor: actor(owner, workspaceId),
      email: 'invited@acme.test',
      role: 'viewer',
      seatLimit: full + 1,
      plan: 'pro',
    });
    await expectRpcError(
      complete(await throughProvider('another@acme.test'), { seatLimit: full + 1 }),
      Code.PermissionDenied,
      NO_SEAT_FOR_SSO('pro', full + 1),
    );
  });

  it('gives the last seat to exactly one of two first sign-ins at the same moment', async () => {
    const full = await members();
    const pending = await h.db.invitation.count({ where: { workspaceId, acceptedAt: null, revokedAt: null } });
    const [a, b] = [await throughProvider('first@acme.test'), await throughProvider('second@acme.test')];
    const results = await Promise.allSettled([
      complete(a, { seatLimit: full + pending + 1 }),
      complete(b, { seatLimit: full + pending + 1 }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(String(rejected.reason)).toContain('Your Pro plan allows');
    expect(await members()).toBe(full + 1);
  });
});
