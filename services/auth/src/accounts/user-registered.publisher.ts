// Announces a new account on the user-registered queue (billing opens the billing account from it).
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { UserRegisteredSchema } from '@parley/proto/parley/events/v1/user_registered_pb.js';
import type { Producer } from '@parley/common/queues.ts';
import type { AccountUser } from '../core/account-user.ts';

export type UserRegisteredProducer = Producer<typeof UserRegisteredSchema>;

/** One job per account: BullMQ ignores a repeated job id, so a retried publish cannot duplicate it. */
export const userRegisteredJobId = (userId: string) => `user-registered.${userId}`;

export async function publishUserRegistered(producer: UserRegisteredProducer, user: AccountUser): Promise<void> {
  const event = create(UserRegisteredSchema, {
    userId: user.id,
    email: user.email,
    name: user.name,
    occurredAt: timestampFromDate(user.createdAt),
  });
  // Fails after the kit's publish deadline, so a Redis outage cannot hang Register.
  await producer.publish(event, userRegisteredJobId(user.id));
}
