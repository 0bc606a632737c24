// REST twins of the own provider key operations (docs/adr/0043-own-provider-keys.md); JSON field
// names as in the GraphQL types. Each path acts in the request's workspace (X-Workspace-Id, the
// personal one without it) with apikeys:manage, each row of this operation table (http/operations.ts) naming it:
//   GET    /api/workspace/provider-keys              → [{ provider, lastFour, createdAt }]
//   PUT    /api/workspace/provider-keys/{provider} { key } → { provider, lastFour, createdAt }
//            400 "The provider refused this key." (not stored), 503 when the provider is unreachable
//   DELETE /api/workspace/provider-keys/{provider}   → { removed }
import { z } from 'zod';
import type { Permission } from '@parley/common/roles.ts';
import { operation, type Operation } from '../../http/operations.ts';
import { jsonBody } from '../../http/input.ts';
import { listProviderKeys, removeProviderKey, setProviderKey } from './provider-keys.ts';

const who = 'session';
const permission: Permission = 'apikeys:manage';
const base = '/api/workspace/provider-keys';

export const providerKeyOperations: Operation[] = [
  operation({ method: 'GET', path: base, who, permission }, async ({ app: { clients }, member }) => listProviderKeys(clients, member)),
  // The key's rules (its type included) are provider-keys.ts's.
  operation(
    { method: 'PUT', path: `${base}/:provider`, who, permission, body: jsonBody({ key: z.unknown() }) },
    async ({ app: { clients }, member, params, body }) => setProviderKey(clients, member, params.provider, body.key),
  ),
  operation({ method: 'DELETE', path: `${base}/:provider`, who, permission }, async ({ app: { clients }, member, params }) => ({
    removed: await removeProviderKey(clients, member, params.provider),
  })),
];
