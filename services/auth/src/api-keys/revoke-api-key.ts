import type { PrismaClient } from '../generated/prisma/client.ts';
import { changeAsMember, type ActorInput } from '../workspaces/access.ts';
import { memberAudit, recordAudit } from '../workspaces/audit.ts';
import { apiKeyOf, apiKeySelect, toApiKeyView, type ApiKeyView } from './api-keys.ts';

/**
 * apikeys:manage. Every secret of the key stops working at once (a caller keeping AuthenticateApiKey's
 * answer a few seconds honours it within them). Revoking a revoked key changes and records nothing.
 */
export async function revokeApiKey(db: PrismaClient, req: { actor: ActorInput; apiKeyId: string }, now = new Date()): Promise<ApiKeyView> {
  const apiKey = await changeAsMember(db, req.actor, 'apikeys:manage', async (tx, member) => {
    const key = await apiKeyOf(tx, member.workspace.id, req.apiKeyId, now);
    if (key.revokedAt) return key;
    const revoked = await tx.apiKey.update({ where: { id: key.id }, data: { revokedAt: now }, select: apiKeySelect(now) });
    await recordAudit(tx, memberAudit(member, 'api_key.revoked', key.name, { apiKeyId: key.id }));
    return revoked;
  });
  return toApiKeyView(apiKey);
}
