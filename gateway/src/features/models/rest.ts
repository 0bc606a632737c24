// GET /api/models (docs/product.md, The model): the models this deployment offers chatbots, each with
// whether the workspace's plan may use it (models.ts holds the rule). A row of the operation table
// (http/operations.ts).
import { operation, type Operation } from '../../http/operations.ts';
import { workspaceModels } from './models.ts';

export const modelOperations: Operation[] = [
  operation({ method: 'GET', path: '/api/models', who: 'session', permission: 'workspace:read' }, async ({ app: { clients }, member }) =>
    workspaceModels(clients, member.ownerId),
  ),
];
