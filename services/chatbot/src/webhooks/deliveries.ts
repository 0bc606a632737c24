// An endpoint's delivery log (newest first, a page at a time), redelivery and test events.
import { randomBytes } from 'node:crypto';
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import { WEBHOOK_EVENTS, isWebhookEventType, webhookPayload } from '@parley/common/webhook-events.ts';
import type { WebhookAttempt, WebhookDelivery } from '../generated/prisma/client.ts';
import { DELIVERY_NOT_FOUND, unknownEvent } from './endpoint-input.ts';
import { findOwnedEndpoint } from './endpoints.ts';
import { newDeliveryId } from './fan-out.ts';
import type { WebhookDeps } from './webhook-deps.ts';

export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;
export const CURSOR_INVALID = 'Invalid cursor';
export const LIMIT_INVALID = `limit must be between 1 and ${MAX_PAGE}`;

type Owned = { ownerId: string; endpointId: string };

/** A delivery with its attempt log, oldest first. */
export type DeliveryWithAttempts = WebhookDelivery & { attemptLog: WebhookAttempt[] };
const withAttemptLog = { attemptLog: { orderBy: { id: 'asc' } } } as const;

// A cursor is the last row's (createdAt, id), opaque to callers.
const encodeCursor = (d: WebhookDelivery) => Buffer.from(`${d.createdAt.toISOString()}|${d.id}`).toString('base64url');
function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime())) throw invalid(CURSOR_INVALID);
  return { createdAt, id };
}

export async function listDeliveries(
  deps: Pick<WebhookDeps, 'db'>,
  input: Owned & { limit: number; cursor: string },
): Promise<{ deliveries: DeliveryWithAttempts[]; nextCursor: string }> {
  const endpoint = await findOwnedEndpoint(deps.db, input);
  const limit = input.limit === 0 ? DEFAULT_PAGE : input.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw invalid(LIMIT_INVALID);
  const after = input.cursor ? decodeCursor(input.cursor) : undefined;
  const rows = await deps.db.webhookDelivery.findMany({
    where: {
      endpointId: endpoint.id,
      ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
    include: withAttemptLog,
  });
  const page = rows.slice(0, limit);
  return { deliveries: page, nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]) : '' };
}

/** Sends the delivery again (same id and payload) as a new round of attempts, whatever its state. */
export async function redeliver(deps: WebhookDeps, input: Owned & { deliveryId: string }): Promise<DeliveryWithAttempts> {
  const endpoint = await findOwnedEndpoint(deps.db, input);
  const id = input.deliveryId.trim();
  const [delivery] = await deps.db.$queryRaw<WebhookDelivery[]>`
    UPDATE "WebhookDelivery" SET "round" = "round" + 1, "status" = 'pending', "error" = ''
     WHERE "id" = ${id} AND "endpointId" = ${endpoint.id}::uuid
    RETURNING *`;
  if (!delivery) throw notFound(DELIVERY_NOT_FOUND);
  // Read before the new round's first attempt can add to it: the log as it stood when redelivered.
  const attemptLog = await deps.db.webhookAttempt.findMany({ where: { deliveryId: delivery.id }, orderBy: { id: 'asc' } });
  await deps.requestDelivery(delivery.id, delivery.round);
  return { ...delivery, attemptLog };
}

/** A delivery of the type's example data to the endpoint (subscribed or not), queued now. */
export async function sendTestEvent(deps: WebhookDeps, input: Owned & { eventType: string }): Promise<DeliveryWithAttempts> {
  const endpoint = await findOwnedEndpoint(deps.db, input);
  const type = input.eventType.trim() || endpoint.events[0] || 'message.created';
  if (!isWebhookEventType(type)) throw invalid(unknownEvent(type));
  const delivery = await deps.db.webhookDelivery.create({
    data: {
      id: newDeliveryId(),
      endpointId: endpoint.id,
      eventId: `test_${randomBytes(12).toString('hex')}`,
      eventType: type,
      payload: webhookPayload(type, new Date(), WEBHOOK_EVENTS[type].example),
      test: true,
    },
    include: withAttemptLog,
  });
  await deps.requestDelivery(delivery.id, 0);
  return delivery;
}
