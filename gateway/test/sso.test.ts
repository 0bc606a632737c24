// Single sign-on through the gateway (docs/product.md, Single sign-on), the way a browser and an
// identity provider make the trips: SAML responses signed with a key made here and POSTed to the ACS
// route as an IdP's auto-submitting form does, OpenID Connect through a real provider (oidc-provider).
// Each sign-in is bound to the browser that started it by the SSO cookie
// (docs/adr/0066-sso-bound-to-the-browser.md), and a first sign-in takes a seat only when the
// workspace's plan has one.
import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  idpKeys,
  OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET,
  samlResponse,
  signInAtProvider,
  startOidcProvider,
  type AssertionInput,
  type IdpKeys,
  type OidcProviderHarness,
} from '../../services/auth/test/integration/sso-fixtures.ts';
import { PASSWORD, type Owner } from './chatbot-fixtures.ts';
import { api, startStack, TEST_PUBLIC_URL, type Stack } from './stack.ts';
import { crossSiteCookieAllowed } from '../src/features/sso/browser-binding.ts';
import { inWorkspace, setWorkspacePlan, sql } from './workspace-fixtures.ts';

const ACS = `${TEST_PUBLIC_URL}/api/auth/sso/saml/acs`;
const OIDC_CALLBACK = `${TEST_PUBLIC_URL}/api/auth/sso/oidc/callback`;
const IDP = 'https://idp.example-corp.test/saml';
const COOKIE = /^parley_sso=([A-Za-z0-9_-]{43});/;

let stack: Stack;
let keys: IdpKeys;
let idp: OidcProviderHarness;

beforeAll(async () => {
  [stack, keys, idp] = await Promise.all([
    startStack({ authEnv: { SSO_ALLOW_PRIVATE_ADDRESSES: '1' } }),
    idpKeys(),
    startOidcProvider(OIDC_CALLBACK),
  ]);
}, 60_000);
afterAll(async () => {
  await idp?.close();
  await stack?.close();
});

/** An owner whose own email is in a fresh domain, and a workspace of theirs (free plan: one seat, theirs). */
async function workspaceWithDomain(tag: string): Promise<{ owner: Owner; workspaceId: string; domain: string }> {
  const domain = `${tag}-${randomBytes(4).toString('hex')}.test`;
  const email = `owner@${domain}`;
  const registered = await api(stack.url, '/api/auth/register', { body: { email, password: PASSWORD, password2: PASSWORD } });
  expect(registered.status).toBe(201);
  const owner = { email, token: registered.body.token, userId: registered.body.user.id };
  const created = await api(stack.url, '/api/workspaces', { body: { name: `${tag} corp` }, token: owner.token });
  expect(created.status).toBe(201);
  return { owner, workspaceId: created.body.id, domain };
}

/** The IdP metadata an administrator pastes on the Security page. */
const idpMetadata = (k: IdpKeys) =>
  `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${IDP}"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
  `<md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${k.certificate.replace(/-----[A-Z ]+-----|\s/g, '')}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
  `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example-corp.test/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>`;

async function saveSettings(owner: Owner, workspaceId: string, body: Record<string, unknown>) {
  const res = await inWorkspace(stack, workspaceId, '/api/workspace/security', {
    method: 'PUT',
    body: { requireSso: false, ...body },
    token: owner.token,
  });
  expect(res.status).toBe(200);
  return res.body;
}

/** "Sign in with SSO" as the web app calls it: the provider's URL, and the SSO cookie the answer set. */
async function start(email: string, cookie?: string): Promise<{ url: URL; cookie: string; setCookie: string }> {
  const res = await fetch(`${stack.url}/api/auth/sso/start?${new URLSearchParams({ email })}`, {
    headers: { accept: 'application/json', ...(cookie ? { cookie: `parley_sso=${cookie}` } : {}) },
  });
  expect(res.status).toBe(200);
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('parley_sso='));
  expect(setCookie).toMatch(COOKIE);
  return { url: new URL((await res.json()).redirectUrl), cookie: COOKIE.exec(setCookie!)![1], setCookie: setCookie! };
}

/** What an IdP reads from the HTTP-Redirect binding's SAMLRequest: the request's ID it must answer. */
function requestIdOf(url: URL): string {
  const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
  return /\sID="([^"]+)"/.exec(xml)![1];
}

/** The IdP's auto-submitting form, POSTed cross-site with whatever cookie the browser sends along. */
async function postToAcs(form: Record<string, string>, cookie: string | undefined) {
  const res = await fetch(`${stack.url}/api/auth/sso/saml/acs`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie: `parley_sso=${cookie}` } : {}) },
    body: new URLSearchParams(form),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location') ?? '', text: await res.text() };
}

/** The session the web app reads from the /login/sso fragment, and whose account it is. */
async function signedInAs(location: string): Promise<string> {
  const url = new URL(location, stack.url);
  expect(url.pathname).toBe('/login/sso');
  const token = new URLSearchParams(url.hash.slice(1)).get('token')!;
  const me = await api(stack.url, '/api/auth/current', { token });
  expect(me.status).toBe(200);
  return me.body.email;
}

