// A workspace that requires single sign-on refuses password sign-in to its members whose email is in
// one of its claimed domains; its owners keep a break-glass path (password and two-factor sign-in), so
// a broken identity provider cannot lock the workspace out.
import { failedPrecondition } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { domainOf } from './email.ts';

export const SSO_REQUIRED = (workspace: string) => `${workspace} requires single sign-on: use “Sign in with SSO” with your work email.`;
export const SSO_REQUIRED_OWNER_WITHOUT_TWO_FACTOR = (workspace: string) =>
  `${workspace} requires single sign-on: use “Sign in with SSO”. Owners may sign in with a password only with two-factor sign-in on.`;

/** Refuses a right password of a member an SSO-required workspace signs in through its identity provider. */
export async function refusePasswordIfSsoRequired(
  db: PrismaClient,
  user: { id: string; email: string; twoFactorEnabledAt: Date | null },
): Promise<void> {
  const claim = await db.claimedDomain.findUnique({
    where: { domain: domainOf(user.email) },
    select: {
      workspace: {
        select: {
          name: true,
          ssoConnection: { select: { requireSso: true } },
          memberships: { where: { userId: user.id }, select: { role: true } },
        },
      },
    },
  });
  const workspace = claim?.workspace;
  if (!workspace?.ssoConnection?.requireSso) return;
  const membership = workspace.memberships[0];
  if (!membership) return;
  if (membership.role !== 'owner') throw failedPrecondition(SSO_REQUIRED(workspace.name));
  if (!user.twoFactorEnabledAt) throw failedPrecondition(SSO_REQUIRED_OWNER_WITHOUT_TWO_FACTOR(workspace.name));
}
