// API keys managed from the dashboard through the gateway (docs/adr/0031-api-keys.md): created with
// the secret answered once, listed without it, rolled with an overlap, revoked, over REST and GraphQL,
// by owners and admins of the request's workspace only (apikeys:manage).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_SCOPE_NAMES, API_SCOPES } from '@parley/common/api-scopes.ts';
import { OVERLAP_INVALID } from '../src/features/api-keys/api-keys.ts';
import { roleLacksPermission, WORKSPACE_NOT_FOUND } from '../src/http/errors.ts';
import { registerOwner } from './chatbot-fixtures.ts';
import { api, startStack, type Stack } from './stack.ts';
import { createTeam, gqlIn, inWorkspace, type Team } from './workspace-fixtures.ts';

let stack: Stack;
let team: Team;
const SECRET = /^parley_sk_[A-Za-z0-9]{43}$/;
const KEY_FIELDS = `id name scopes chatbotIds prefix lastFour createdByEmail createdAt expiresAt revokedAt lastUsedAt previousSecretExpiresAt`;

beforeAll(async () => {
  stack = await startStack();
  team = await createTeam(stack, 'api-keys');
});
afterAll(async () => {
  await stack?.close();
});

describe('API keys over REST', () => {
  it('creates a key with its secret once, lists it without, rolls and revokes it', async () => {
    const token = team.owner.token;
    const expiresAt = new Date(Date.UTC(2099, 0, 1)).toISOString();
    const chatbotId = '6f1c1a52-7c1e-4f0e-9a53-3a5e0f7d2b10';
    const created = await inWorkspace(stack, team.id, '/api/workspace/api-keys', {
      body: { name: 'CI deploys', scopes: ['chatbots:read', 'knowledge:write'], chatbotIds: [chatbotId], expiresAt },
      token,
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(SECRET);
    expect(created.body.apiKey).toMatchObject({
      name: 'CI deploys',
      scopes: ['chatbots:read', 'knowledge:write'],
      chatbotIds: [chatbotId],
      prefix: 'parley_sk_',
      lastFour: created.body.secret.slice(-4),
      createdByEmail: team.owner.email,
      expiresAt,
      revokedAt: null,
      lastUsedAt: null,
    });
    const id = created.body.apiKey.id;

    const list = await inWorkspace(stack, team.id, '/api/workspace/api-keys', { token });
    expect(list.status).toBe(200);
    expect(list.body.map((k: { id: string }) => k.id)).toContain(id);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);

    const rolled = await inWorkspace(stack, team.id, `/api/workspace/api-keys/${id}/roll`, { body: { overlap: 'one_hour' }, token });
    expect(rolled.status).toBe(200);
    expect(rolled.body.secret).toMatch(SECRET);
    expect(rolled.body.secret).not.toBe(created.body.secret);
    expect(rolled.body.apiKey).toMatchObject({ id, lastFour: rolled.body.secret.slice(-4) });
    expect(rolled.body.apiKey.previousSecretExpiresAt).not.toBeNull();

    const revoked = await inWorkspace(stack, team.id, `/api/workspace/api-keys/${id}`, { method: 'DELETE', token });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id });
    expect(revoked.body.revokedAt).not.toBeNull();
  });

  it('refuses bad input with 400 and a message naming it', async () => {
    const token = team.members.admin.token;
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'No scopes', scopes: [] }, /scope/i],
      [{ name: 'Unknown scope', scopes: ['everything'] }, /chat/],
      [{ name: 'Scopes not a list', scopes: 'chat' }, /scopes/],
      [{ name: 'Bad bot', scopes: ['chat'], chatbotIds: ['not-a-uuid'] }, /chatbot/i],
      [{ name: 'Bad expiry', scopes: ['chat'], expiresAt: 'tomorrow' }, /expiresAt/],
      [{ name: 'Past expiry', scopes: ['chat'], expiresAt: '2001-01-01T00:00:00Z' }, /future|expir/i],
      [{ scopes: ['chat'] }, /name/],
    ];
    for (const [body, message] of cases) {
      const res = await inWorkspace(stack, team.id, '/api/workspace/api-keys', { body, token });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    const created = await inWorkspace(stack, team.id, '/api/workspace/api-keys', { body: { name: 'Rolled', scopes: ['chat'] }, token });
    const roll = await inWorkspace(stack, team.id, `/api/workspace/api-keys/${created.body.apiKey.id}/roll`, {
      body: { overlap: '3 weeks' },
      token,
    });
    expect(roll.status).toBe(400);
    expect(roll.body.message).toBe(OVERLAP_INVALID);
  });

  it('refuses editors, agents and viewers with 403, and hides the workspace from an outsider', async () => {
    for (const role of ['editor', 'agent', 'viewer'] as const) {
      const token = team.members[role].token;
      const list = await inWorkspace(stack, team.id, '/api/workspace/api-keys', { token });
      const create = await inWorkspace(stack, team.id, '/api/workspace/api-keys', { body: { name: 'Mine', scopes: ['chat'] }, token });
      for (const res of [list, create]) {
        expect(res.status).toBe(403);
        expect(res.body.message).toBe(roleLacksPermission('apikeys:manage'));
      }
    }
    const outsider = await registerOwner(stack, 'api-keys-outsider');
    const res = await inWorkspace(stack, team.id, '/api/workspace/api-keys', { token: outsider.token });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(WORKSPACE_NOT_FOUND);
  });

  it("answers 404 for an unknown key and for another workspace's key", async () => {
    const token = team.owner.token;
    const created = await inWorkspace(stack, team.id, '/api/workspace/api-keys', { body: { name: 'Team key', scopes: ['chat'] }, token });
    const id = created.body.apiKey.id;
    const unknown = await inWorkspace(stack, team.id, '/api/workspace/api-keys/00000000-0000-4000-8000-000000000000', {
      method: 'DELETE',
      token,
    });
    expect(unknown.status).toBe(404);
    // The same owner in their personal workspace: the team's key is not there.
    const elsewhere = await inWorkspace(stack, undefined, `/api/workspace/api-keys/${id}/roll`, { body: { overlap: 'none' }, token });
    expect(elsewhere.status).toBe(404);
    const list = await inWorkspace(stack, team.id, '/api/workspace/api-keys', { token });
    expect(list.body.find((k: { id: string }) => k.id === id)).toMatchObject({ revokedAt: null, previousSecretExpiresAt: null });
  });

  it('lists the scopes with their descriptions, for anyone', async () => {
    const res = await api(stack.url, '/api/api-scopes');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(API_SCOPE_NAMES.map((name) => ({ name, description: API_SCOPES[name] })));
  });
});

