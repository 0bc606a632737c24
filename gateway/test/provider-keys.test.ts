// A workspace's own provider keys on REST and GraphQL (docs/product.md, Provider keys), against the
// real services and the official Anthropic SDK on its fake: saved after the provider's check and
// shown only by its last four characters, refused with 400 when the provider refuses it, removed;
// the workspace's admins only (a member below gets 403); every change audited without the key; no
// response ever carries the key.
import { startFakeAnthropic, type FakeAnthropic } from '@parley/common/testing/fake-anthropic.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './stack.ts';
import { createTeam, gqlIn, inWorkspace, type Team } from './workspace-fixtures.ts';

const OWN_KEY = 'sk-ant-workspace-own-key-wxyz';
const REFUSED = 'sk-ant-revoked-key-0000';

let stack: Stack;
let anthropic: FakeAnthropic;
let team: Team;
beforeAll(async () => {
  anthropic = await startFakeAnthropic({ refusedKeys: [REFUSED] });
  stack = await startStack({ chatEnv: { ANTHROPIC_API_KEY: 'operator-anthropic-key', ANTHROPIC_BASE_URL: anthropic.url } });
  team = await createTeam(stack, 'provider-keys');
});
afterAll(async () => {
  await stack?.close();
  await anthropic?.close();
});

const rest = (token: string, path: string, opts: Parameters<typeof inWorkspace>[3] = {}) =>
  inWorkspace(stack, team.id, `/api/workspace/provider-keys${path}`, { ...opts, token });

describe('provider keys', () => {
  it('saves a key the provider accepts, shows only its last four, and removes it, on REST; audited without the key', async () => {
    const saved = await rest(team.owner.token, '/anthropic', { method: 'PUT', body: { key: OWN_KEY } });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ provider: 'anthropic', lastFour: 'wxyz', createdAt: expect.any(String) });
    const listed = await rest(team.members.admin.token, '');
    expect([listed.status, listed.body]).toEqual([200, [saved.body]]);
    expect(JSON.stringify([saved.body, listed.body])).not.toContain(OWN_KEY);

    const removed = await rest(team.owner.token, '/anthropic', { method: 'DELETE' });
    expect([removed.status, removed.body]).toEqual([200, { removed: true }]);
    expect((await rest(team.owner.token, '')).body).toEqual([]);
    expect((await rest(team.owner.token, '/anthropic', { method: 'DELETE' })).body).toEqual({ removed: false });

    const log = await inWorkspace(stack, team.id, '/api/workspace/audit-log', { token: team.owner.token });
    const entries = (log.body.events as { action: string; details: string }[]).filter((e) => e.action.startsWith('workspace.provider_key'));
    expect(entries.map((e) => [e.action, JSON.parse(e.details)])).toEqual([
      ['workspace.provider_key_removed', { provider: 'anthropic', lastFour: 'wxyz' }],
      ['workspace.provider_key_set', { provider: 'anthropic', lastFour: 'wxyz' }],
    ]);
    expect(JSON.stringify(log.body)).not.toContain(OWN_KEY);
  });

  it('answers 400 with a clear message for a refused key, an unoffered provider or a malformed key, storing nothing', async () => {
    const refused = await rest(team.owner.token, '/anthropic', { method: 'PUT', body: { key: REFUSED } });
    expect([refused.status, refused.body.message]).toEqual([400, 'The provider refused this key.']);
    expect(JSON.stringify(refused.body)).not.toContain(REFUSED);
    expect((await rest(team.owner.token, '/gemini', { method: 'PUT', body: { key: 'AIza-some-key-1234' } })).status).toBe(400);
    expect((await rest(team.owner.token, '/anthropic', { method: 'PUT', body: { key: 42 } })).status).toBe(400);
    expect((await rest(team.owner.token, '/anthropic', { method: 'PUT', body: {} })).status).toBe(400);
    expect((await rest(team.owner.token, '/nobody', { method: 'PUT', body: { key: OWN_KEY } })).status).toBe(400);
    expect((await rest(team.owner.token, '')).body).toEqual([]);
  });

  it('is the admins’: an editor, agent or viewer gets 403 on every route and operation', async () => {
    for (const member of [team.members.editor, team.members.agent, team.members.viewer]) {
      expect((await rest(member.token, '')).status).toBe(403);
      expect((await rest(member.token, '/anthropic', { method: 'PUT', body: { key: OWN_KEY } })).status).toBe(403);
      expect((await rest(member.token, '/anthropic', { method: 'DELETE' })).status).toBe(403);
      const res = await gqlIn(stack, team.id, member.token, '{ providerKeys { provider } }');
      expect(res.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    }
    expect(anthropic.modelListKeys.filter((k) => k === OWN_KEY)).toHaveLength(1);
  });

  it('does the same on GraphQL', async () => {
    const set = await gqlIn(
      stack,
      team.id,
      team.members.admin.token,
      'mutation($key: String!) { setProviderKey(provider: "anthropic", key: $key) { provider lastFour createdAt } }',
      { key: OWN_KEY },
    );
    expect(set.body.errors).toBeUndefined();
    expect(set.body.data.setProviderKey).toMatchObject({ provider: 'anthropic', lastFour: 'wxyz' });
    const listed = await gqlIn(stack, team.id, team.owner.token, '{ providerKeys { provider lastFour } }');
    expect(listed.body.data.providerKeys).toEqual([{ provider: 'anthropic', lastFour: 'wxyz' }]);
    const refused = await gqlIn(
      stack,
      team.id,
      team.owner.token,
      'mutation { setProviderKey(provider: "anthropic", key: "sk-ant-revoked-key-0000") { provider } }',
    );
    expect(refused.body.errors[0].message).toBe('The provider refused this key.');
    const removed = await gqlIn(stack, team.id, team.owner.token, 'mutation { removeProviderKey(provider: "anthropic") }');
    expect(removed.body.data.removeProviderKey).toBe(true);
    expect(JSON.stringify([set.body, listed.body, refused.body, removed.body])).not.toContain(OWN_KEY);
  });
});
