// Webhook endpoints and their delivery log as the gateway sees them (docs/adr/0032-webhooks.md):
// thin calls to the chatbot service's WebhookService, shared by REST and GraphQL. The service owns
// every rule and message (https only, public addresses, known event types, another workspace's
// endpoint not found) and checks the member's role itself; the gateway adds the event catalogue's
// descriptions and each endpoint's last delivery. The dashboard's REST and GraphQL and the developer
// API (v1/webhooks.ts) all call these.
import type { WebhookDelivery, WebhookEndpoint } from '@parley/proto/parley/chatbot/v1/webhooks_pb.js';
import { Code, ConnectError, invalid } from '@parley/common/rpc-errors.ts';
import { WEBHOOK_EVENTS, WEBHOOK_EVENT_TYPES } from '@parley/common/webhook-events.ts';
import { isoDate } from '../../http/dates.ts';
import type { Clients } from '../../http/clients.ts';
import type { Member } from '../../access/members.ts';

/** Whom a call acts for: the workspace (a member's, or an API key's). */
type Workspace = Pick<Member, 'ownerId'>;

export const DELIVERY_PAGE_INVALID = 'first must be a whole number from 1 to 100';
export const WEBHOOK_DELETED_MESSAGE = 'Webhook endpoint deleted';
export const DEFAULT_DELIVERY_PAGE = 20;

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveryView {
  id: string;
  endpointId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  /** The last attempt's HTTP status; null when no answer came. */
  responseStatus: number | null;
  /** How long the last attempt took; null before the first. */
  durationMs: number | null;
  responseExcerpt: string;
  error: string | null;
  test: boolean;
  payload: string;
  createdAt: string;
  lastAttemptAt: string | null;
  /** Each attempt, oldest first, redeliveries included: the last 20 (`attempts` counts them all). */
  attemptLog: WebhookAttemptView[];
}

export interface WebhookAttemptView {
  attemptedAt: string;
  /** The answer's HTTP status; null when no answer came. */
  responseStatus: number | null;
  durationMs: number;
  /** The failure in words; null for a success. */
  error: string | null;
}

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  createdAt: string;
}

export interface WebhookEventTypeView {
  type: string;
  version: number;
  description: string;
}

export interface WebhookDeliveryPageView {
  deliveries: WebhookDeliveryView[];
  nextCursor: string | null;
}

const STATUSES: readonly string[] = ['pending', 'succeeded', 'failed'];

export function endpointView(e: WebhookEndpoint | undefined): WebhookEndpointView {
  if (!e) throw new ConnectError('chatbot service returned no webhook endpoint', Code.Internal);
  return {
    id: e.id,
    url: e.url,
    events: [...e.events],
    enabled: e.enabled,
    disabledReason: e.disabledReason || null,
    failingSince: isoDate(e.failingSince),
    createdAt: isoDate(e.createdAt) ?? new Date(0).toISOString(),
  };
}

export function deliveryView(d: WebhookDelivery | undefined): WebhookDeliveryView {
  if (!d) throw new ConnectError('chatbot service returned no webhook delivery', Code.Internal);
  if (!STATUSES.includes(d.status)) throw new ConnectError(`chatbot service returned the delivery status ${d.status}`, Code.Internal);
  const attempted = d.lastAttemptAt !== undefined;
  return {
    id: d.id,
    endpointId: d.endpointId,
    eventType: d.eventType,
    status: d.status as DeliveryStatus,
    attempts: d.attempts,
    responseStatus: d.responseStatus > 0 ? d.responseStatus : null,
    durationMs: attempted ? d.durationMs : null,
    responseExcerpt: d.responseExcerpt,
    error: d.error || null,
    test: d.test,
    payload: d.payload,
    createdAt: isoDate(d.createdAt) ?? new Date(0).toISOString(),
    lastAttemptAt: isoDate(d.lastAttemptAt),
    attemptLog: d.attemptLog.map((a) => ({
      attemptedAt: isoDate(a.attemptedAt) ?? new Date(0).toISOString(),
      responseStatus: a.responseStatus > 0 ? a.responseStatus : null,
      durationMs: a.durationMs,
      error: a.error || null,
    })),
  };
}

