// The identity provider's answer: the sign-in row is claimed once (a second use of its state is
// refused), the answer is checked by its protocol (oidc.ts, saml.ts), the email must be in a domain the
// workspace claims, and then the person's account opens a session exactly as a password sign-in does.
// A first sign-in creates the account and the membership at the default role when the workspace allows it
// and a seat is free. The answer must come back to the browser that started the sign-in
// (docs/adr/0066-sso-bound-to-the-browser.md).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ConnectError, Code, forbidden, invalid, unauthenticated } from '@parley/common/rpc-errors.ts';
import { isRole } from '@parley/common/roles.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { accountUserSelect, type AccountUser } from '../core/account-user.ts';
import { hashPassword } from '../core/password-hash.ts';
import { hashSessionToken, TOKEN_BYTES } from '../core/session-token.ts';
import { normalizeEmail, isValidEmail } from '../core/email.ts';
import { createPersonalWorkspace } from '../core/workspace.ts';
import { startSession } from '../sessions/start-session.ts';
import { lockWorkspace } from '../workspaces/access.ts';
import { recordAudit } from '../workspaces/audit.ts';
import { requireSeats, seatLimitMessage } from '../workspaces/invitations.ts';
import { domainOf } from '../core/email.ts';
import { oidcProtocol, samlProtocol } from './sso-protocols.ts';
import { isBrowserBinding, nowOf, OTHER_BROWSER, SSO_SIGN_IN_EXPIRED, type SsoDeps } from './sso-deps.ts';

export interface CompleteSsoSignInRequest {
  protocol: string;
  oidcQuery: string;
  samlResponse: string;
  relayState: string;
  clientIp: string;
  /** The value of the SSO cookie of the browser that brought the answer back. */
  browserBinding: string;
  /** The workspace's seat limit and plan, as the gateway read them from billing (0: unknown, nobody is added). */
  seatLimit: number;
  plan: string;
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
/** A first sign-in that would take a seat the plan does not have. */
export const NO_SEAT_FOR_SSO = (plan: string, limit: number) =>
  `${seatLimitMessage(plan, limit)} Your account could not be added to this workspace: ask its administrator to free a seat or upgrade.`;
export const ssoRefused = (reason: string) => `Single sign-on failed: ${reason.slice(0, 200)}`;

/** The state the answer carries (OIDC `state`, SAML `RelayState`), or '' when it cannot be one. */
function stateOf(req: { protocol: string; oidcQuery: string; relayState: string }): string {
  const state = req.protocol === 'oidc' ? (new URLSearchParams(req.oidcQuery).get('state') ?? '') : req.relayState;
  return state && state.length <= TOKEN_BYTES * 2 ? state : '';
}

/**
 * The workspace of a sign-in still in flight ('' when there is none): the gateway reads its plan's seat
 * limit before completing it. Tells no more than the completion would, and changes nothing.
 */
export async function getSsoSignInWorkspace(
  deps: SsoDeps,
  req: { protocol: string; oidcQuery: string; relayState: string },
): Promise<{ workspaceId: string }> {
  if (req.protocol !== 'oidc' && req.protocol !== 'saml') throw invalid('Protocol must be "oidc" or "saml"');
  if (req.oidcQuery.length > 8192) throw invalid('The callback is too long');
  const state = stateOf(req);
  if (!state) return { workspaceId: '' };
  const signIn = await deps.db.ssoSignIn.findUnique({
    where: { stateHash: hashSessionToken(state) },
    select: { workspaceId: true, protocol: true },
  });
  return { workspaceId: signIn && signIn.protocol === req.protocol ? signIn.workspaceId : '' };
}

export async function completeSsoSignIn(deps: SsoDeps, req: CompleteSsoSignInRequest): Promise<CompletedSsoSignIn> {
  if (req.protocol !== 'oidc' && req.protocol !== 'saml') throw invalid('Protocol must be "oidc" or "saml"');
  if (req.oidcQuery.length > 8192) throw invalid('The callback is too long');
  const state = stateOf(req);
  if (!state) throw unauthenticated(SSO_SIGN_IN_EXPIRED);
  const now = nowOf(deps);
  const stateHash = hashSessionToken(state);

  const signIn = await deps.db.ssoSignIn.findUnique({ where: { stateHash } });
  if (!signIn || signIn.protocol !== req.protocol) throw unauthenticated(SSO_SIGN_IN_EXPIRED);
  // Claimed before the provider's answer is checked: one state, one try.
  const claimed = await deps.db.ssoSignIn.updateMany({ where: { stateHash, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  if (claimed.count !== 1) throw unauthenticated(SSO_SIGN_IN_EXPIRED);
  // After the claim: a state that reached another browser (an attacker's link opened by a victim) is
  // spent, not left for a second try.
  if (!sameBrowser(signIn.browserBindingHash, req.browserBinding)) {
    deps.logger.warn({ workspaceId: signIn.workspaceId, protocol: req.protocol }, 'single sign-on answered in another browser');
    throw unauthenticated(OTHER_BROWSER);
  }
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

  const result = await signInOrRecordRefusal(deps, req, signIn.workspaceId, async (tx) => {
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
      // Counted under the workspace's lock, as invitations and their acceptance are, so that two first
      // sign-ins at the same moment cannot both take the last seat.
      await lockWorkspace(tx, signIn.workspaceId);
      if (!Number.isInteger(req.seatLimit) || req.seatLimit < 1) throw invalid('seat_limit must be at least 1');
      try {
        await requireSeats(tx, signIn.workspaceId, { limit: req.seatLimit, plan: req.plan, adding: 1 }, now);
      } catch (err) {
        throw new SeatRefusal(email, role, err as ConnectError);
      }
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

function sameBrowser(storedHash: string, binding: string): boolean {
  if (!storedHash || !isBrowserBinding(binding)) return false;
  return timingSafeEqual(Buffer.from(storedHash, 'hex'), Buffer.from(hashSessionToken(binding), 'hex'));
}

/** A first sign-in refused for want of a seat: its transaction is rolled back, then the refusal is audited. */
class SeatRefusal extends Error {
  readonly email: string;
  readonly role: string;
  constructor(email: string, role: string, refusal: ConnectError) {
    super(refusal.message);
    this.email = email;
    this.role = role;
  }
}

async function signInOrRecordRefusal<T>(
  deps: SsoDeps,
  req: CompleteSsoSignInRequest,
  workspaceId: string,
  work: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  try {
    return await deps.db.$transaction(work);
  } catch (err) {
    if (!(err instanceof SeatRefusal)) throw err;
    await recordAudit(deps.db, {
      workspaceId,
      actorUserId: null,
      actorEmail: err.email,
      action: 'member.sso_refused_no_seat',
      target: err.email,
      details: { role: err.role, seatLimit: req.seatLimit, plan: req.plan },
      clientIp: req.clientIp,
    });
    throw new ConnectError(NO_SEAT_FOR_SSO(req.plan, req.seatLimit), Code.PermissionDenied);
  }
}
