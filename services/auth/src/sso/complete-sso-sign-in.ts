// The identity provider's answer: the sign-in row is claimed once (a second use of its state is
// refused), the answer is checked by its protocol (oidc.ts, saml.ts), the email must be in a domain the
// workspace claims, and then the person's account opens a session exactly as a password sign-in does.
// A first sign-in creates the account and the membership at the default role when the workspace allows it.
import { randomBytes } from 'node:crypto';
import { forbidden, invalid, unauthenticated } from '@parley/common/rpc-errors.ts';
import { isRole } from '@parley/common/roles.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { accountUserSelect, type AccountUser } from '../core/account-user.ts';
import { hashPassword } from '../core/password-hash.ts';
import { hashSessionToken, TOKEN_BYTES } from '../core/session-token.ts';
import { normalizeEmail, isValidEmail } from '../core/email.ts';
import { createPersonalWorkspace } from '../core/workspace.ts';
import { startSession } from '../sessions/start-session.ts';
import { recordAudit } from '../workspaces/audit.ts';
import { domainOf } from '../core/email.ts';
import { oidcProtocol, samlProtocol } from './sso-protocols.ts';
import { nowOf, SSO_SIGN_IN_EXPIRED, type SsoDeps } from './sso-deps.ts';

export interface CompleteSsoSignInRequest {
  protocol: string;
  oidcQuery: string;
  samlResponse: string;
  relayState: string;
  clientIp: string;
}

export interface CompletedSsoSignIn {
  /** Empty for a Test sign-in. */
  token: string;
  expiresAt?: Date;
  email: string;
  workspaceId: string;
  test: boolean;
  user?: AccountUser;
}

export const EMAIL_OUTSIDE_CLAIMED_DOMAINS = (email: string) =>
  `Your email ${email} is not in a domain this workspace claims, so it cannot sign in through its single sign-on.`;
export const NOT_A_MEMBER = 'You are not a member of this workspace. Ask its administrator for an invitation.';
export const ssoRefused = (reason: string) => `Single sign-on failed: ${reason.slice(0, 200)}`;

export async function completeSsoSignIn(deps: SsoDeps, req: CompleteSsoSignInRequest): Promise<CompletedSsoSignIn> {
  if (req.protocol !== 'oidc' && req.protocol !== 'saml') throw invalid('Protocol must be "oidc" or "saml"');
  if (req.oidcQuery.length > 8192) throw invalid('The callback is too long');
  const state = req.protocol === 'oidc' ? (new URLSearchParams(req.oidcQuery).get('state') ?? '') : req.relayState;
  if (!state || state.length > TOKEN_BYTES * 2) throw unauthenticated(SSO_SIGN_IN_EXPIRED);
  const now = nowOf(deps);
  const stateHash = hashSessionToken(state);

  const signIn = await deps.db.ssoSignIn.findUnique({ where: { stateHash } });
  if (!signIn || signIn.protocol !== req.protocol) throw unauthenticated(SSO_SIGN_IN_EXPIRED);
  // Claimed before the provider's answer is checked: one state, one try.
  const claimed = await deps.db.ssoSignIn.updateMany({ where: { stateHash, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  if (claimed.count !== 1) throw unauthenticated(SSO_SIGN_IN_EXPIRED);
  const connection = await deps.db.ssoConnection.findUnique({ where: { workspaceId: signIn.workspaceId } });
  if (!connection || connection.protocol !== req.protocol) throw unauthenticated(SSO_SIGN_IN_EXPIRED);

  // The protocol's library is loaded before the transaction opens (sso-protocols.ts).
  await (req.protocol === 'oidc' ? oidcProtocol() : samlProtocol());
  const identity = async (tx: Prisma.TransactionClient) => {
    try {
      if (req.protocol === 'oidc') {
        return await (
          await oidcProtocol()
        ).completeOidc(deps, connection, {
          query: req.oidcQuery,
          state,
          codeVerifier: signIn.codeVerifier,
          nonce: signIn.nonce,
        });
      }
      return await (
        await samlProtocol()
      ).completeSaml(deps, tx, connection, {
        samlResponse: req.samlResponse,
        requestId: signIn.samlRequestId ?? '',
        sentAt: signIn.createdAt,
      });
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message, workspaceId: signIn.workspaceId, protocol: req.protocol }, 'single sign-on refused');
      const reason = req.protocol === 'oidc' ? (await oidcProtocol()).oidcRefusal(err) : (err as Error).message;
      throw unauthenticated(ssoRefused(reason || 'the identity provider’s answer was refused'));
    }
  };

  const result = await deps.db.$transaction(async (tx) => {
    const who = await identity(tx);
    const email = normalizeEmail(who.email);
    const claim = await tx.claimedDomain.findUnique({ where: { domain: domainOf(email) }, select: { workspaceId: true } });
    if (!isValidEmail(email) || claim?.workspaceId !== signIn.workspaceId) throw forbidden(EMAIL_OUTSIDE_CLAIMED_DOMAINS(email));
    if (signIn.testByUserId) return { token: '', email, workspaceId: signIn.workspaceId, test: true, created: null };

    let created: AccountUser | null = null;
    let user = await tx.user.findUnique({ where: { email }, select: accountUserSelect });
    const membership = user
      ? await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: signIn.workspaceId, userId: user.id } } })
      : null;
    if (!membership) {
      if (!connection.autoCreate) throw forbidden(NOT_A_MEMBER);
      if (!user) {
        // The account has no password anyone knows; "Forgot password" can give it one.
        const passwordHash = await hashPassword(randomBytes(32).toString('base64url'));
        user = created = await tx.user.create({ data: { email, name: who.name.slice(0, 100), passwordHash }, select: accountUserSelect });
        await createPersonalWorkspace(tx, user);
      }
      const role = isRole(connection.defaultRole) && connection.defaultRole !== 'owner' ? connection.defaultRole : 'viewer';
      await tx.membership.create({ data: { workspaceId: signIn.workspaceId, userId: user.id, role } });
      await recordAudit(tx, {
        workspaceId: signIn.workspaceId,
        actorUserId: user.id,
        actorEmail: email,
        action: 'member.joined_by_sso',
        target: email,
        details: { role, accountCreated: Boolean(created) },
        clientIp: req.clientIp,
      });
    }
    const session = await startSession(tx, { userId: user!.id, clientIp: req.clientIp, ttlSeconds: deps.sessionTtlSeconds, now });
    return { ...session, email, workspaceId: signIn.workspaceId, test: false, user: user!, created };
  });

  if (result.created) {
    try {
      await deps.publishUserRegistered(result.created);
    } catch (err) {
      deps.logger.error({ err, userId: result.created.id }, 'could not publish UserRegistered');
    }
  }
  const { created: _created, ...answer } = result;
  return answer;
}
