// Single sign-on through SAML 2.0: responses signed here with a key made for the test. A right one
// signs in; a wrong audience or recipient, an expired, replayed, unsigned or foreign-signed assertion
// is refused, each without a session. And the SP metadata names what the identity provider needs.
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { Code } from '@parley/common/rpc-errors.ts';
import { SsoService } from '@parley/proto/parley/auth/v1/sso_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSessionToken } from '../../src/core/session-token.ts';
import { EMAIL_OUTSIDE_CLAIMED_DOMAINS } from '../../src/sso/complete-sso-sign-in.ts';
import { SSO_SIGN_IN_EXPIRED } from '../../src/sso/sso-deps.ts';
import { expectRpcError, startAuth, TEST_PUBLIC_URL, type AuthHarness } from './harness.ts';
import { actor, WORKSPACE_ENV, type Person } from './workspaces-fixtures.ts';
import { BROWSER, idpKeys, samlResponse, type AssertionInput, type IdpKeys } from './sso-fixtures.ts';

const ACS = `${TEST_PUBLIC_URL}/api/auth/sso/saml/acs`;
const IDP = 'https://idp.initech.test/saml';
let h: AuthHarness;
let sso: ReturnType<typeof createServiceClient<typeof SsoService>>;
let keys: IdpKeys;
let owner: Person;
let workspaceId: string;
let entityId: string;

beforeAll(async () => {
  h = await startAuth(WORKSPACE_ENV);
  sso = createServiceClient(SsoService, h.url, { timeoutMs: 15_000 });
  keys = await idpKeys();
  const password = 'secret1';
  const r = await h.client.register({
    email: 'owner@initech.test',
    password,
    passwordConfirmation: password,
    name: 'Owner',
    clientIp: '203.0.113.1',
  });
  owner = { id: r.user!.id, email: 'owner@initech.test', token: r.token, password };
  workspaceId = (await h.workspaces.createWorkspace({ userId: owner.id, name: 'Initech', clientIp: '198.51.100.7' })).workspace!.id;
  const metadata =
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${IDP}"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
    `<md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${keys.certificate.replace(/-----[A-Z ]+-----|\s/g, '')}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.initech.test/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>`;
  const { settings } = await sso.saveSsoSettings({
    actor: actor(owner, workspaceId),
    protocol: 'saml',
    samlIdpMetadataXml: metadata,
    claimedDomains: ['initech.test'],
    defaultRole: 'agent',
    autoCreate: true,
  });
  expect(settings).toMatchObject({ samlEntryPoint: 'https://idp.initech.test/sso', samlIdpIssuer: IDP });
  entityId = settings!.samlEntityId;
}, 60_000);

afterAll(async () => {
  await h?.close();
});

/** A sign-in started at Parley: its RelayState and the ID of the request the IdP must answer. */
async function started(email = 'peter@initech.test') {
  const { redirectUrl } = await sso.startSsoSignIn({ email, browserBinding: BROWSER });
  const url = new URL(redirectUrl);
  expect(url.origin + url.pathname).toBe('https://idp.initech.test/sso');
  expect(url.searchParams.get('SAMLRequest')).toBeTruthy();
  const relayState = url.searchParams.get('RelayState')!;
  const row = await h.db.ssoSignIn.findUniqueOrThrow({ where: { stateHash: hashSessionToken(relayState) } });
  return { relayState, requestId: row.samlRequestId! };
}

const assertion = (requestId: string, overrides: Partial<AssertionInput> = {}) =>
  samlResponse({
    keys,
    issuer: IDP,
    audience: entityId,
    recipient: ACS,
    inResponseTo: requestId,
    email: 'peter@initech.test',
    ...overrides,
  });

const complete = (samlResponse: string, relayState: string) =>
  sso.completeSsoSignIn({
    protocol: 'saml',
    samlResponse,
    relayState,
    clientIp: '198.51.100.30',
    browserBinding: BROWSER,
    seatLimit: 100,
    plan: 'pro',
  });
const sessions = () => h.db.session.count();

/** A refusal with no session opened. */
async function refused(response: (requestId: string) => string, message: RegExp | string, code = Code.Unauthenticated) {
  const { relayState, requestId } = await started();
  const before = await sessions();
  await expectRpcError(complete(response(requestId), relayState), code, message);
  expect(await sessions()).toBe(before);
}

describe('SAML sign-in', () => {
  it('signs in with a signed assertion, creating the member at the default role', async () => {
    const { relayState, requestId } = await started();
    const { token } = await complete(assertion(requestId), relayState);
    const { user, workspace } = await h.client.authenticate({ token, workspaceId });
    expect(user!.email).toBe('peter@initech.test');
    expect(workspace!.role).toBe('agent');
  });

  it('refuses an assertion for another audience', async () => {
    await refused((id) => assertion(id, { audience: 'https://another-sp.test' }), /audience/);
  });

  it('refuses an assertion for another recipient', async () => {
    await refused((id) => assertion(id, { recipient: 'https://elsewhere.test/acs' }), /Recipient|Destination/);
  });

  it('refuses an expired assertion', async () => {
    const past = new Date(Date.now() - 10 * 60_000);
    await refused(
      (id) => assertion(id, { notBefore: new Date(past.getTime() - 60_000), notOnOrAfter: past }),
      /expired|NotOnOrAfter|subject confirmation/i,
    );
  });

  it('refuses an unsigned assertion', async () => {
    await refused((id) => assertion(id, { unsigned: true }), /signature|signed/i);
  });

  it('refuses an assertion signed by another key', async () => {
    const stranger = await idpKeys();
    await refused((id) => assertion(id, { keys: stranger }), /signature/i);
  });

  it('refuses an answer to a request this sign-in did not send (and an IdP-initiated one)', async () => {
    await refused(() => assertion('_another-request'), /InResponseTo/);
  });

  it('refuses an email outside the claimed domains', async () => {
    await refused(
      (id) => assertion(id, { email: 'mallory@evil.test' }),
      EMAIL_OUTSIDE_CLAIMED_DOMAINS('mallory@evil.test'),
      Code.PermissionDenied,
    );
  });

  it('refuses a replayed response, and a replayed assertion under a new request', async () => {
    const first = await started();
    const response = assertion(first.requestId, { assertionId: '_replayed-assertion' });
    await complete(response, first.relayState);
    const before = await sessions();
    await expectRpcError(complete(response, first.relayState), Code.Unauthenticated, SSO_SIGN_IN_EXPIRED);
    const second = await started();
    await expectRpcError(
      complete(assertion(second.requestId, { assertionId: '_replayed-assertion' }), second.relayState),
      Code.Unauthenticated,
      /replayed/,
    );
    expect(await sessions()).toBe(before);
  });

  it('answers the service provider metadata of the workspace', async () => {
    const { xml } = await sso.getSamlMetadata({ workspaceId });
    expect(xml).toContain(`entityID="${entityId}"`);
    expect(xml).toContain(`Location="${ACS}"`);
  });
});
