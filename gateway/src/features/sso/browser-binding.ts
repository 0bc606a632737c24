// The SSO cookie (docs/adr/0066-sso-bound-to-the-browser.md): a random value the browser that starts a
// sign-in holds, whose SHA-256 auth keeps with the sign-in; the identity provider's answer is accepted
// only with the same value, so an attacker's sign-in link completed in someone else's browser opens
// nothing (login CSRF). HttpOnly, scoped to the SSO paths, as short-lived as a sign-in.
import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';

export const SSO_COOKIE = 'parley_sso';
export const SSO_COOKIE_PATH = '/api/auth/sso';
/** A little longer than a sign-in may take at the provider (SSO_SIGN_IN_TTL_SECONDS, 10 minutes). */
export const SSO_COOKIE_MAX_AGE_SECONDS = 15 * 60;
const VALUE = /^[A-Za-z0-9_-]{43}$/;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether the cookie can be `Secure; SameSite=None`: over https, and on a loopback address (browsers
 * keep Secure cookies of http://localhost). SAML's answer is a cross-site POST, which carries only a
 * SameSite=None cookie, and browsers take that only when Secure. A plain-http address elsewhere (a
 * development set-up on a LAN name) gets `SameSite=Lax` without Secure: OpenID Connect's redirect
 * carries it, SAML's POST does not, so SAML sign-in there is refused as from another browser.
 */
export function crossSiteCookieAllowed(publicUrl: string): boolean {
  const url = new URL(publicUrl);
  return url.protocol === 'https:' || LOOPBACK.has(url.hostname);
}

/** The request's SSO cookie value, or '' when it has none well-formed. */
export function browserBindingOf(req: Request): string {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0 || part.slice(0, i).trim() !== SSO_COOKIE) continue;
    const value = part.slice(i + 1).trim();
    if (VALUE.test(value)) return value;
  }
  return '';
}

/**
 * The browser's value: the one it holds (so that sign-ins started in two tabs both come back), or a
 * new one; the cookie is (re)set either way, for another SSO_COOKIE_MAX_AGE_SECONDS.
 */
export function bindBrowser(req: Request, res: Response, publicUrl: string): string {
  const value = browserBindingOf(req) || randomBytes(32).toString('base64url');
  const attributes = [`${SSO_COOKIE}=${value}`, `Path=${SSO_COOKIE_PATH}`, `Max-Age=${SSO_COOKIE_MAX_AGE_SECONDS}`, 'HttpOnly'];
  attributes.push(...(crossSiteCookieAllowed(publicUrl) ? ['Secure', 'SameSite=None'] : ['SameSite=Lax']));
  res.append('Set-Cookie', attributes.join('; '));
  return value;
}
