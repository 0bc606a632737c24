// API keys managed by a workspace's owners and admins: created with a secret shown once and stored
// as its hash, listed without it, rolled with an overlap, revoked, each change in the audit log.
import { toJsonString } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Code } from '@parley/common/rpc-errors.ts';
import { ListApiKeysResponseSchema } from '@parley/proto/parley/auth/v1/api_keys_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/api-keys/authenticate-api-key.ts';
import { createKey, SECRET_SHAPE, secretTraces, sha256, storedRows } from './api-keys-fixtures.ts';
import { expectRpcError, startAuth, type AuthHarness } from './harness.ts';
import { actor, signUp, team, WORKSPACE_ENV } from './workspaces-fixtures.ts';
import { roleLacksPermission } from '@parley/common/roles.ts';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth(WORKSPACE_ENV, { workers: false });
});
afterAll(async () => {
  await h?.close();
});

const authenticate = (secret: string, now?: Date) => authenticateApiKey(h.parts.deps.db, secret, now);
const INVALID = 'Invalid API key';

describe('CreateApiKey', () => {
  it('answers the secret once; the list shows its prefix and last four, never the secret', async () => {
    const { owner, workspaceId } = await team(h);
    const chatbotId = '5B0C6E0A-1D2E-4F3A-9B8C-7D6E5F4A3B2C';
    const expiresAt = new Date(Date.now() + 30 * 86_400_000);
    const { apiKey, secret } = await createKey(h, owner, workspaceId, {
      name: '  Zapier ',
      scopes: ['usage:read', 'chat', 'chat'],
      chatbotIds: [chatbotId, chatbotId.toLowerCase()],
      expiresAt,
    });
    expect(secret).toMatch(SECRET_SHAPE);
    expect(apiKey).toMatchObject({
      name: 'Zapier',
      scopes: ['chat', 'usage:read'],
      chatbotIds: [chatbotId.toLowerCase()],
      prefix: 'parley_sk_',
      lastFour: secret.slice(-4),
      createdByUserId: owner.id,
      createdByEmail: owner.email,
    });
    expect(timestampDate(apiKey.expiresAt!)).toEqual(expiresAt);
    expect(apiKey.revokedAt).toBeUndefined();
    expect(apiKey.lastUsedAt).toBeUndefined();

    const list = await h.apiKeys.listApiKeys({ actor: actor(owner, workspaceId) });
    expect(list.apiKeys.map((k) => [k.id, k.name, k.lastFour])).toEqual([[apiKey.id, 'Zapier', secret.slice(-4)]]);
    const listed = toJsonString(ListApiKeysResponseSchema, list);
    for (const trace of secretTraces(secret)) expect(listed).not.toContain(trace);
  });

  it('stores only the SHA-256 of the secret: none of its characters or bytes are in any row', async () => {
    const { owner, workspaceId } = await team(h);
    const { apiKey, secret } = await createKey(h, owner, workspaceId);
    const stored = await h.db.apiKeySecret.findFirstOrThrow({ where: { apiKeyId: apiKey.id } });
    expect(stored.secretHash).toBe(sha256(secret));
    const rows = await storedRows(h);
    expect(rows).toContain(sha256(secret));
    for (const trace of secretTraces(secret)) expect(rows).not.toContain(trace);
  });

  it('makes a different secret for every key', async () => {
    const { owner, workspaceId } = await team(h);
    const secrets = new Set<string>();
    for (let i = 0; i < 5; i++) secrets.add((await createKey(h, owner, workspaceId)).secret);
    expect(secrets.size).toBe(5);
  });

  it('refuses a bad name, no scope, an unknown scope, a chatbot id that is not a UUID and an expiry not in the future', async () => {
    const { owner, workspaceId } = await team(h);
    const create = (input: Parameters<typeof createKey>[3]) => createKey(h, owner, workspaceId, input);
    await expectRpcError(create({ name: '  ' }), Code.InvalidArgument, 'Please enter a name for the API key');
    await expectRpcError(create({ name: 'x'.repeat(101) }), Code.InvalidArgument, 'Name must be at most 100 characters');
    await expectRpcError(create({ name: 'a\u0007b' }), Code.InvalidArgument, 'Name must not contain control characters');
    await expectRpcError(create({ scopes: [] }), Code.InvalidArgument, 'Choose at least one scope');
    await expectRpcError(
      create({ scopes: ['chat', 'billing:manage'] }),
      Code.InvalidArgument,
      'Unknown scope "billing:manage". Scopes are chat, chatbots:read, chatbots:write, knowledge:write, conversations:read, usage:read, webhooks:write, mcp.',
    );
    await expectRpcError(create({ chatbotIds: ['not-a-uuid'] }), Code.InvalidArgument, '"not-a-uuid" is not a chatbot id');
    const many = Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${i.toString().padStart(12, '0')}`);
    await expectRpcError(create({ chatbotIds: many }), Code.InvalidArgument, 'An API key can name at most 100 chatbots');
    await expectRpcError(create({ expiresAt: new Date(Date.now() - 1000) }), Code.InvalidArgument, 'The expiry must be in the future');
    expect(await h.db.apiKey.count({ where: { workspaceId } })).toBe(0);
  });

  it('keeps a workspace within 100 active keys; a revoked or expired one makes room', async () => {
    const { owner, workspaceId } = await team(h);
    const now = new Date();
    await h.db.apiKey.createMany({
      data: Array.from({ length: 100 }, (_, i) => ({
        workspaceId,
        name: `key ${i}`,
        scopes: ['chat'],
        createdByUserId: owner.id,
        createdByEmail: owner.email,
        createdAt: now,
      })),
    });
    await expectRpcError(
      createKey(h, owner, workspaceId),
      Code.FailedPrecondition,
      'A workspace can have at most 100 active API keys. Revoke one you no longer use first.',
    );
    const [first] = await h.db.apiKey.findMany({ where: { workspaceId }, take: 1 });
    await h.db.apiKey.update({ where: { id: first.id }, data: { expiresAt: new Date(now.getTime() - 1000) } });
    expect((await createKey(h, owner, workspaceId)).secret).toMatch(SECRET_SHAPE);
  });
});

describe('who manages keys', () => {
  it('owners and admins; editors, agents and viewers are refused; strangers find no workspace', async () => {
    const { owner, workspaceId, members } = await team(h, ['admin', 'editor', 'agent', 'viewer']);
    const [admin, ...refused] = members;
    const { apiKey } = await createKey(h, owner, workspaceId);
    const byAdmin = await createKey(h, admin, workspaceId);
    expect(byAdmin.apiKey.createdByEmail).toBe(admin.email);
    expect((await h.apiKeys.listApiKeys({ actor: actor(admin, workspaceId) })).apiKeys).toHaveLength(2);
    await h.apiKeys.rollApiKey({ actor: actor(admin, workspaceId), apiKeyId: apiKey.id, overlapSeconds: 0 });
    await h.apiKeys.revokeApiKey({ actor: actor(admin, workspaceId), apiKeyId: apiKey.id });

    const DENIED = roleLacksPermission('apikeys:manage');
    for (const person of refused) {
      await expectRpcError(createKey(h, person, workspaceId), Code.PermissionDenied, DENIED);
      await expectRpcError(h.apiKeys.listApiKeys({ actor: actor(person, workspaceId) }), Code.PermissionDenied, DENIED);
      await expectRpcError(
        h.apiKeys.rollApiKey({ actor: actor(person, workspaceId), apiKeyId: byAdmin.apiKey.id, overlapSeconds: 0 }),
        Code.PermissionDenied,
        DENIED,
      );
      await expectRpcError(
        h.apiKeys.revokeApiKey({ actor: actor(person, workspaceId), apiKeyId: byAdmin.apiKey.id }),
        Code.PermissionDenied,
        DENIED,
      );
    }
    const stranger = await signUp(h, 'Stranger');
    await expectRpcError(createKey(h, stranger, workspaceId), Code.NotFound, 'Workspace not found');
    await expectRpcError(h.apiKeys.listApiKeys({ actor: actor(stranger, workspaceId) }), Code.NotFound, 'Workspace not found');
    expect((await authenticate(byAdmin.secret)).apiKeyId).toBe(byAdmin.apiKey.id);
  });

  it("finds no key of another workspace, even for that workspace's owner acting elsewhere", async () => {
    const a = await team(h);
    const b = await team(h);
    const { apiKey } = await createKey(h, a.owner, a.workspaceId);
    // Each call starts when its turn comes: a refusal nobody awaits yet would be an unhandled rejection.
    for (const call of [
      () => h.apiKeys.revokeApiKey({ actor: actor(b.owner, b.workspaceId), apiKeyId: apiKey.id }),
      () => h.apiKeys.rollApiKey({ actor: actor(b.owner, b.workspaceId), apiKeyId: apiKey.id, overlapSeconds: 0 }),
      () => h.apiKeys.revokeApiKey({ actor: actor(a.owner, a.owner.id), apiKeyId: apiKey.id }),
      () => h.apiKeys.revokeApiKey({ actor: actor(a.owner, a.workspaceId), apiKeyId: 'not-a-uuid' }),
    ]) {
      await expectRpcError(call(), Code.NotFound, 'API key not found');
    }
    expect((await h.apiKeys.listApiKeys({ actor: actor(b.owner, b.workspaceId) })).apiKeys).toEqual([]);
  });
});

describe('RevokeApiKey', () => {
  it('stops every secret of the key at once, keeps it listed as revoked, and changes nothing the second time', async () => {
    const { owner, workspaceId } = await team(h);
    const { apiKey, secret: first } = await createKey(h, owner, workspaceId);
    const { secret: second } = await h.apiKeys.rollApiKey({ actor: actor(owner, workspaceId), apiKeyId: apiKey.id, overlapSeconds: 3600 });
    expect((await authenticate(first)).apiKeyId).toBe(apiKey.id);

    const revoked = (await h.apiKeys.revokeApiKey({ actor: actor(owner, workspaceId), apiKeyId: apiKey.id })).apiKey!;
    expect(revoked.revokedAt).toBeDefined();
    expect(revoked.previousSecretExpiresAt).toBeUndefined();
    for (const secret of [first, second]) await expectRpcError(h.apiKeys.authenticateApiKey({ secret }), Code.Unauthenticated, INVALID);

    const again = (await h.apiKeys.revokeApiKey({ actor: actor(owner, workspaceId), apiKeyId: apiKey.id })).apiKey!;
    expect(again.revokedAt).toEqual(revoked.revokedAt);
    const [listed] = (await h.apiKeys.listApiKeys({ actor: actor(owner, workspaceId) })).apiKeys;
    expect(listed).toMatchObject({ id: apiKey.id, revokedAt: revoked.revokedAt, lastFour: second.slice(-4) });
    expect(await h.db.auditEvent.count({ where: { workspaceId, action: 'api_key.revoked' } })).toBe(1);
    await expectRpcError(
      h.apiKeys.rollApiKey({ actor: actor(owner, workspaceId), apiKeyId: apiKey.id, overlapSeconds: 0 }),
      Code.FailedPrecondition,
      'This API key was revoked. Create a new one.',
    );
  });
});

describe('RollApiKey', () => {
  it('issues a new secret while the old one works until the overlap ends, then stops', async () => {
    const { owner, workspaceId } = await team(h);
    const { apiKey, secret: old } = await createKey(h, owner, workspaceId);
    const rolled = await h.apiKeys.rollApiKey({ actor: actor(owner, workspaceId), apiKeyId: apiKey.id, overlapSeconds: 3600 });
    expect(rolled.secret).toMatch(SECRET_SHAPE);
    expect(rolled.secret).not.toBe(old);
    expect(rolled.apiKey).toMatchObject({ id: apiKey.id, lastFour: rolled.secret.slice(-4) });
    const end = timestampDate(rolled.apiKey!.previousSecretExpiresAt!);
    expect(end.getTime() - timestampDate(rolled.apiKey!.createdAt!).getTime()).toBeGreaterThanOrEqual(3600_000);

    const before = new Date(end.getTime() - 1);
    expect(await authenticate(old, before)).toMatchObject({ apiKeyId: apiKey.id, workspaceId, expiresAt: end });
    expect(await authenticate(rolled.secret, before)).toMatchObject({ apiKeyId: apiKey.id, workspaceId, expiresAt: null });
    await expectRpcError(authenticate(old, end), Code.Unauthenticated, INVALID);
    expect((await authenticate(rolled.secret, new Date(end.getTime() + 86_400_000))).apiKeyId).toBe(apiKey.id);
    expect((await h.apiKeys.authenticateApiKey({ secret: old })).apiKeyId).toBe(apiKey.id);
  });

  it('with no overlap, stops the old secret at once and forgets it', async () => {
    const { owner, workspaceId } = await team(h);
    const { apiKey, secret: old } = await createKey(h, owner, workspaceId);
    const rolled = await h.apiKeys.rollApiKey({ actor: actor(owner, workspaceId), apiKeyId: apiKey.id, overlapSeconds: 0 });
    expect(rolled.apiKey!.previousSecretExpiresAt).toBeUndefined();
    await expectRpcError(h.apiKeys.authenticateApiKey({ secret: old }), Code.Unauthenticated, INVALID);
    expect((await h.apiKeys.authenticateApiKey({ secret: rolled.secret })).apiKeyId).toBe(apiKey.id);
    expect(await h.db.apiKeySecret.findMany({ where: { apiKeyId: apiKey.id }, select: { secretHash: true } })).toEqual([
      { secretHash: sha256(rolled.secret) },
    ]);
  });

  it('ends every earlier secret by the newest overlap: a second roll with none stops both at once', async () => {
    const { owner, workspaceId } = await team(h);
    const { apiKey, secret: first } = await createKey(h, owner, workspaceId);
    const roll = (overlapSeconds: number) =>
      h.apiKeys.rollApiKey({ actor: actor(owner, workspaceId), apiKeyId: apiKey.id, overlapSeconds });
    const { secret: second } = await roll(3600);
    const { secret: third } = await roll(0);
    for (const secret of [first, second]) await expectRpcError(h.apiKeys.authenticateApiKey({ secret }), Code.Unauthenticated, INVALID);
    expect((await h.apiKeys.authenticateApiKey({ secret: third })).apiKeyId).toBe(apiKey.id);
  });

  it("never keeps an old secret past the key's expiry, and refuses an expired key and an overlap beyond 7 days", async () => {
    const { owner, workspaceId } = await team(h);
    const expiresAt = new Date(Date.now() + 600_000);
    const { apiKey } = await createKey(h, owner, workspaceId, { expiresAt });
    const rolled = await h.apiKeys.rollApiKey({ actor: actor(owner, workspaceId), apiKeyId: apiKey.id, overlapSeconds: 86_400 });
    expect(timestampDate(rolled.apiKey!.previousSecretExpiresAt!)).toEqual(expiresAt);
    expect((await authenticate(rolled.secret)).expiresAt).toEqual(expiresAt);
    for (const overlapSeconds of [-1, 604_801]) {
      await expectRpcError(
        h.apiKeys.rollApiKey({ actor: actor(owner, workspaceId), apiKeyId: apiKey.id, overlapSeconds }),
        Code.InvalidArgument,
        'overlap_seconds must be between 0 and 604800 (7 days)',
      );
    }
    await h.db.apiKey.update({ where: { id: apiKey.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectRpcError(
      h.apiKeys.rollApiKey({ actor: actor(owner, workspaceId), apiKeyId: apiKey.id, overlapSeconds: 0 }),
      Code.FailedPrecondition,
      'This API key has expired. Create a new one.',
    );
  });
});

describe('the audit log', () => {
  it('records creating, rolling and revoking a key with the actor and IP, never the secret', async () => {
    const { owner, workspaceId, members } = await team(h, ['admin']);
    const { apiKey, secret } = await createKey(h, owner, workspaceId, { name: 'CI', scopes: ['chatbots:write'] });
    const rolled = await h.apiKeys.rollApiKey({ actor: actor(members[0], workspaceId), apiKeyId: apiKey.id, overlapSeconds: 60 });
    await h.apiKeys.revokeApiKey({ actor: actor(owner, workspaceId), apiKeyId: apiKey.id });
    const { events } = await h.workspaces.listAuditEvents({ actor: actor(owner, workspaceId), action: 'api_key.', limit: 0, cursor: '' });
    expect(events.map((e) => [e.action, e.actorUserId, e.actorEmail, e.target, e.clientIp, JSON.parse(e.detailsJson)])).toEqual([
      ['api_key.revoked', owner.id, owner.email, 'CI', '198.51.100.7', { apiKeyId: apiKey.id }],
      [
        'api_key.rolled',
        members[0].id,
        members[0].email,
        'CI',
        '198.51.100.7',
        {
          apiKeyId: apiKey.id,
          overlapSeconds: 60,
          previousSecretExpiresAt: timestampDate(rolled.apiKey!.previousSecretExpiresAt!).toISOString(),
        },
      ],
      [
        'api_key.created',
        owner.id,
        owner.email,
        'CI',
        '198.51.100.7',
        { apiKeyId: apiKey.id, scopes: ['chatbots:write'], chatbotIds: [], expiresAt: null },
      ],
    ]);
    const text = JSON.stringify(events.map((e) => e.detailsJson));
    for (const trace of [...secretTraces(secret), ...secretTraces(rolled.secret)]) expect(text).not.toContain(trace);
  });

  it('records nothing for a refused change', async () => {
    const { owner, workspaceId, members } = await team(h, ['editor']);
    await expectRpcError(createKey(h, members[0], workspaceId), Code.PermissionDenied, /API keys/);
    await expectRpcError(createKey(h, owner, workspaceId, { scopes: ['nope'] }), Code.InvalidArgument, /Unknown scope/);
    expect(await h.db.auditEvent.count({ where: { workspaceId, action: { startsWith: 'api_key.' } } })).toBe(0);
  });
});

describe('a deleted workspace', () => {
  it('takes its keys with it: their secrets stop working', async () => {
    const { owner, workspaceId } = await team(h);
    const { secret } = await createKey(h, owner, workspaceId, { expiresAt: new Date(Date.now() + 86_400_000) });
    expect((await h.apiKeys.authenticateApiKey({ secret })).workspaceId).toBe(workspaceId);
    await h.workspaces.deleteWorkspace({ actor: actor(owner, workspaceId), password: owner.password });
    await expectRpcError(h.apiKeys.authenticateApiKey({ secret }), Code.Unauthenticated, INVALID);
    expect(await h.db.apiKeySecret.count({ where: { secretHash: sha256(secret) } })).toBe(0);
  });
});
