import type { PrismaClient } from '../generated/prisma/client.ts';
import { findMember, type ActorInput } from '../workspaces/access.ts';
import { apiKeySelect, toApiKeyView, type ApiKeyView } from './api-keys.ts';

/** apikeys:manage. Every key of the workspace, revoked and expired ones too, newest first; never a secret. */
export async function listApiKeys(db: PrismaClient, req: { actor: ActorInput }, now = new Date()): Promise<ApiKeyView[]> {
  const member = await findMember(db, req.actor, 'apikeys:manage');
  const keys = await db.apiKey.findMany({
    where: { workspaceId: member.workspace.id },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    select: apiKeySelect(now),
  });
  return keys.map(toApiKeyView);
}
