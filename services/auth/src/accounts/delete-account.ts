// Deleting an account: confirmed with the password, the user goes at once (sessions, reset tokens and
// memberships cascade), with every workspace the person alone belongs to (their personal one, unless
// they transferred it). Each deleted workspace is recorded in the outbox in the same transaction, so
// that the AccountDeleted event, whose id is the workspace's, reaches the services holding its data
// (chatbots, conversations, billing) even if it cannot be published now (account-deleted.outbox.ts).
// Refused while the person is the only owner of a workspace with other members: it would be left
// without an owner.
import type { Logger } from '@parley/common/logger.ts';
import { failedPrecondition, invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { Notices } from '../mail/notices.ts';
import { accountDeletedMail } from '../mail/templates.ts';
import { announceAccountDeleted, type PublishAccountDeleted } from './account-deleted.outbox.ts';
import { checkCurrentPassword, type CurrentPasswordDeps } from '../core/current-password.ts';
import { ACCOUNT_NOT_FOUND, parseUserId } from '../core/profile-input.ts';

export const PASSWORD_INCORRECT = 'Password is incorrect';

export interface DeleteAccountDeps extends CurrentPasswordDeps {
  notices: Notices;
  logger: Logger;
  /** Announces the deletion; called after the commit (and by the outbox's relay if it fails). */
  publishAccountDeleted: PublishAccountDeleted;
}

export async function deleteAccount(deps: DeleteAccountDeps, req: { userId: string; password: string; clientIp: string }): Promise<void> {
  const userId = parseUserId(req.userId);
  if (!req.password) throw invalid('Please enter your password');
  const user = await checkCurrentPassword(deps, { userId, password: req.password, clientIp: req.clientIp }, PASSWORD_INCORRECT);

  const deleted = await deps.db.$transaction(async (tx) => {
    const alone = await workspacesLeftBehind(tx, userId);
    // A concurrent deletion may have won since the password was checked.
    const { count } = await tx.user.deleteMany({ where: { id: userId } });
    if (count === 0) throw notFound(ACCOUNT_NOT_FOUND);
    await tx.workspace.deleteMany({ where: { id: { in: alone } } });
    const records = [];
    for (const workspaceId of alone) records.push(await tx.accountDeletedOutbox.create({ data: { userId: workspaceId } }));
    return records;
  });

  for (const record of deleted) {
    try {
      await announceAccountDeleted(deps.db, deps.publishAccountDeleted, { userId: record.userId, deletedAt: record.deletedAt });
    } catch (err) {
      // The account is gone either way, and its record stays in the outbox for the relay.
      deps.logger.warn(
        { err: (err as Error).message, userId, workspaceId: record.userId },
        'could not publish AccountDeleted yet; the outbox relay will',
      );
    }
  }
  deps.notices.send({ to: user.email, ...accountDeletedMail() }, { userId });
  deps.logger.info({ userId }, 'account deleted');
}

export const soleOwnerOf = (workspaceName: string) => `Transfer ownership of ${workspaceName} or delete it before deleting your account`;

/**
 * The workspaces the person alone belongs to, which go with the account; FAILED_PRECONDITION if they
 * are the only owner of one with other members. The person's workspaces are locked first, so that no
 * one joins or is promoted meanwhile.
 */
async function workspacesLeftBehind(tx: Prisma.TransactionClient, userId: string): Promise<string[]> {
  await tx.$executeRaw`SELECT 1 FROM "Workspace" WHERE "id" IN (SELECT "workspaceId" FROM "Membership" WHERE "userId" = ${userId}::uuid) ORDER BY "id" FOR UPDATE`;
  const memberships = await tx.membership.findMany({
    where: { userId },
    orderBy: { createdAt: 'asc' },
    select: {
      role: true,
      workspace: {
        select: {
          id: true,
          name: true,
          _count: { select: { memberships: true } },
          memberships: { where: { role: 'owner' }, select: { userId: true } },
        },
      },
    },
  });
  const alone: string[] = [];
  for (const { role, workspace } of memberships) {
    if (workspace._count.memberships === 1) alone.push(workspace.id);
    else if (role === 'owner' && workspace.memberships.length === 1) throw failedPrecondition(soleOwnerOf(workspace.name));
  }
  return alone;
}
