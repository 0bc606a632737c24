// API keys for the developer API's tests, made, revoked and rolled through auth's ApiKeyService (as
// the dashboard does), and a workspace with chatbots for them to act on.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import type { ApiScope } from '@parley/common/api-scopes.ts';
import { ApiKeyService } from '@parley/proto/parley/auth/v1/api_keys_pb.js';
import { expect } from 'vitest';
import type { Owner } from './chatbot-fixtures.ts';
import { api, TEST_SERVICE_SECRET, type Stack } from './stack.ts';

export function apiKeys(stack: Stack) {
  const client = createServiceClient(ApiKeyService, stack.authUrl, {
    timeoutMs: 5000,
    credentials: { caller: 'gateway', secret: TEST_SERVICE_SECRET },
  });
  const actor = (owner: Owner) => ({ userId: owner.userId, workspaceId: owner.userId, clientIp: '127.0.0.1' });
  return {
    /** A key of the owner's personal workspace. */
    async create(owner: Owner, scopes: readonly ApiScope[], opts: { chatbotIds?: string[]; expiresAt?: Date } = {}) {
      const { apiKey, secret } = await client.createApiKey({
        actor: actor(owner),
        name: `key ${scopes.join(' ')}`.slice(0, 60),
        scopes: [...scopes],
        chatbotIds: opts.chatbotIds ?? [],
        expiresAt: opts.expiresAt ? timestampFromDate(opts.expiresAt) : undefined,
      });
      return { id: apiKey!.id, secret };
    },
    async revoke(owner: Owner, apiKeyId: string) {
      await client.revokeApiKey({ actor: actor(owner), apiKeyId });
    },
    async roll(owner: Owner, apiKeyId: string, overlapSeconds: number) {
      return (await client.rollApiKey({ actor: actor(owner), apiKeyId, overlapSeconds })).secret;
    },
  };
}

/** A developer API call with a key. */
export function v1(stack: Stack | string, path: string, secret: string | undefined, opts: Parameters<typeof api>[2] = {}) {
  return api(typeof stack === 'string' ? stack : stack.url, `/api/v1${path}`, { ...opts, token: secret });
}

/** A chatbot of the owner's, made through the dashboard's path, with one Q&A entry. */
export async function chatbotWithKnowledge(stack: Stack, owner: Owner, name: string): Promise<string> {
  const created = await api(stack.url, '/api/chatbot', { body: { name }, token: owner.token });
  expect(created.status).toBe(201);
  const id: string = created.body._id;
  const text = await api(stack.url, `/api/chatbot/${id}/knowledge-base/text`, {
    body: { text: 'Our shop opens at nine in the morning and closes at five in the afternoon.' },
    token: owner.token,
  });
  expect(text.status).toBe(200);
  return id;
}