describe('API keys over GraphQL', () => {
  it('creates, lists, rolls without an overlap and revokes a key', async () => {
    const token = team.members.admin.token;
    const created = await gqlIn(
      stack,
      team.id,
      token,
      `mutation ($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret apiKey { ${KEY_FIELDS} } } }`,
      { input: { name: 'Zapier', scopes: ['chat'] } },
    );
    expect(created.body.errors).toBeUndefined();
    const { secret, apiKey } = created.body.data.createApiKey;
    expect(secret).toMatch(SECRET);
    expect(apiKey).toMatchObject({
      name: 'Zapier',
      scopes: ['chat'],
      chatbotIds: [],
      expiresAt: null,
      createdByEmail: team.members.admin.email,
    });

    const list = await gqlIn(stack, team.id, token, `{ apiKeys { ${KEY_FIELDS} } }`);
    expect(list.body.data.apiKeys.find((k: { id: string }) => k.id === apiKey.id)).toEqual(apiKey);

    const rolled = await gqlIn(
      stack,
      team.id,
      token,
      `mutation ($id: ID!) { rollApiKey(id: $id, overlap: NONE) { secret apiKey { id previousSecretExpiresAt } } }`,
      { id: apiKey.id },
    );
    expect(rolled.body.data.rollApiKey.secret).toMatch(SECRET);
    expect(rolled.body.data.rollApiKey.apiKey).toEqual({ id: apiKey.id, previousSecretExpiresAt: null });

    const revoked = await gqlIn(stack, team.id, token, `mutation ($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }`, { id: apiKey.id });
    expect(revoked.body.data.revokeApiKey.revokedAt).not.toBeNull();

    const again = await gqlIn(stack, team.id, token, `mutation ($id: ID!) { rollApiKey(id: $id, overlap: ONE_DAY) { secret } }`, {
      id: apiKey.id,
    });
    expect(again.body.errors[0].extensions.http.status).toBe(400);
  });

  it('refuses editors, agents and viewers with FORBIDDEN', async () => {
    for (const role of ['editor', 'agent', 'viewer'] as const) {
      const res = await gqlIn(stack, team.id, team.members[role].token, '{ apiKeys { id } }');
      expect(res.body.errors[0]).toMatchObject({
        message: roleLacksPermission('apikeys:manage'),
        extensions: { code: 'FORBIDDEN', http: { status: 403 } },
      });
    }
  });

  it('answers the scopes with their descriptions', async () => {
    const res = await gqlIn(stack, undefined, team.members.viewer.token, '{ apiScopes { name description } }');
    expect(res.body.data.apiScopes).toEqual(API_SCOPE_NAMES.map((name) => ({ name, description: API_SCOPES[name] })));
  });
});
