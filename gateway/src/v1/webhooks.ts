// The developer API's webhook endpoints and delivery log (scope webhooks:write): the very helpers the
// dashboard's REST and GraphQL call (../features/webhooks/webhooks.ts), so the chatbot service's rules and messages are
// the same; answered in the API's shapes (lists as `{ data }`, pages with `limit`, `cursor` and
// `nextCursor`). A key kept to some chatbots is refused: an endpoint receives every chatbot's events.
import { forbidden } from '@parley/common/rpc-errors.ts';
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
} from '../features/webhooks/webhooks.ts';
import type { ApiKeyCaller } from '../access/api-keys.ts';
import { pageLimit, type ApiV1Options, type On } from './call.ts';

export const WEBHOOKS_NEED_WHOLE_WORKSPACE =
  "This API key is kept to some chatbots: it cannot manage webhooks, which carry every chatbot's events.";

function wholeWorkspace(key: ApiKeyCaller): void {
  if (key.chatbotIds.size > 0) throw forbidden(WEBHOOKS_NEED_WHOLE_WORKSPACE);
}

export function webhookRoutes(on: On, opts: ApiV1Options): void {
  const { clients } = opts;

  on('GET /api/v1/webhooks', async ({ res, key, ownerId }) => {
    wholeWorkspace(key);
    const endpoints = await listEndpoints(clients, { ownerId });
    res.json({
      data: await Promise.all(endpoints.map(async (e) => ({ ...e, lastDelivery: await lastDelivery(clients, { ownerId }, e.id) }))),
    });
  });

  on('POST /api/v1/webhooks', async ({ res, key, ownerId, body }) => {
    wholeWorkspace(key);
    res.status(201).json(await createEndpoint(clients, { ownerId }, { url: body.url, events: body.events, enabled: body.enabled }));
  });

  on('PATCH /api/v1/webhooks/:id', async ({ req, res, key, ownerId, body }) => {
    wholeWorkspace(key);
    res.json(
      await updateEndpoint(clients, { ownerId }, String(req.params.id), { url: body.url, events: body.events, enabled: body.enabled }),
    );
  });

  on('DELETE /api/v1/webhooks/:id', async ({ req, res, key, ownerId }) => {
    wholeWorkspace(key);
    const id = String(req.params.id);
    await deleteEndpoint(clients, { ownerId }, id);
    res.json({ id, deleted: true });
  });

  on('POST /api/v1/webhooks/:id/roll-secret', async ({ req, res, key, ownerId }) => {
    wholeWorkspace(key);
    res.json(await rollSecret(clients, { ownerId }, String(req.params.id)));
  });

  on('GET /api/v1/webhooks/:id/deliveries', async ({ req, res, key, ownerId, query }) => {
    wholeWorkspace(key);
    const page = await listDeliveries(clients, { ownerId }, String(req.params.id), { first: pageLimit(query.limit), after: query.cursor });
    res.json({ data: page.deliveries, nextCursor: page.nextCursor });
  });

  on('POST /api/v1/webhooks/:id/deliveries/:deliveryId/redeliver', async ({ req, res, key, ownerId }) => {
    wholeWorkspace(key);
    res.json(await redeliver(clients, { ownerId }, String(req.params.id), String(req.params.deliveryId)));
  });

  on('POST /api/v1/webhooks/:id/test', async ({ req, res, key, ownerId, body }) => {
    wholeWorkspace(key);
    res.status(201).json(await sendTestEvent(clients, { ownerId }, String(req.params.id), body.eventType));
  });
}
