// REST twins of the API key operations (docs/adr/0031-api-keys.md); JSON field names as in the
// GraphQL types. Each path acts in the request's workspace (X-Workspace-Id, the personal one without
// it) with apikeys:manage, each row of this operation table (http/operations.ts) naming it:
//   GET    /api/workspace/api-keys                          → [apiKey]
//   POST   /api/workspace/api-keys { name, scopes, chatbotIds?, expiresAt? } → { apiKey, secret } (201)
//   POST   /api/workspace/api-keys/{id}/roll { overlap }    → { apiKey, secret }
//            overlap: none, one_hour, one_day or seven_days
//   DELETE /api/workspace/api-keys/{id}                     → apiKey (revoked)
//   GET    /api/api-scopes                                  → [{ name, description }] (no sign-in)
import type { Permission } from '@parley/common/roles.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
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
import { operation, readWith, type Operation } from '../../http/operations.ts';
import { jsonBody, text } from '../../http/input.ts';

const who = 'session';
const permission: Permission = 'apikeys:manage';
const base = '/api/workspace/api-keys';

/** An expiry as sent: an ISO string for the service to read, or none. */
function expiry(value: unknown): string | null | undefined {
  if (value !== undefined && value !== null && typeof value !== 'string') throw invalid(EXPIRY_INVALID);
  return value;
}

export const apiKeyOperations: Operation[] = [
  operation({ method: 'GET', path: base, who, permission }, async ({ app: { clients }, member }) => listApiKeys(clients, member)),
  operation(
    {
      method: 'POST',
      path: base,
      who,
      permission,
      status: 201,
      // In the order the fields were always checked: the expiry's type first.
      body: jsonBody({
        expiresAt: readWith(expiry),
        name: text('name'),
        scopes: readWith((value) => stringList(value, SCOPES_INVALID)),
        chatbotIds: readWith((value) => (value === undefined || value === null ? [] : stringList(value, CHATBOT_IDS_INVALID))),
      }),
    },
    async ({ app: { clients }, member, body }) => createApiKey(clients, member, body),
  ),
  operation(
    { method: 'POST', path: `${base}/:id/roll`, who, permission, body: jsonBody({ overlap: readWith(overlapField) }) },
    async ({ app: { clients }, member, params, body }) => rollApiKey(clients, member, params.id, body.overlap),
  ),
  operation({ method: 'DELETE', path: `${base}/:id`, who, permission }, async ({ app: { clients }, member, params }) =>
    revokeApiKey(clients, member, params.id),
  ),
  // The scopes a key may hold, for anyone: the developer API's documentation.
  operation({ method: 'GET', path: '/api/api-scopes', who: 'public' }, async () => apiScopes()),
];
