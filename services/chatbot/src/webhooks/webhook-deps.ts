// What the webhook use cases share: the database, Redis (the subscriptions hash), the delivery
// queue and the settings of deliveries (config.ts: WEBHOOK_*).
import type { OutboundPolicy } from '@parley/common/outbound/guard.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { Redis } from '@parley/common/redis.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface DeliverySettings {
  /** KNOWLEDGE_URL_ALLOW_PRIVATE=1: endpoints on private addresses, and http, are allowed (tests, local use). */
  allowPrivate: boolean;
  /** The operator's allow-list of private ranges and hosts (OUTBOUND_ALLOW), when set. */
  policy?: OutboundPolicy;
  /** One attempt's deadline (connect, send, answer). */
  timeoutMs: number;
  /** Attempts of one delivery, the first included (BullMQ retries the rest with exponential backoff). */
  maxAttempts: number;
  /** An endpoint whose attempts have all failed for this long is disabled (its owners are mailed). */
  disableAfterMs: number;
}

export interface WebhookDeps {
  db: PrismaClient;
  redis: Redis;
  /** QUEUE_PREFIX: the subscriptions hash's keys. */
  prefix: string;
  logger: Logger;
  settings: DeliverySettings;
  /** Queues one attempt job of a delivery (job id "<delivery id>:<round>"). */
  requestDelivery: (deliveryId: string, round: number) => Promise<void>;
}
