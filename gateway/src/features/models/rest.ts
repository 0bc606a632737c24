// GET /api/models (docs/product.md, The model): the models this deployment offers chatbots, each with
// whether the workspace's plan may use it (models.ts holds the rule).
import { Router } from 'express';
import type { Clients } from '../../http/clients.ts';
import { workspaceModels } from './models.ts';
import { ownerId } from '../../access/members.ts';

export function modelRoutes(clients: Clients): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    res.json(await workspaceModels(clients, await ownerId(clients, req)));
  });
  return router;
}