const sessionCount = async () => Number((await sql(stack.authDatabase, 'SELECT count(*)::int AS n FROM $schema."Session"'))[0].n);

describe('SAML through the gateway', () => {
  let workspaceId: string;
  let domain: string;
  let entityId: string;

  beforeAll(async () => {
    const w = await workspaceWithDomain('saml');
    workspaceId = w.workspaceId;
    domain = w.domain;
    const settings = await saveSettings(w.owner, workspaceId, {
      protocol: 'saml',
      samlIdpMetadataXml: idpMetadata(keys),
      claimedDomains: [domain],
      defaultRole: 'agent',
      autoCreate: true,
    });
    expect(settings.samlAcsUrl).toBe(ACS);
    entityId = settings.samlEntityId;
    await setWorkspacePlan(stack, w.owner, workspaceId, 'pro');
  });

  /** A sign-in started by a browser, and the IdP's signed answer to it (overrides make it wrong). */
  async function startedAndAnswered(email: string, overrides: Partial<AssertionInput> = {}) {
    const s = await start(email);
    expect(s.url.origin + s.url.pathname).toBe('https://idp.example-corp.test/sso');
    const response = samlResponse({
      keys,
      issuer: IDP,
      audience: entityId,
      recipient: ACS,
      inResponseTo: requestIdOf(s.url),
      email,
      ...overrides,
    });
    return { form: { SAMLResponse: response, RelayState: s.url.searchParams.get('RelayState')! }, cookie: s.cookie };
  }

  it('sets the SSO cookie HttpOnly, Secure, SameSite=None, on the SSO paths only, short-lived', async () => {
    const { setCookie } = await start(`peter@${domain}`);
    const attributes = setCookie.split(';').map((a) => a.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['path=/api/auth/sso', 'max-age=900', 'httponly', 'secure', 'samesite=none']));
  });

  it('keeps the browser’s value when it already holds one, so two tabs can sign in', async () => {
    const first = await start(`peter@${domain}`);
    const second = await start(`peter@${domain}`, first.cookie);
    expect(second.cookie).toBe(first.cookie);
  });

  it('signs in with a signed assertion posted the way an IdP posts it, and sets the session', async () => {
    const { form, cookie } = await startedAndAnswered(`peter@${domain}`);
    const res = await postToAcs(form, cookie);
    expect(res.status).toBe(303);
    expect(await signedInAs(res.location)).toBe(`peter@${domain}`);
    const [membership] = await sql(
      stack.authDatabase,
      'SELECT m.role FROM $schema."Membership" m JOIN $schema."User" u ON u.id = m."userId" WHERE m."workspaceId" = $1 AND u.email = $2',
      [workspaceId, `peter@${domain}`],
    );
    expect(membership.role).toBe('agent');
  });

  /** A refusal: the page saying why, with the status it stands for, and no session opened. */
  async function refused(form: Record<string, string>, cookie: string | undefined, status: number, message: RegExp) {
    const before = await sessionCount();
    const res = await postToAcs(form, cookie);
    expect(res.status).toBe(status);
    expect(res.location).toBe('');
    expect(res.text).toContain('Single sign-on failed');
    expect(res.text).toMatch(message);
    expect(await sessionCount()).toBe(before);
  }

  it('refuses an assertion for another audience', async () => {
    const { form, cookie } = await startedAndAnswered(`peter@${domain}`, { audience: 'https://another-sp.test' });
    await refused(form, cookie, 401, /audience/i);
  });

  it('refuses an expired assertion', async () => {
    const past = new Date(Date.now() - 10 * 60_000);
    const { form, cookie } = await startedAndAnswered(`peter@${domain}`, {
      notBefore: new Date(past.getTime() - 60_000),
      notOnOrAfter: past,
    });
    await refused(form, cookie, 401, /expired|NotOnOrAfter|subject confirmation/i);
  });

  it('refuses an unsigned assertion', async () => {
    const { form, cookie } = await startedAndAnswered(`peter@${domain}`, { unsigned: true });
    await refused(form, cookie, 401, /signature|signed/i);
  });

  it('refuses a replayed response, and its assertion under a new sign-in', async () => {
    const assertionId = `_a${randomBytes(12).toString('hex')}`;
    const first = await startedAndAnswered(`peter@${domain}`, { assertionId });
    expect((await postToAcs(first.form, first.cookie)).status).toBe(303);
    await refused(first.form, first.cookie, 401, /has expired/);
    const second = await startedAndAnswered(`peter@${domain}`, { assertionId });
    await refused(second.form, second.cookie, 401, /replayed/);
  });

  it('refuses a right answer brought by another browser, or by one without the cookie (login CSRF)', async () => {
    // The attacker's own sign-in, its answer posted from the victim's browser: the victim's cookie, or none.
    const attacker = await startedAndAnswered(`peter@${domain}`);
    const victim = await start(`someone@${domain}`);
    await refused(attacker.form, victim.cookie, 401, /started in another browser/);
    const again = await startedAndAnswered(`peter@${domain}`);
    await refused(again.form, undefined, 401, /started in another browser/);
  });
});

