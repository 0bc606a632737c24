// The fan-out of WebhookEvents (queue parley.webhook-events): each event becomes one delivery per
// enabled endpoint of its owner subscribed to its type, once per (endpoint, event id) however often
// the event arrives, and each new delivery's first attempt is queued. A disabled endpoint gets
// nothing. An event of an unknown type or with data its schema refuses is logged and left.
import { randomBytes } from 'node:crypto';
import { isWebhookEventType, webhookDataProblem, webhookPayload, type WebhookEventType } from '@parley/common/webhook-events.ts';
import type { WebhookDeps } from './webhook-deps.ts';

/** A WebhookEvent, decoded: the data parsed from its JSON. */
export interface IncomingWebhookEvent {
  id: string;
  ownerId: string;
  type: string;
  occurredAt: Date;
  data: unknown;
}

/** A delivery's id, sent as webhook-id: "msg_" and 24 hex digits. */
export const newDeliveryId = () => `msg_${randomBytes(12).toString('hex')}`;

/** Returns how many deliveries were created. */
export async function fanOutEvents(deps: WebhookDeps, events: readonly IncomingWebhookEvent[]): Promise<number> {
  const valid = events.filter((e): e is IncomingWebhookEvent & { type: WebhookEventType } => {
    const problem = !isWebhookEventType(e.type) ? `unknown type ${e.type}` : webhookDataProblem(e.type, e.data);
    if (problem) deps.logger.error({ eventId: e.id, type: e.type, problem }, 'webhook event left: it does not match its schema');
    return !problem;
  });
  if (valid.length === 0) return 0;
  const endpoints = await deps.db.webhookEndpoint.findMany({
    where: { ownerId: { in: [...new Set(valid.map((e) => e.ownerId))] }, enabled: true },
    select: { id: true, ownerId: true, events: true },
  });
  const rows = valid.flatMap((event) =>
    endpoints
      .filter((ep) => ep.ownerId === event.ownerId && ep.events.includes(event.type))
      .map((ep) => ({
        id: newDeliveryId(),
        endpointId: ep.id,
        eventId: event.id,
        eventType: event.type,
        payload: webhookPayload(event.type, event.occurredAt, event.data),
      })),
  );
  if (rows.length === 0) return 0;
  const { count } = await deps.db.webhookDelivery.createMany({ data: rows, skipDuplicates: true });
  // The first attempts of the events' deliveries not yet tried (those just created, and those a
  // previous run created but could not queue); a job id already queued is queued once.
  const fresh = await deps.db.webhookDelivery.findMany({
    where: {
      eventId: { in: valid.map((e) => e.id) },
      endpointId: { in: endpoints.map((e) => e.id) },
      round: 0,
      attempts: 0,
      status: 'pending',
    },
    select: { id: true },
  });
  for (const d of fresh) await deps.requestDelivery(d.id, 0);
  return count;
}
