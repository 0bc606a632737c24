// What the single sign-on use cases run with (docs/adr/0047-single-sign-on.md).
import type { Logger } from '@parley/common/logger.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { AccountUser } from '../core/account-user.ts';

export interface SsoDeps {
  db: PrismaClient;
  logger: Logger;
  /** The product's address: the callback URLs registered at identity providers start with it. */
  publicUrl: string;
  /** Seals the OIDC client secrets (SSO_ENCRYPTION_KEY). */
  ssoKey: Buffer;
  /** How long a sign-in sent to the identity provider may take to come back. */
  ssoSignInTtlSeconds: number;
  sessionTtlSeconds: number;
  /** Whether identity providers on private addresses (and plain http) are allowed: tests and local use only. */
  ssoAllowPrivateAddresses: boolean;
  publishUserRegistered: (user: AccountUser) => Promise<void>;
  /** Clock of the checks (tests move it to expire assertions). */
  now?: () => Date;
}

export const nowOf = (deps: Pick<SsoDeps, 'now'>) => (deps.now ? deps.now() : new Date());

/** The addresses the identity provider is given, all under the product's address. */
export function ssoUrls(publicUrl: string, workspaceId: string) {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    oidcRedirectUri: `${base}/api/auth/sso/oidc/callback`,
    samlAcsUrl: `${base}/api/auth/sso/saml/acs`,
    samlEntityId: `${base}/api/auth/sso/saml/metadata/${workspaceId}`,
  };
}

/** What a person is told when an identity provider's answer is refused; the reason goes to the log only. */
export const SSO_SIGN_IN_REFUSED = 'Single sign-on failed. Please try again or ask your workspace administrator.';
export const SSO_SIGN_IN_EXPIRED = 'Your single sign-on has expired. Please sign in again.';

/**
 * The random value of the browser's SSO cookie, as the gateway makes it (32 bytes, base64url): the
 * sign-in keeps its SHA-256 and its answer must come back with the same value
 * (docs/adr/0066-sso-bound-to-the-browser.md).
 */
export const isBrowserBinding = (value: string) => /^[A-Za-z0-9_-]{43}$/.test(value);
export const NO_BROWSER_BINDING = 'Single sign-on needs cookies: please allow them for this site and sign in again.';
export const OTHER_BROWSER = 'This single sign-on was started in another browser. Please start it again here, from the sign-in page.';
