// REST twins of the own provider key operations (docs/adr/0043-own-provider-keys.md); JSON field
// names as in the GraphQL types. Each path acts in the request's workspace (X-Workspace-Id, the
// personal one without it) with apikeys:manage (permissions.ts):
//   GET    /api/workspace/provider-keys              → [{ provider, lastFour, createdAt }]
//   PUT    /api/workspace/provider-keys/{provider} { key } → { provider, lastFour, createdAt }
//            400 "The provider refused this key." (not stored), 503 when the provider is unreachable
//   DELETE /api/workspace/provider-keys/{provider}   → { removed }
import { Router } from 'express';
import type { Clients } from '../../http/clients.ts';
import { routeMember } from '../../access/members.ts';
import { listProviderKeys, removeProviderKey, setProviderKey } from './provider-keys.ts';
import { jsonObject } from '../../http/input.ts';

/** Mounted under /api/workspace/provider-keys. */
export function providerKeyRoutes(clients: Clients): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    res.json(await listProviderKeys(clients, await routeMember(clients, req)));
  });
  router.put('/:provider', async (req, res) => {
    const m = await routeMember(clients, req);
    res.json(await setProviderKey(clients, m, req.params.provider, jsonObject(req.body).key));
  });
  router.delete('/:provider', async (req, res) => {
    res.json({ removed: await removeProviderKey(clients, await routeMember(clients, req), req.params.provider) });
  });
  return router;
}
