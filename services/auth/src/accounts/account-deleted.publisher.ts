// Announces a deleted account to every service that holds the owner's data: one queue each
// (chatbot, chat, billing), the same event in all three.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { AccountDeletedSchema } from '@parley/proto/parley/events/v1/account_deleted_pb.js';
import type { DeletedAccount } from './account-deleted.outbox.ts';

export type AccountDeletedProducer = Producer<typeof AccountDeletedSchema>;

export const ACCOUNT_DELETED_QUEUES = [QUEUES.accountDeletedChatbot, QUEUES.accountDeletedChat, QUEUES.accountDeletedBilling] as const;

/** One job per account and queue: BullMQ ignores a repeated job id, so a retried publish cannot duplicate it. */
export const accountDeletedJobId = (userId: string) => `account-deleted.${userId}`;

export function createAccountDeletedProducers(redis: Redis, prefix: string): AccountDeletedProducer[] {
  return ACCOUNT_DELETED_QUEUES.map((queue) => createProducer(redis, queue, AccountDeletedSchema, { prefix }));
}

/** Resolves once the event is in every queue; fails (after the kit's publish deadline) if any is not. */
export async function publishAccountDeleted(producers: AccountDeletedProducer[], account: DeletedAccount): Promise<void> {
  const event = create(AccountDeletedSchema, { userId: account.userId, occurredAt: timestampFromDate(account.deletedAt) });
  await Promise.all(producers.map((producer) => producer.publish(event, accountDeletedJobId(account.userId))));
}
