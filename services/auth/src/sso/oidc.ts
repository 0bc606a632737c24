// OpenID Connect with openid-client: discovery of the issuer, the authorization code flow with PKCE,
// state and nonce; the ID token's signature (the issuer's published keys, enableNonRepudiationChecks) and its iss, aud, exp and
// nonce are checked by authorizationCodeGrant. Every request to the issuer goes through guarded-fetch.ts.
import * as client from 'openid-client';
import { open } from '@parley/common/sealed-secret.ts';
import { guardedFetch } from './guarded-fetch.ts';
import { clientSecretAad } from './sso-settings.ts';
import { ssoUrls, type SsoDeps } from './sso-deps.ts';

export interface OidcConnection {
  workspaceId: string;
  oidcIssuer: string;
  oidcClientId: string;
  oidcClientSecret: string;
}

export async function oidcConfiguration(deps: SsoDeps, c: OidcConnection): Promise<client.Configuration> {
  const secret = open(deps.ssoKey, c.oidcClientSecret, clientSecretAad(c.workspaceId));
  const fetch = guardedFetch(deps.ssoAllowPrivateAddresses) as unknown as client.CustomFetch;
  const config = await client.discovery(new URL(c.oidcIssuer), c.oidcClientId, undefined, client.ClientSecretPost(secret), {
    [client.customFetch]: fetch,
    execute: deps.ssoAllowPrivateAddresses ? [client.allowInsecureRequests] : [],
    timeout: 10,
  });
  config[client.customFetch] = fetch;
  // The ID token's signature is checked against the issuer's published keys even though it came
  // straight from the token endpoint (the spec lets TLS stand in for it; a workspace's review does not).
  client.enableNonRepudiationChecks(config);
  return config;
}

/** The PKCE verifier and nonce to keep, and the URL to send the browser to. */
export async function startOidc(deps: SsoDeps, c: OidcConnection, state: string) {
  const config = await oidcConfiguration(deps, c);
  const codeVerifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: ssoUrls(deps.publicUrl, c.workspaceId).oidcRedirectUri,
    scope: 'openid email profile',
    response_type: 'code',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { redirectUrl: url.toString(), codeVerifier, nonce };
}

/** Why openid-client refused an answer, in a few words: its message and the claim it names. */
export function oidcRefusal(err: unknown): string {
  // openid-client wraps the check that failed; its innermost error says which.
  let inner = err as Error;
  while (inner.cause instanceof Error) inner = inner.cause;
  return inner.message || 'refused';
}

/** The verified email of the ID token, or an error saying why (for the log). */
export async function completeOidc(
  deps: SsoDeps,
  c: OidcConnection,
  input: { query: string; state: string; codeVerifier: string; nonce: string },
): Promise<{ email: string; name: string }> {
  const config = await oidcConfiguration(deps, c);
  const callback = new URL(ssoUrls(deps.publicUrl, c.workspaceId).oidcRedirectUri);
  callback.search = input.query;
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: input.codeVerifier,
    expectedState: input.state,
    expectedNonce: input.nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  if (!claims) throw new Error('no ID token');
  // Many providers put the email in the ID token; others (following the spec) only at userinfo,
  // which is asked for the subject the verified ID token names.
  const info: Record<string, unknown> =
    typeof claims.email === 'string' ? claims : await client.fetchUserInfo(config, tokens.access_token, claims.sub);
  const email = typeof info.email === 'string' ? info.email : '';
  if (!email) throw new Error('the identity provider gave no email');
  // An address the provider itself has not verified is not proof of anything.
  if (info.email_verified === false) throw new Error('the email is not verified by the identity provider');
  return { email, name: typeof info.name === 'string' ? info.name : '' };
}
