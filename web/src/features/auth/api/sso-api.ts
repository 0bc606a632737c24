// "Sign in with SSO" asks the gateway where the email's workspace signs in (GET /api/auth/sso/start,
// as JSON so that a refusal shows in the form), then the browser goes there. The identity provider
// sends it back to the gateway, which hands the session to /login/sso in the URL fragment.
export const SSO_START_PATH = '/api/auth/sso/start';
export const SSO_START_FAILED_MESSAGE = 'Could not start single sign-on. Please try again.';

export class SsoStartError extends Error {}

export async function ssoRedirectUrl(email: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${SSO_START_PATH}?${new URLSearchParams({ email })}`, { headers: { accept: 'application/json' } });
  } catch {
    throw new SsoStartError(SSO_START_FAILED_MESSAGE);
  }
  const body = (await response.json().catch(() => ({}))) as { redirectUrl?: unknown; message?: unknown };
  if (!response.ok || typeof body.redirectUrl !== 'string') {
    throw new SsoStartError(typeof body.message === 'string' ? body.message : SSO_START_FAILED_MESSAGE);
  }
  return body.redirectUrl;
}
