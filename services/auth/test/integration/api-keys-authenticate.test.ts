// AuthenticateApiKey: a working secret answers its workspace, key, scopes and chatbots in one SQL
// statement; anything else gets one answer that says nothing of why. The key's last use is written
// at most once a minute.
import { Code } from '@parley/common/rpc-errors.ts';
import { metricsText } from '@parley/common/metrics.ts';
import { parsePrometheusText, sampleValue } from '@parley/common/testing/prometheus-text.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/api-keys/authenticate-api-key.ts';
import { createKey } from './api-keys-fixtures.ts';
import { expectRpcError, startAuth, type AuthHarness } from './harness.ts';
import { actor, team, WORKSPACE_ENV } from './workspaces-fixtures.ts';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth(WORKSPACE_ENV, { workers: false });
});
afterAll(async () => {
  await h?.close();
});

const INVALID = 'Invalid API key';
const authenticate = (secret: string, now?: Date) => authenticateApiKey(h.parts.deps.db, secret, now);
const statements = async () =>
  sampleValue(parsePrometheusText(await metricsText()), 'parley_sql_statements_total', { schema: h.config.AUTH_DB_SCHEMA }) ?? 0;

/** The key's row version: it changes with every write of the row. */
const rowVersion = async (apiKeyId: string) =>
  (await h.db.$queryRaw<{ xmin: string }[]>`SELECT xmin::text AS "xmin" FROM "ApiKey" WHERE "id" = ${apiKeyId}::uuid`)[0].xmin;

describe('AuthenticateApiKey', () => {
  it("answers the key's workspace, id, scopes and chatbots, and when the secret stops by itself", async () => {
    const { owner, workspaceId } = await team(h);
    const chatbotId = '5b0c6e0a-1d2e-4f3a-9b8c-7d6e5f4a3b2c';
    const { apiKey, secret } = await createKey(h, owner, workspaceId, { scopes: ['knowledge:write', 'chat'], chatbotIds: [chatbotId] });
    const res = await h.apiKeys.authenticateApiKey({ secret });
    expect(res).toMatchObject({ workspaceId, apiKeyId: apiKey.id, scopes: ['chat', 'knowledge:write'], chatbotIds: [chatbotId] });
    expect(res.expiresAt).toBeUndefined();

    const everyChatbot = await createKey(h, owner, workspaceId, { scopes: ['usage:read'] });
    expect(await h.apiKeys.authenticateApiKey({ secret: everyChatbot.secret })).toMatchObject({ scopes: ['usage:read'], chatbotIds: [] });
  });

  it('gives one answer for a forged, altered, foreign, empty or huge secret', async () => {
    const { owner, workspaceId } = await team(h);
    const { secret } = await createKey(h, owner, workspaceId);
    const last = secret.at(-1) === 'A' ? 'B' : 'A';
    const body = secret.slice('parley_sk_'.length);
    for (const bad of [
      `${secret.slice(0, -1)}${last}`,
      `parley_sk_${'0'.repeat(43)}`,
      secret.toLowerCase() === secret ? secret.toUpperCase() : secret.toLowerCase(),
      `${secret}x`,
      secret.slice(0, -1),
      ` ${secret}`,
      `Bearer ${secret}`,
      `pk_live_${body}`,
      `parley_pk_${body}`,
      body,
      `parley_sk_${body.slice(0, -1)}-`,
      '',
      'parley_sk_',
      `parley_sk_${'a'.repeat(100_000)}`,
      '\u0000'.repeat(1000),
    ]) {
      await expectRpcError(authenticate(bad), Code.Unauthenticated, INVALID);
      // A NUL in any string of a call is refused by every service before the method (text-hygiene.ts).
      if (!bad.includes('\u0000')) await expectRpcError(h.apiKeys.authenticateApiKey({ secret: bad }), Code.Unauthenticated, INVALID);
    }
  });

  it('refuses a revoked key, an expired key, and a secret rolled past its overlap, with the same answer', async () => {
    const { owner, workspaceId } = await team(h);
    const revoked = await createKey(h, owner, workspaceId);
    await h.apiKeys.revokeApiKey({ actor: actor(owner, workspaceId), apiKeyId: revoked.apiKey.id });

    const expiresAt = new Date(Date.now() + 3_600_000);
    const expiring = await createKey(h, owner, workspaceId, { expiresAt });
    expect(await authenticate(expiring.secret, new Date(expiresAt.getTime() - 1))).toMatchObject({ expiresAt });

    const rolled = await createKey(h, owner, workspaceId);
    await h.apiKeys.rollApiKey({ actor: actor(owner, workspaceId), apiKeyId: rolled.apiKey.id, overlapSeconds: 0 });

    await expectRpcError(authenticate(revoked.secret), Code.Unauthenticated, INVALID);
    await expectRpcError(authenticate(expiring.secret, expiresAt), Code.Unauthenticated, INVALID);
    await expectRpcError(authenticate(rolled.secret), Code.Unauthenticated, INVALID);
  });

  it('costs one SQL statement for a secret looked up, none for one not shaped like a secret', async () => {
    const { owner, workspaceId } = await team(h);
    const { secret } = await createKey(h, owner, workspaceId);
    const before = await statements();
    await h.apiKeys.authenticateApiKey({ secret });
    await h.apiKeys.authenticateApiKey({ secret });
    await expectRpcError(h.apiKeys.authenticateApiKey({ secret: `parley_sk_${'1'.repeat(43)}` }), Code.Unauthenticated, INVALID);
    await expectRpcError(h.apiKeys.authenticateApiKey({ secret: 'garbage' }), Code.Unauthenticated, INVALID);
    expect((await statements()) - before).toBe(3);
  });
});

