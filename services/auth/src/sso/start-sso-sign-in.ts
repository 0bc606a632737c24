// "Sign in with SSO": the email's claimed domain (or the workspace named) picks the identity provider;
// a sign-in row keeps what its answer must match (state, PKCE verifier, nonce, SAML request ID) and
// the browser is sent to the provider. The row keeps the hash of the starting browser's cookie value
// (docs/adr/0066-sso-bound-to-the-browser.md). A Test sign-in is the same trip, marked so that it opens no session.
import { invalid, notFound, unavailable } from '@parley/common/rpc-errors.ts';
import { isUuid } from '@parley/common/ids.ts';
import { hashSessionToken, newSessionToken } from '../core/session-token.ts';
import { isValidEmail, normalizeEmail } from '../core/email.ts';
import { findMember, type ActorInput } from '../workspaces/access.ts';
import { domainOf } from '../core/email.ts';
import { oidcProtocol, samlProtocol } from './sso-protocols.ts';
import { isBrowserBinding, NO_BROWSER_BINDING, nowOf, type SsoDeps } from './sso-deps.ts';

export const NO_SSO_FOR_EMAIL = 'No workspace signs in this email through single sign-on. Please sign in with your password.';
export const NO_SSO_FOR_WORKSPACE = 'This workspace has no single sign-on set up.';
export const IDP_UNREACHABLE = 'The identity provider could not be reached. Please try again later.';

export async function startSsoSignIn(
  deps: SsoDeps,
  req: { email: string; workspaceId: string; testBy?: ActorInput; browserBinding: string },
): Promise<{ redirectUrl: string }> {
  // Without the browser's value the answer could be completed in any browser (login CSRF): refused.
  if (!isBrowserBinding(req.browserBinding)) throw invalid(NO_BROWSER_BINDING);
  let workspaceId: string;
  let testByUserId: string | null = null;
  if (req.testBy?.userId) {
    const member = await findMember(deps.db, req.testBy, 'members:manage');
    workspaceId = member.workspace.id;
    testByUserId = member.userId;
  } else if (req.email) {
    const email = normalizeEmail(req.email);
    if (!isValidEmail(email)) throw invalid('Please enter a valid email');
    const claim = await deps.db.claimedDomain.findUnique({ where: { domain: domainOf(email) }, select: { workspaceId: true } });
    if (!claim) throw notFound(NO_SSO_FOR_EMAIL);
    workspaceId = claim.workspaceId;
  } else {
    if (!isUuid(req.workspaceId)) throw invalid('Please enter your work email');
    workspaceId = req.workspaceId.toLowerCase();
  }
  const connection = await deps.db.ssoConnection.findUnique({ where: { workspaceId } });
  if (!connection) throw notFound(req.email ? NO_SSO_FOR_EMAIL : NO_SSO_FOR_WORKSPACE);

  const now = nowOf(deps);
  const state = newSessionToken();
  let row: { codeVerifier?: string; nonce?: string; samlRequestId?: string };
  let redirectUrl: string;
  try {
    if (connection.protocol === 'oidc') {
      const started = await (await oidcProtocol()).startOidc(deps, connection, state);
      row = { codeVerifier: started.codeVerifier, nonce: started.nonce };
      redirectUrl = started.redirectUrl;
    } else {
      const started = await (await samlProtocol()).startSaml(deps, connection, state);
      row = { samlRequestId: started.requestId };
      redirectUrl = started.redirectUrl;
    }
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, workspaceId }, 'identity provider unreachable');
    throw unavailable(IDP_UNREACHABLE);
  }
  await deps.db.$transaction([
    // Sign-ins that never came back, and used assertions past their window, are of no further use.
    deps.db.ssoSignIn.deleteMany({ where: { expiresAt: { lte: now } } }),
    deps.db.samlAssertion.deleteMany({ where: { expiresAt: { lte: now } } }),
    deps.db.ssoSignIn.create({
      data: {
        stateHash: hashSessionToken(state),
        workspaceId,
        protocol: connection.protocol,
        ...row,
        testByUserId,
        browserBindingHash: hashSessionToken(req.browserBinding),
        expiresAt: new Date(now.getTime() + deps.ssoSignInTtlSeconds * 1000),
      },
    }),
  ]);
  return { redirectUrl };
}