describe('seats on a first sign-in through the gateway', () => {
  it('refuses a new member when the plan has no free seat, audited, and lets them in after an upgrade', async () => {
    const w = await workspaceWithDomain('seats');
    const settings = await saveSettings(w.owner, w.workspaceId, {
      protocol: 'saml',
      samlIdpMetadataXml: idpMetadata(keys),
      claimedDomains: [w.domain],
      defaultRole: 'editor',
      autoCreate: true,
    });
    const answer = async (email: string) => {
      const s = await start(email);
      const SAMLResponse = samlResponse({
        keys,
        issuer: IDP,
        audience: settings.samlEntityId,
        recipient: ACS,
        inResponseTo: requestIdOf(s.url),
        email,
      });
      return postToAcs({ SAMLResponse, RelayState: s.url.searchParams.get('RelayState')! }, s.cookie);
    };

    // The free plan's one seat is the owner's.
    const refusedSignIn = await answer(`newcomer@${w.domain}`);
    expect(refusedSignIn.status).toBe(403);
    expect(refusedSignIn.text).toContain('Your Free plan allows 1 member, pending invitations included.');
    expect(refusedSignIn.text).toContain('ask its administrator to free a seat or upgrade');
    const log = await inWorkspace(stack, w.workspaceId, '/api/workspace/audit-log?action=member.sso_refused_no_seat', {
      token: w.owner.token,
    });
    expect(log.status).toBe(200);
    expect(JSON.stringify(log.body)).toContain(`newcomer@${w.domain}`);
    const users = await sql(stack.authDatabase, 'SELECT id FROM $schema."User" WHERE email = $1', [`newcomer@${w.domain}`]);
    expect(users).toHaveLength(0);

    await setWorkspacePlan(stack, w.owner, w.workspaceId, 'pro');
    const admitted = await answer(`newcomer@${w.domain}`);
    expect(admitted.status).toBe(303);
    expect(await signedInAs(admitted.location)).toBe(`newcomer@${w.domain}`);
  });
});

describe('OpenID Connect through the gateway', () => {
  let domain: string;

  beforeAll(async () => {
    const w = await workspaceWithDomain('oidc');
    domain = w.domain;
    await saveSettings(w.owner, w.workspaceId, {
      protocol: 'oidc',
      oidcIssuer: idp.issuer,
      oidcClientId: OIDC_CLIENT_ID,
      oidcClientSecret: OIDC_CLIENT_SECRET,
      claimedDomains: [domain],
      defaultRole: 'viewer',
      autoCreate: true,
    });
    await setWorkspacePlan(stack, w.owner, w.workspaceId, 'pro');
  });

  /** Starts in a browser, walks the provider's pages, and answers the callback's query. */
  async function throughProvider(email: string) {
    const s = await start(email);
    const callback = await signInAtProvider(s.url.toString(), email, OIDC_CALLBACK);
    return { query: callback.search, cookie: s.cookie };
  }

  const callback = async (query: string, cookie: string | undefined) => {
    const res = await fetch(`${stack.url}/api/auth/sso/oidc/callback${query}`, {
      headers: cookie ? { cookie: `parley_sso=${cookie}` } : {},
      redirect: 'manual',
    });
    return { status: res.status, location: res.headers.get('location') ?? '', text: await res.text() };
  };

  it('signs in when the callback comes back to the browser that started it', async () => {
    const { query, cookie } = await throughProvider(`dev@${domain}`);
    const res = await callback(query, cookie);
    expect(res.status).toBe(303);
    expect(await signedInAs(res.location)).toBe(`dev@${domain}`);
  });

  it('refuses the attacker’s callback link opened in another browser, and spends it', async () => {
    const attacker = await throughProvider(`dev@${domain}`);
    const victim = await start(`dev@${domain}`);
    const before = await sessionCount();
    const inVictim = await callback(attacker.query, victim.cookie);
    expect(inVictim.status).toBe(401);
    expect(inVictim.text).toContain('This single sign-on was started in another browser.');
    expect((await callback(attacker.query, attacker.cookie)).status).toBe(401);
    expect((await callback((await throughProvider(`dev@${domain}`)).query, undefined)).status).toBe(401);
    expect(await sessionCount()).toBe(before);
  });
});

describe('the SSO cookie’s attributes by address', () => {
  it('is Secure and SameSite=None over https and on loopback, SameSite=Lax over plain http elsewhere', () => {
    expect(crossSiteCookieAllowed('https://parley.example.com')).toBe(true);
    expect(crossSiteCookieAllowed('http://localhost:8080')).toBe(true);
    expect(crossSiteCookieAllowed('http://127.0.0.1:8080')).toBe(true);
    expect(crossSiteCookieAllowed('http://devbox.lan:8080')).toBe(false);
  });
});
