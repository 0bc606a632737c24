// What the single sign-on tests share: a real OpenID provider (oidc-provider, its own login form) on
// a local port, a browser-like walk through its pages, and SAML responses signed with a key made here.
import { generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { generate } from 'selfsigned';
import { SignedXml } from 'xml-crypto';

export const OIDC_CLIENT_ID = 'parley-test';
export const OIDC_CLIENT_SECRET = 'a-client-secret-of-the-test-provider';

/** The SSO cookie's value of a browser (the gateway makes one per browser; docs/adr/0066-sso-bound-to-the-browser.md). */
export const newBrowser = () => randomBytes(32).toString('base64url');
/** The browser the tests sign in from, unless they say otherwise. */
export const BROWSER = newBrowser();

const jwkOf = (key: KeyObject, kid: string) => ({ ...(key.export({ format: 'jwk' }) as object), kid, use: 'sig', alg: 'RS256' });

export interface OidcProviderHarness {
  issuer: string;
  /** Serves another key set than the one the ID tokens are signed with: the tokens then look signed by a stranger. */
  publishOtherKeys(on: boolean): void;
  close(): Promise<void>;
}

/** oidc-provider with one client whose redirect URI is Parley's callback; any login name is an account whose email it is. */
export async function startOidcProvider(redirectUri: string): Promise<OidcProviderHarness> {
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  let otherKeys = false;
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [jwkOf(signing, 'signing')] },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: id, email_verified: true, name: id.split('@')[0] }),
    }),
    features: { devInteractions: { enabled: true } },
  });
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (otherKeys && req.url === '/jwks') {
      const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwkOf(other, 'signing') as Record<string, string>;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [pub] }));
      return;
    }
    callback(req, res);
  });
  return {
    issuer,
    publishOtherKeys: (on) => {
      otherKeys = on;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Walks the provider's pages as a browser would (its login form, then its consent form), from the
 * authorization URL to Parley's callback; answers the callback URL the provider redirected to.
 */
export async function signInAtProvider(authorizationUrl: string, login: string, callbackPrefix: string): Promise<URL> {
  const cookies = new Map<string, string>();
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const remember = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
  };
  let url = authorizationUrl;
  let body: URLSearchParams | undefined;
  for (let step = 0; step < 20; step++) {
    if (url.startsWith(callbackPrefix)) return new URL(url);
    const res = await fetch(url, {
      method: body ? 'POST' : 'GET',
      body,
      headers: { cookie: cookieHeader(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      redirect: 'manual',
    });
    remember(res);
    body = undefined;
    const location = res.headers.get('location');
    if (location) {
      url = new URL(location, url).toString();
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`the provider answered ${res.status} without a form: ${html.slice(0, 300)}`);
    url = new URL(action.replace(/&amp;/g, '&'), url).toString();
    body = html.includes('name="login"')
      ? new URLSearchParams({ prompt: 'login', login, password: 'any' })
      : new URLSearchParams({ prompt: 'consent' });
  }
  throw new Error('too many steps at the provider');
}

export interface IdpKeys {
  privateKey: string;
  certificate: string;
}

export async function idpKeys(): Promise<IdpKeys> {
  const pems = await generate([{ name: 'commonName', value: 'idp.test' }], { keySize: 2048, algorithm: 'sha256' });
  return { privateKey: pems.private, certificate: pems.cert };
}

export interface AssertionInput {
  keys?: IdpKeys;
  issuer: string;
  audience: string;
  recipient: string;
  inResponseTo: string;
  email: string;
  /** When the assertion stops being valid (default: in five minutes). */
  notOnOrAfter?: Date;
  notBefore?: Date;
  assertionId?: string;
  /** Leave the assertion unsigned. */
  unsigned?: boolean;
}

/** A SAML Response (base64, as the HTTP-POST binding sends it) whose assertion is signed with `keys`. */
export function samlResponse(a: AssertionInput): string {
  const now = new Date();
  const notBefore = (a.notBefore ?? new Date(now.getTime() - 60_000)).toISOString();
  const notOnOrAfter = (a.notOnOrAfter ?? new Date(now.getTime() + 300_000)).toISOString();
  const id = a.assertionId ?? `_a${randomUUID().replace(/-/g, '')}`;
  const assertion =
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${now.toISOString()}">` +
    `<saml:Issuer>${a.issuer}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${a.email}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData InResponseTo="${a.inResponseTo}" NotOnOrAfter="${notOnOrAfter}" Recipient="${a.recipient}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${a.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="${id}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `</saml:Assertion>`;
  let signed = assertion;
  if (!a.unsigned && a.keys) {
    const sig = new SignedXml({ privateKey: a.keys.privateKey, publicCert: a.keys.certificate });
    sig.signatureAlgorithm = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
    sig.canonicalizationAlgorithm = 'http://www.w3.org/2001/10/xml-exc-c14n#';
    sig.addReference({
      xpath: "//*[local-name(.)='Assertion']",
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    });
    sig.computeSignature(assertion, { location: { reference: "//*[local-name(.)='Issuer']", action: 'after' } });
    signed = sig.getSignedXml();
  }
  const response =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomUUID().replace(/-/g, '')}" Version="2.0" IssueInstant="${now.toISOString()}" Destination="${a.recipient}" InResponseTo="${a.inResponseTo}">` +
    `<saml:Issuer>${a.issuer}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    signed +
    `</samlp:Response>`;
  return Buffer.from(response).toString('base64');
}
