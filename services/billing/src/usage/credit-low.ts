// credit.low for webhooks (docs/adr/0032-webhooks.md): after a batch of usages is settled, each owner
// of the batch subscribed to credit.low whose balance is now below CREDIT_LOW_THRESHOLD hears of it
// once per crossing: a Redis marker is set (SET NX) with the event and removed when a later
// settlement finds the balance at or above the threshold again (after a top-up or the pro credit),
// so the next fall is a new crossing. Owners without a subscribed endpoint cost one Redis GET per
// batch and nothing else; a failure is logged, never the settlement's.
import { randomUUID } from 'node:crypto';
import type { Logger } from '@parley/common/logger.ts';
import type { Redis } from '@parley/common/redis.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { webhookEvent } from '@parley/common/webhook-events.ts';
import type { WebhookPublisher } from '@parley/common/webhook-publisher.ts';
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import { formatMoney } from '../core/money.ts';

export interface CreditLowDeps {
  prisma: PrismaClient;
  redis: Redis;
  prefix: string;
  logger: Logger;
  webhooks: Pick<WebhookPublisher, 'publish' | 'subscribers'>;
  /** CREDIT_LOW_THRESHOLD, dollars. */
  threshold: string;
}

/** Marker lifetime: a quiet owner's marker does not stay forever (a month; a crossing older than that is sent again). */
const MARKER_TTL_SECONDS = 30 * 24 * 3600;

export async function checkCreditLow(deps: CreditLowDeps, ownerIds: readonly string[]): Promise<void> {
  try {
    const subscribed = await deps.webhooks.subscribers('credit.low', ownerIds);
    if (subscribed.length === 0) return;
    const accounts = await deps.prisma.account.findMany({
      where: { ownerId: { in: subscribed } },
      select: { ownerId: true, creditBalance: true },
    });
    const threshold = new Prisma.Decimal(deps.threshold);
    const keys = redisKeys(deps.prefix);
    for (const { ownerId, creditBalance } of accounts) {
      const marker = keys.webhookCreditLow(ownerId);
      if (creditBalance.gte(threshold)) {
        await deps.redis.del(marker);
        continue;
      }
      const crossing = randomUUID();
      if ((await deps.redis.set(marker, crossing, 'EX', MARKER_TTL_SECONDS, 'NX')) !== 'OK') continue;
      await deps.webhooks.publish([
        webhookEvent('credit.low', {
          id: `credit.low:${ownerId}:${crossing}`,
          ownerId,
          occurredAt: new Date(),
          data: { balance: formatMoney(creditBalance), threshold: formatMoney(threshold) },
        }),
      ]);
    }
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'credit.low not checked for a batch');
  }
}