describe("a key's last use", () => {
  it('is written by the first call, not again within a minute, and again after it', async () => {
    const { owner, workspaceId } = await team(h);
    const { apiKey, secret } = await createKey(h, owner, workspaceId);
    const created = await rowVersion(apiKey.id);
    const t0 = new Date(Date.now() + 1000);

    await authenticate(secret, t0);
    const afterFirst = await rowVersion(apiKey.id);
    expect(afterFirst).not.toBe(created);
    expect((await h.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).lastUsedAt).toEqual(t0);

    await authenticate(secret, new Date(t0.getTime() + 30_000));
    await authenticate(secret, new Date(t0.getTime() + 59_999));
    expect(await rowVersion(apiKey.id)).toBe(afterFirst);
    expect((await h.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).lastUsedAt).toEqual(t0);

    const t1 = new Date(t0.getTime() + 60_000);
    await authenticate(secret, t1);
    expect(await rowVersion(apiKey.id)).not.toBe(afterFirst);
    const [listed] = (await h.apiKeys.listApiKeys({ actor: actor(owner, workspaceId) })).apiKeys;
    expect(listed.lastUsedAt).toBeDefined();
    expect((await h.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).lastUsedAt).toEqual(t1);
  });

  it('is written by calls arriving together, every one of them answered', async () => {
    const { owner, workspaceId } = await team(h);
    const { apiKey, secret } = await createKey(h, owner, workspaceId);
    const at = new Date(Date.now() + 1000);
    const answers = await Promise.all(Array.from({ length: 10 }, () => authenticate(secret, at)));
    expect(answers.map((a) => a.apiKeyId)).toEqual(Array(10).fill(apiKey.id));
    expect((await h.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).lastUsedAt).toEqual(at);
  });

  it('is not written for a refused secret', async () => {
    const { owner, workspaceId } = await team(h);
    const { apiKey, secret } = await createKey(h, owner, workspaceId);
    await h.apiKeys.revokeApiKey({ actor: actor(owner, workspaceId), apiKeyId: apiKey.id });
    const revokedVersion = await rowVersion(apiKey.id);
    await expectRpcError(authenticate(secret), Code.Unauthenticated, INVALID);
    expect(await rowVersion(apiKey.id)).toBe(revokedVersion);
    expect((await h.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).lastUsedAt).toBeNull();
  });
});
