// The Security page's single sign-on settings are REST (GET/PUT /api/workspace/security, and its Test
// sign-in), like the other gateway routes a browser redirect belongs with: one set of routes serves the
// page and the identity provider's trips. Same origin: the bearer token and the chosen workspace suffice.
import { readToken } from '../../../lib/token-storage';
import { workspaceHeaders } from '../../../lib/workspace/workspace-storage';

export const SECURITY_PATH = '/api/workspace/security';
export const SECURITY_FAILED_MESSAGE = 'Could not reach the server. Please try again.';

export interface SsoSettings {
  protocol: '' | 'oidc' | 'saml';
  oidcIssuer: string;
  oidcClientId: string;
  oidcClientSecretSet: boolean;
  samlEntryPoint: string;
  samlIdpIssuer: string;
  samlIdpCertificate: string;
  claimedDomains: string[];
  defaultRole: string;
  autoCreate: boolean;
  requireSso: boolean;
  oidcRedirectUri: string;
  samlAcsUrl: string;
  samlEntityId: string;
}

export interface SsoSettingsInput {
  protocol: string;
  oidcIssuer: string;
  oidcClientId: string;
  oidcClientSecret: string;
  samlEntryPoint: string;
  samlIdpIssuer: string;
  samlIdpCertificate: string;
  samlIdpMetadataXml: string;
  claimedDomains: string[];
  defaultRole: string;
  autoCreate: boolean;
  requireSso: boolean;
}

/** A refused call, carrying the gateway's sentence for the person. */
export class SecurityApiError extends Error {}

async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
  const token = readToken();
  let response: Response;
  try {
    response = await fetch(path, {
      ...init,
      headers: {
        accept: 'application/json',
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...workspaceHeaders(),
      },
    });
  } catch {
    throw new SecurityApiError(SECURITY_FAILED_MESSAGE);
  }
  const body = (await response.json().catch(() => ({}))) as { message?: unknown };
  if (!response.ok) throw new SecurityApiError(typeof body.message === 'string' ? body.message : SECURITY_FAILED_MESSAGE);
  return body as T;
}

export const fetchSsoSettings = () => call<SsoSettings>(SECURITY_PATH);
export const saveSsoSettings = (input: SsoSettingsInput) =>
  call<SsoSettings>(SECURITY_PATH, { method: 'PUT', body: JSON.stringify(input) });
export const startTestSignIn = () => call<{ redirectUrl: string }>(`${SECURITY_PATH}/test-sign-in`, { method: 'POST' });
