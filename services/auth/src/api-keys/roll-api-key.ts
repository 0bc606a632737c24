// Rolling an API key: a new secret, answered once, while every earlier secret keeps working for the
// overlap chosen (0 to 7 days, never past the key's expiry), so the key's users can move to the new
// one without an outage, and a leaked secret can be stopped at once (overlap 0). Secrets whose end
// has passed are deleted.
import { failedPrecondition } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { changeAsMember, type ActorInput } from '../workspaces/access.ts';
import { memberAudit, recordAudit } from '../workspaces/audit.ts';
import { hashApiKeySecret, newApiKeySecret, secretHint } from './api-key-secret.ts';
import {
  API_KEY_EXPIRED,
  API_KEY_REVOKED,
  apiKeyOf,
  apiKeySelect,
  parseOverlapSeconds,
  toApiKeyView,
  type ApiKeyView,
} from './api-keys.ts';

/** apikeys:manage. FAILED_PRECONDITION for a revoked or expired key. */
export async function rollApiKey(
  db: PrismaClient,
  req: { actor: ActorInput; apiKeyId: string; overlapSeconds: number },
  now = new Date(),
): Promise<{ apiKey: ApiKeyView; secret: string }> {
  const overlapSeconds = parseOverlapSeconds(req.overlapSeconds);
  const secret = newApiKeySecret();
  const apiKey = await changeAsMember(db, req.actor, 'apikeys:manage', async (tx, member) => {
    const key = await apiKeyOf(tx, member.workspace.id, req.apiKeyId, now);
    if (key.revokedAt) throw failedPrecondition(API_KEY_REVOKED);
    if (key.expiresAt && key.expiresAt <= now) throw failedPrecondition(API_KEY_EXPIRED);
    const overlapEnd = new Date(now.getTime() + overlapSeconds * 1000);
    const end = key.expiresAt && key.expiresAt < overlapEnd ? key.expiresAt : overlapEnd;
    // The current secret, and any earlier one still in a longer overlap, end at `end`.
    await tx.apiKeySecret.updateMany({
      where: { apiKeyId: key.id, OR: [{ validUntil: null }, { validUntil: { gt: end } }] },
      data: { validUntil: end },
    });
    await tx.apiKeySecret.deleteMany({ where: { apiKeyId: key.id, validUntil: { lte: now } } });
    await tx.apiKeySecret.create({
      data: { apiKeyId: key.id, secretHash: hashApiKeySecret(secret), ...secretHint(secret), createdAt: now },
    });
    await recordAudit(
      tx,
      memberAudit(member, 'api_key.rolled', key.name, {
        apiKeyId: key.id,
        overlapSeconds,
        previousSecretExpiresAt: end.toISOString(),
      }),
    );
    return tx.apiKey.findUniqueOrThrow({ where: { id: key.id }, select: apiKeySelect(now) });
  });
  return { apiKey: toApiKeyView(apiKey), secret };
}
