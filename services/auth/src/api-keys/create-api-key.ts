// Creating an API key: apikeys:manage, a name, known scopes, chatbot ids and an optional expiry in the
// future, within the workspace's number of active keys. The secret is answered here once and stored
// only as its hash; the audit log records the key, never the secret.
import { failedPrecondition } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { changeAsMember, type ActorInput } from '../workspaces/access.ts';
import { memberAudit, recordAudit } from '../workspaces/audit.ts';
import { hashApiKeySecret, newApiKeySecret, secretHint } from './api-key-secret.ts';
import {
  activeWhere,
  apiKeySelect,
  MAX_ACTIVE_API_KEYS,
  parseApiKeyName,
  parseChatbotIds,
  parseExpiry,
  parseScopes,
  toApiKeyView,
  tooManyKeys,
  type ApiKeyView,
} from './api-keys.ts';

export async function createApiKey(
  db: PrismaClient,
  req: { actor: ActorInput; name: string; scopes: string[]; chatbotIds: string[]; expiresAt?: Date },
  now = new Date(),
): Promise<{ apiKey: ApiKeyView; secret: string }> {
  const name = parseApiKeyName(req.name);
  const scopes = parseScopes(req.scopes);
  const chatbotIds = parseChatbotIds(req.chatbotIds);
  const expiresAt = parseExpiry(req.expiresAt, now);
  const secret = newApiKeySecret();
  const apiKey = await changeAsMember(db, req.actor, 'apikeys:manage', async (tx, member) => {
    const workspaceId = member.workspace.id;
    if ((await tx.apiKey.count({ where: { workspaceId, ...activeWhere(now) } })) >= MAX_ACTIVE_API_KEYS) {
      throw failedPrecondition(tooManyKeys);
    }
    const created = await tx.apiKey.create({
      data: {
        workspaceId,
        name,
        scopes,
        chatbotIds,
        createdByUserId: member.userId,
        createdByEmail: member.email,
        createdAt: now,
        expiresAt,
        secrets: { create: { secretHash: hashApiKeySecret(secret), ...secretHint(secret), createdAt: now } },
      },
      select: apiKeySelect(now),
    });
    await recordAudit(
      tx,
      memberAudit(member, 'api_key.created', name, {
        apiKeyId: created.id,
        scopes,
        chatbotIds,
        expiresAt: expiresAt?.toISOString() ?? null,
      }),
    );
    return created;
  });
  return { apiKey: toApiKeyView(apiKey), secret };
}
