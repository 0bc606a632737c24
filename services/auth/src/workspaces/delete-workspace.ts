// Deleting a workspace: confirmed with the owner's password, its rows (members, invitations, audit
// log) go at once, and its deletion is recorded in the AccountDeleted outbox in the same transaction
// with the workspace's id as the owner id, so every service deletes what it holds for that owner
// once, as for a deleted account (accounts/account-deleted.outbox.ts).
import type { Logger } from '@parley/common/logger.ts';
import { failedPrecondition, invalid } from '@parley/common/rpc-errors.ts';
import { announceAccountDeleted, type PublishAccountDeleted } from '../accounts/account-deleted.outbox.ts';
import { checkCurrentPassword, type CurrentPasswordDeps } from '../core/current-password.ts';
import { changeAsMember, findMember, type ActorInput } from './access.ts';

export const PASSWORD_INCORRECT = 'Password is incorrect';
export const PERSONAL_WORKSPACE_KEPT = 'Your personal workspace is deleted only with your account';

export interface DeleteWorkspaceDeps extends CurrentPasswordDeps {
  logger: Logger;
  publishAccountDeleted: PublishAccountDeleted;
}

export async function deleteWorkspace(deps: DeleteWorkspaceDeps, req: { actor: ActorInput; password: string }): Promise<void> {
  const member = await findMember(deps.db, req.actor, 'workspace:delete');
  if (member.workspace.personal) throw failedPrecondition(PERSONAL_WORKSPACE_KEPT);
  if (!req.password) throw invalid('Please enter your password');
  await checkCurrentPassword(deps, { userId: member.userId, password: req.password, clientIp: req.actor.clientIp }, PASSWORD_INCORRECT);

  const workspaceId = member.workspace.id;
  // The role is checked again under the lock: it may have changed since.
  const deletedAt = await changeAsMember(deps.db, req.actor, 'workspace:delete', async (tx) => {
    await tx.workspace.delete({ where: { id: workspaceId } });
    return (await tx.accountDeletedOutbox.create({ data: { userId: workspaceId } })).deletedAt;
  });

  try {
    await announceAccountDeleted(deps.db, deps.publishAccountDeleted, { userId: workspaceId, deletedAt });
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, workspaceId }, 'could not publish AccountDeleted yet; the outbox relay will');
  }
  deps.logger.info({ workspaceId, userId: member.userId }, 'workspace deleted');
}
