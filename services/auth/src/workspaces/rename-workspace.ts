import type { PrismaClient } from '../generated/prisma/client.ts';
import { parseWorkspaceName, type WorkspaceView } from '../core/workspace.ts';
import { changeAsMember, workspaceView, type ActorInput } from './access.ts';
import { memberAudit, recordAudit } from './audit.ts';

/** members:manage. */
export async function renameWorkspace(db: PrismaClient, req: { actor: ActorInput; name: string }): Promise<WorkspaceView> {
  const name = parseWorkspaceName(req.name);
  return changeAsMember(db, req.actor, 'members:manage', async (tx, member) => {
    const previous = member.workspace.name;
    if (previous !== name) {
      await tx.workspace.update({ where: { id: member.workspace.id }, data: { name } });
      await recordAudit(tx, memberAudit(member, 'workspace.renamed', name, { from: previous, to: name }));
    }
    return workspaceView(tx, { ...member.workspace, name }, member.role, member.notifyHandoff);
  });
}
