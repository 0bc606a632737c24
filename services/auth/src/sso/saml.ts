// SAML 2.0 with @node-saml/node-saml: the SP-initiated HTTP-Redirect request, and the POSTed response
// checked for a signed assertion (the IdP's certificate), the audience (the workspace's SP entity id),
// the NotBefore/NotOnOrAfter window and InResponseTo (the request this sign-in sent). Recipient and
// Destination (the ACS URL) and replay (the assertion's ID, kept until it expires) are checked here,
// since the library does not.
import { randomBytes } from 'node:crypto';
import { SAML, ValidateInResponseTo, type CacheProvider } from '@node-saml/node-saml';
import { DOMParser } from '@xmldom/xmldom';
import type { Prisma } from '../generated/prisma/client.ts';
import { nowOf, ssoUrls, type SsoDeps } from './sso-deps.ts';

export interface SamlConnection {
  workspaceId: string;
  samlEntryPoint: string;
  samlIdpIssuer: string;
  samlIdpCertificate: string;
}

const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
/** The largest SAMLResponse accepted (base64). */
export const MAX_SAML_RESPONSE_LENGTH = 512 * 1024;
const CLOCK_SKEW_MS = 60_000;

function samlOf(
  deps: Pick<SsoDeps, 'publicUrl'>,
  c: SamlConnection,
  opts: { requestId?: string; expected?: { requestId: string; sentAt: Date; ttlMs: number } } = {},
) {
  const urls = ssoUrls(deps.publicUrl, c.workspaceId);
  // The request this sign-in sent is the only one a response may answer: no IdP-initiated sign-in.
  const cacheProvider: CacheProvider = {
    saveAsync: async (_key, value) => ({ value, createdAt: Date.now() }),
    getAsync: async (key) => (opts.expected && key === opts.expected.requestId ? opts.expected.sentAt.toISOString() : null),
    removeAsync: async (key) => key,
  };
  return new SAML({
    callbackUrl: urls.samlAcsUrl,
    entryPoint: c.samlEntryPoint || urls.samlAcsUrl,
    issuer: urls.samlEntityId,
    audience: urls.samlEntityId,
    idpCert: c.samlIdpCertificate || 'none',
    ...(c.samlIdpIssuer ? { idpIssuer: c.samlIdpIssuer } : {}),
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    cacheProvider,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    ...(opts.expected ? { requestIdExpirationPeriodMs: opts.expected.ttlMs } : {}),
    disableRequestedAuthnContext: true,
    identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    ...(opts.requestId ? { generateUniqueId: () => opts.requestId as string } : {}),
  });
}

export function samlMetadata(deps: Pick<SsoDeps, 'publicUrl'>, workspaceId: string): string {
  return samlOf(deps, { workspaceId, samlEntryPoint: '', samlIdpIssuer: '', samlIdpCertificate: '' }).generateServiceProviderMetadata(
    null,
    null,
  );
}

export async function startSaml(deps: SsoDeps, c: SamlConnection, relayState: string) {
  const requestId = `_${randomBytes(20).toString('hex')}`;
  const redirectUrl = await samlOf(deps, c, { requestId }).getAuthorizeUrlAsync(relayState, undefined, {});
  return { redirectUrl, requestId };
}

const attr = (el: Element | undefined, name: string) => el?.getAttribute(name) ?? '';

/**
 * The email the signed assertion names, after every check; the assertion's ID is recorded in the
 * caller's transaction, so a second use of it (even at the same moment) is refused.
 */
export async function completeSaml(
  deps: SsoDeps,
  tx: Prisma.TransactionClient,
  c: SamlConnection,
  input: { samlResponse: string; requestId: string; sentAt: Date },
): Promise<{ email: string; name: string }> {
  if (input.samlResponse.length > MAX_SAML_RESPONSE_LENGTH) throw new Error('SAMLResponse too large');
  const { profile } = await samlOf(deps, c, {
    expected: { requestId: input.requestId, sentAt: input.sentAt, ttlMs: deps.ssoSignInTtlSeconds * 1000 },
  }).validatePostResponseAsync({
    SAMLResponse: input.samlResponse,
  });
  const assertionXml = profile?.getAssertionXml?.();
  if (!profile || !assertionXml) throw new Error('no assertion');
  const acs = ssoUrls(deps.publicUrl, c.workspaceId).samlAcsUrl;

  const response = new DOMParser().parseFromString(Buffer.from(input.samlResponse, 'base64').toString('utf8'), 'text/xml');
  const destination = attr(response.getElementsByTagNameNS(PROTOCOL, 'Response')[0] as unknown as Element, 'Destination');
  if (destination && destination !== acs) throw new Error(`Destination ${destination} is not this ACS URL`);

  // The assertion as the library verified it (its signed form), not the document around it.
  const assertion = new DOMParser().parseFromString(assertionXml, 'text/xml');
  const assertionEl = assertion.getElementsByTagNameNS(ASSERTION, 'Assertion')[0] as unknown as Element | undefined;
  const confirmations = Array.from(assertion.getElementsByTagNameNS(ASSERTION, 'SubjectConfirmationData')) as unknown as Element[];
  if (!confirmations.some((d) => attr(d, 'Recipient') === acs))
    throw new Error('no SubjectConfirmationData with this ACS URL as Recipient');
  const id = attr(assertionEl, 'ID');
  if (!id) throw new Error('assertion without ID');
  const conditions = assertion.getElementsByTagNameNS(ASSERTION, 'Conditions')[0] as unknown as Element | undefined;
  const until = [attr(conditions, 'NotOnOrAfter'), ...confirmations.map((d) => attr(d, 'NotOnOrAfter'))]
    .map((t) => Date.parse(t))
    .filter((t) => Number.isFinite(t));
  // Kept for as long as the assertion could still be accepted (its window plus the clock skew).
  const expiresAt = new Date((until.length ? Math.max(...until) : nowOf(deps).getTime() + 3600_000) + CLOCK_SKEW_MS);
  const stored = await tx.samlAssertion.createMany({ data: [{ id: `${c.workspaceId}:${id}`, expiresAt }], skipDuplicates: true });
  if (stored.count !== 1) throw new Error(`assertion ${id} replayed`);

  const attributes = profile as Record<string, unknown>;
  const candidates = [
    profile.email,
    attributes.mail,
    attributes['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress'],
    profile.nameID,
  ];
  const email = candidates.find((v): v is string => typeof v === 'string' && v.includes('@')) ?? '';
  if (!email) throw new Error('the assertion names no email');
  const name = [attributes.displayName, attributes.name].find((v): v is string => typeof v === 'string') ?? '';
  return { email, name };
}
