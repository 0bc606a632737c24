// Announces a new account on the user-registered queue (billing opens the billing account from it).
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { UserRegisteredSchema } from '@parley/proto/parley/events/v1/user_registered_pb.js';
import { withDeadline } from '@parley/common/deadline.ts';
import type { Producer } from '@parley/common/queues.ts';
import type { AccountUser } from './account-user.ts';

export type UserRegisteredProducer = Producer<typeof UserRegisteredSchema>;

/** One job per account: BullMQ ignores a repeated job id, so a retried publish cannot duplicate it. */
export const userRegisteredJobId = (userId: string) => `user-registered.${userId}`;

const PUBLISH_TIMEOUT_MS = 3000;

export async function publishUserRegistered(producer: UserRegisteredProducer, user: AccountUser): Promise<void> {
  const event = create(UserRegisteredSchema, {
    userId: user.id,
    email: user.email,
    name: user.name,
    occurredAt: timestampFromDate(user.createdAt),
  });
  // The Redis client queues commands while disconnected; a deadline keeps Register from waiting on it.
  await withDeadline(producer.publish(event, userRegisteredJobId(user.id)), PUBLISH_TIMEOUT_MS, `publish timed out after ${PUBLISH_TIMEOUT_MS} ms`);
}
