// REST twins of the webhook operations (docs/adr/0032-webhooks.md); JSON field names as in the
// GraphQL types, delivery statuses lowercase ("succeeded"). Each path acts in the request's
// workspace (X-Workspace-Id, the personal one without it) with webhooks:manage, each row of this
// operation table (http/operations.ts) naming it:
//   GET    /api/workspace/webhooks                     → [endpoint with lastDelivery]
//   POST   /api/workspace/webhooks { url, events, enabled? } → { endpoint, secret } (201; the secret only here)
//   GET    /api/workspace/webhooks/event-types         → [{ type, version, description }]
//   PATCH  /api/workspace/webhooks/{id} { url?, events?, enabled? } → endpoint
//   DELETE /api/workspace/webhooks/{id}                → { message }
//   POST   /api/workspace/webhooks/{id}/roll-secret    → { secret }
//   POST   /api/workspace/webhooks/{id}/test { eventType? } → delivery (201)
//   GET    /api/workspace/webhooks/{id}/deliveries?first&after → { deliveries, nextCursor }
//   POST   /api/workspace/webhooks/{id}/deliveries/{deliveryId}/redeliver → delivery
import type { Permission } from '@parley/common/roles.ts';
import {
  createEndpoint,
  deleteEndpoint,
  lastDelivery,
  listDeliveries,
  listEndpoints,
  redeliver,
  rollSecret,
  sendTestEvent,
  updateEndpoint,
  WEBHOOK_DELETED_MESSAGE,
  webhookEventTypes,
} from './webhooks.ts';
import { operation, type Operation } from '../../http/operations.ts';
import { jsonBody, optionalFlag, optionalText, optionalTextList, queryWholeNumber, text } from '../../http/input.ts';
import { z } from 'zod';

const who = 'session';
const permission: Permission = 'webhooks:manage';
const base = '/api/workspace/webhooks';

export const webhookOperations: Operation[] = [
  operation({ method: 'GET', path: base, who, permission }, async ({ app: { clients }, member }) => {
    const endpoints = await listEndpoints(clients, member);
    return Promise.all(endpoints.map(async (e) => ({ ...e, lastDelivery: await lastDelivery(clients, member, e.id) })));
  }),
  operation(
    {
      method: 'POST',
      path: base,
      who,
      permission,
      status: 201,
      body: jsonBody({ url: text('url'), events: optionalTextList('events'), enabled: optionalFlag('enabled') }),
    },
    async ({ app: { clients }, member, body }) =>
      createEndpoint(clients, member, { url: body.url, events: body.events ?? [], enabled: body.enabled }),
  ),
  operation({ method: 'GET', path: `${base}/event-types`, who, permission }, async () => webhookEventTypes()),
  operation(
    {
      method: 'PATCH',
      path: `${base}/:id`,
      who,
      permission,
      body: jsonBody({ url: optionalText('url'), events: optionalTextList('events'), enabled: optionalFlag('enabled') }),
    },
    async ({ app: { clients }, member, params, body }) => updateEndpoint(clients, member, params.id, body),
  ),
  operation({ method: 'DELETE', path: `${base}/:id`, who, permission }, async ({ app: { clients }, member, params }) => {
    await deleteEndpoint(clients, member, params.id);
    return { message: WEBHOOK_DELETED_MESSAGE };
  }),
  operation({ method: 'POST', path: `${base}/:id/roll-secret`, who, permission }, async ({ app: { clients }, member, params }) =>
    rollSecret(clients, member, params.id),
  ),
  operation(
    { method: 'POST', path: `${base}/:id/test`, who, permission, status: 201, body: jsonBody({ eventType: optionalText('eventType') }) },
    async ({ app: { clients }, member, params, body }) => sendTestEvent(clients, member, params.id, body.eventType),
  ),
  operation(
    {
      method: 'GET',
      path: `${base}/:id/deliveries`,
      who,
      permission,
      query: z.object({ first: queryWholeNumber('first'), after: optionalText('after') }),
    },
    async ({ app: { clients }, member, params, query }) => listDeliveries(clients, member, params.id, query),
  ),
  operation(
    { method: 'POST', path: `${base}/:id/deliveries/:deliveryId/redeliver`, who, permission },
    async ({ app: { clients }, member, params }) => redeliver(clients, member, params.id, params.deliveryId),
  ),
];