/** The catalogue's event types, in the order the product lists them, with what each means. */
export function webhookEventTypes(): WebhookEventTypeView[] {
  return WEBHOOK_EVENT_TYPES.map((type) => ({
    type,
    version: WEBHOOK_EVENTS[type].version,
    description: WEBHOOK_EVENTS[type].description,
  }));
}

export async function listEndpoints(clients: Clients, m: Workspace): Promise<WebhookEndpointView[]> {
  const { endpoints } = await clients.webhooks.listWebhookEndpoints({ ownerId: m.ownerId });
  return endpoints.map(endpointView);
}

/** An endpoint's newest delivery, or null before its first. */
export async function lastDelivery(clients: Clients, m: Workspace, endpointId: string): Promise<WebhookDeliveryView | null> {
  const { deliveries } = await clients.webhooks.listWebhookDeliveries({ ownerId: m.ownerId, endpointId, limit: 1, cursor: '' });
  return deliveries.length > 0 ? deliveryView(deliveries[0]) : null;
}

export interface EndpointInput {
  url: string;
  events: string[];
  /** False creates it disabled; enabled otherwise. */
  enabled?: boolean | null;
}

/** A new endpoint and its signing secret, which is shown this once. */
export async function createEndpoint(
  clients: Clients,
  m: Workspace,
  input: EndpointInput,
): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
  const created = await clients.webhooks.createWebhookEndpoint({ ownerId: m.ownerId, url: input.url, events: input.events });
  let endpoint = created.endpoint;
  if (input.enabled === false && endpoint) {
    ({ endpoint } = await clients.webhooks.updateWebhookEndpoint({ ownerId: m.ownerId, endpointId: endpoint.id, enabled: false }));
  }
  return { endpoint: endpointView(endpoint), secret: created.secret };
}

export interface EndpointChange {
  url?: string | null;
  events?: string[] | null;
  enabled?: boolean | null;
}

/** Changes what is given (null and absent alike leave a field as it is). */
export async function updateEndpoint(
  clients: Clients,
  m: Workspace,
  endpointId: string,
  change: EndpointChange,
): Promise<WebhookEndpointView> {
  const { endpoint } = await clients.webhooks.updateWebhookEndpoint({
    ownerId: m.ownerId,
    endpointId,
    url: change.url ?? undefined,
    enabled: change.enabled ?? undefined,
    events: change.events ? { types: change.events } : undefined,
  });
  return endpointView(endpoint);
}

export async function deleteEndpoint(clients: Clients, m: Workspace, endpointId: string): Promise<void> {
  await clients.webhooks.deleteWebhookEndpoint({ ownerId: m.ownerId, endpointId });
}

/** A new signing secret, shown this once; the previous one stops signing at once. */
export async function rollSecret(clients: Clients, m: Workspace, endpointId: string): Promise<{ secret: string }> {
  const { secret } = await clients.webhooks.rollWebhookSecret({ ownerId: m.ownerId, endpointId });
  return { secret };
}

export async function listDeliveries(
  clients: Clients,
  m: Workspace,
  endpointId: string,
  page: { first?: number | null; after?: string | null },
): Promise<WebhookDeliveryPageView> {
  const first = page.first ?? DEFAULT_DELIVERY_PAGE;
  if (!Number.isInteger(first) || first < 1 || first > 100) throw invalid(DELIVERY_PAGE_INVALID);
  const { deliveries, nextCursor } = await clients.webhooks.listWebhookDeliveries({
    ownerId: m.ownerId,
    endpointId,
    limit: first,
    cursor: page.after ?? '',
  });
  return { deliveries: deliveries.map(deliveryView), nextCursor: nextCursor || null };
}

/** Sends a delivery's payload again, with the same webhook-id. */
export async function redeliver(clients: Clients, m: Workspace, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
  const { delivery } = await clients.webhooks.redeliverWebhook({ ownerId: m.ownerId, endpointId, deliveryId });
  return deliveryView(delivery);
}

/** Queues the catalogue's example of the type (the endpoint's first subscribed type without one). */
export async function sendTestEvent(
  clients: Clients,
  m: Workspace,
  endpointId: string,
  eventType: string | null | undefined,
): Promise<WebhookDeliveryView> {
  const { delivery } = await clients.webhooks.sendTestWebhook({ ownerId: m.ownerId, endpointId, eventType: eventType?.trim() ?? '' });
  return deliveryView(delivery);
}
