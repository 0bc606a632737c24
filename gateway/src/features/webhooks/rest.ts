// REST twins of the webhook operations (docs/adr/0032-webhooks.md); JSON field names as in the
// GraphQL types, delivery statuses lowercase ("succeeded"). Each path acts in the request's
// workspace (X-Workspace-Id, the personal one without it) with webhooks:manage (permissions.ts):
//   GET    /api/workspace/webhooks                     → [endpoint with lastDelivery]
//   POST   /api/workspace/webhooks { url, events, enabled? } → { endpoint, secret } (201; the secret only here)
//   GET    /api/workspace/webhooks/event-types         → [{ type, version, description }]
//   PATCH  /api/workspace/webhooks/{id} { url?, events?, enabled? } → endpoint
//   DELETE /api/workspace/webhooks/{id}                → { message }
//   POST   /api/workspace/webhooks/{id}/roll-secret    → { secret }
//   POST   /api/workspace/webhooks/{id}/test { eventType? } → delivery (201)
//   GET    /api/workspace/webhooks/{id}/deliveries?first&after → { deliveries, nextCursor }
//   POST   /api/workspace/webhooks/{id}/deliveries/{deliveryId}/redeliver → delivery
import { Router } from 'express';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';
import { routeMember } from '../../access/members.ts';
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
import { jsonObject, optionalBoolean, optionalString, optionalStringArray, stringField } from '../../http/input.ts';

/** A whole number given as a query parameter, or undefined when absent. */
function queryInteger(query: Record<string, unknown>, name: string): number | undefined {
  const raw = optionalString(query, name);
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!/^\d{1,4}$/.test(raw.trim())) throw invalid(`${name} must be a whole number`);
  return Number(raw.trim());
}

/** Mounted under /api/workspace/webhooks. */
export function webhookRoutes(clients: Clients): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const m = await routeMember(clients, req);
    const endpoints = await listEndpoints(clients, m);
    res.json(await Promise.all(endpoints.map(async (e) => ({ ...e, lastDelivery: await lastDelivery(clients, m, e.id) }))));
  });
  router.post('/', async (req, res) => {
    const m = await routeMember(clients, req);
    const body = jsonObject(req.body);
    const created = await createEndpoint(clients, m, {
      url: stringField(body, 'url'),
      events: optionalStringArray(body, 'events') ?? [],
      enabled: optionalBoolean(body, 'enabled'),
    });
    res.status(201).json(created);
  });
  router.get('/event-types', async (req, res) => {
    await routeMember(clients, req);
    res.json(webhookEventTypes());
  });
  router.patch('/:id', async (req, res) => {
    const m = await routeMember(clients, req);
    const body = jsonObject(req.body);
    const change = {
      url: optionalString(body, 'url'),
      events: optionalStringArray(body, 'events'),
      enabled: optionalBoolean(body, 'enabled'),
    };
    res.json(await updateEndpoint(clients, m, req.params.id, change));
  });
  router.delete('/:id', async (req, res) => {
    await deleteEndpoint(clients, await routeMember(clients, req), req.params.id);
    res.json({ message: WEBHOOK_DELETED_MESSAGE });
  });
  router.post('/:id/roll-secret', async (req, res) => {
    res.json(await rollSecret(clients, await routeMember(clients, req), req.params.id));
  });
  router.post('/:id/test', async (req, res) => {
    const m = await routeMember(clients, req);
    const eventType = optionalString(jsonObject(req.body), 'eventType');
    res.status(201).json(await sendTestEvent(clients, m, req.params.id, eventType));
  });
  router.get('/:id/deliveries', async (req, res) => {
    const m = await routeMember(clients, req);
    const query = req.query as Record<string, unknown>;
    res.json(
      await listDeliveries(clients, m, req.params.id, { first: queryInteger(query, 'first'), after: optionalString(query, 'after') }),
    );
  });
  router.post('/:id/deliveries/:deliveryId/redeliver', async (req, res) => {
    res.json(await redeliver(clients, await routeMember(clients, req), req.params.id, req.params.deliveryId));
  });
  return router;
}
