// REST twins of the API key operations (docs/adr/0031-api-keys.md); JSON field names as in the
// GraphQL types. Each path acts in the request's workspace (X-Workspace-Id, the personal one without
// it) with the permission permissions.ts names (apikeys:manage):
//   GET    /api/workspace/api-keys                          → [apiKey]
//   POST   /api/workspace/api-keys { name, scopes, chatbotIds?, expiresAt? } → { apiKey, secret } (201)
//   POST   /api/workspace/api-keys/{id}/roll { overlap }    → { apiKey, secret }
//            overlap: none, one_hour, one_day or seven_days
//   DELETE /api/workspace/api-keys/{id}                     → apiKey (revoked)
//   GET    /api/api-scopes                                  → [{ name, description }] (no sign-in)
import { Router } from 'express';
import {
  apiScopes,
  CHATBOT_IDS_INVALID,
  createApiKey,
  EXPIRY_INVALID,
  listApiKeys,
  overlapField,
  revokeApiKey,
  rollApiKey,
  SCOPES_INVALID,
  stringList,
} from './api-keys.ts';
import type { Clients } from '../../http/clients.ts';
import { routeMember } from '../../access/members.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { jsonObject, stringField } from '../../http/input.ts';

/** Mounted under /api/workspace/api-keys: the current workspace's keys. */
export function apiKeyRoutes(clients: Clients): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    res.json(await listApiKeys(clients, await routeMember(clients, req)));
  });
  router.post('/', async (req, res) => {
    const m = await routeMember(clients, req);
    const body = jsonObject(req.body);
    const expiresAt = body.expiresAt;
    if (expiresAt !== undefined && expiresAt !== null && typeof expiresAt !== 'string') throw invalid(EXPIRY_INVALID);
    const issued = await createApiKey(clients, m, {
      name: stringField(body, 'name'),
      scopes: stringList(body.scopes, SCOPES_INVALID),
      chatbotIds: body.chatbotIds === undefined || body.chatbotIds === null ? [] : stringList(body.chatbotIds, CHATBOT_IDS_INVALID),
      expiresAt,
    });
    res.status(201).json(issued);
  });
  router.post('/:id/roll', async (req, res) => {
    const m = await routeMember(clients, req);
    res.json(await rollApiKey(clients, m, req.params.id, overlapField(jsonObject(req.body).overlap)));
  });
  router.delete('/:id', async (req, res) => {
    res.json(await revokeApiKey(clients, await routeMember(clients, req), req.params.id));
  });
  return router;
}

/** Mounted under /api/api-scopes: the scopes a key may hold, for anyone. */
export function apiScopeRoutes(): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    res.json(apiScopes());
  });
  return router;
}
