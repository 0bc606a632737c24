// Hands a reset request to auth's own background job (password-reset-requested.job.ts).
import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Producer } from '@parley/common/queues.ts';
import { PasswordResetRequestedSchema } from '@parley/proto/parley/events/v1/password_reset_requested_pb.js';

export type PasswordResetRequestedProducer = Producer<typeof PasswordResetRequestedSchema>;

export interface PasswordResetRequest {
  /** Normalised. */
  email: string;
  clientIp: string;
  requestedAt: Date;
}

/** Every request is its own job (a random id): two requests are two mails, within the throttle's limits. */
export async function publishPasswordResetRequested(
  producer: PasswordResetRequestedProducer,
  request: PasswordResetRequest,
): Promise<void> {
  const event = create(PasswordResetRequestedSchema, {
    email: request.email,
    clientIp: request.clientIp,
    requestedAt: timestampFromDate(request.requestedAt),
  });
  // Fails after the kit's publish deadline, so a Redis outage cannot hang the request.
  await producer.publish(event, `password-reset.${randomUUID()}`);
}
