// Register makes the personal workspace; Authenticate answers the user with the workspace the request
// acts in and the user's role there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code } from '@parley/common/rpc-errors.ts';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { metricsText } from '@parley/common/metrics.ts';
import { parsePrometheusText, sampleValue } from '@parley/common/testing/prometheus-text.ts';
import { expectRpcError, startAuth, uniqueEmail, type AuthHarness } from './harness.ts';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth({ REGISTRATIONS_MAX_PER_IP: '1000' }, { workers: false });
});
afterAll(async () => {
  await h?.close();
});

const signUp = (name = 'Ada') =>
  h.client.register({ email: uniqueEmail(name), password: 'secret1', passwordConfirmation: 'secret1', name, clientIp: '203.0.113.1' });

describe('Register', () => {
  it('creates the personal workspace, whose id is the user id, with the user as its owner', async () => {
    const { user } = await signUp('Ada');
    const workspace = await h.db.workspace.findUniqueOrThrow({ where: { id: user!.id }, include: { memberships: true } });
    expect(workspace).toMatchObject({ name: "Ada's workspace", personal: true });
    expect(workspace.memberships).toEqual([expect.objectContaining({ userId: user!.id, role: 'owner' })]);
  });

  it("names an unnamed person's workspace after the email's local part", async () => {
    const email = uniqueEmail('grace');
    const { user } = await h.client.register({ email, password: 'secret1', passwordConfirmation: 'secret1', clientIp: '203.0.113.1' });
    const workspace = await h.db.workspace.findUniqueOrThrow({ where: { id: user!.id } });
    expect(workspace.name).toBe(`${email.split('@')[0]}'s workspace`);
  });
});

describe('Authenticate', () => {
  it('answers the personal workspace without a workspace id', async () => {
    const { token, user } = await signUp();
    const res = await h.client.authenticate({ token });
    expect(res.user?.id).toBe(user!.id);
    expect(res.workspace).toMatchObject({ id: user!.id, name: "Ada's workspace", personal: true, role: 'owner', memberCount: 1 });
    expect(timestampDate(res.workspace!.createdAt!)).toEqual(timestampDate(user!.createdAt!));
  });

  it('answers a workspace the user is a member of, with the role and the member count', async () => {
    const owner = await signUp('Owner');
    const { token, user } = await signUp('Member');
    await h.db.membership.create({ data: { workspaceId: owner.user!.id, userId: user!.id, role: 'editor' } });
    const res = await h.client.authenticate({ token, workspaceId: owner.user!.id.toUpperCase() });
    expect(res.user?.id).toBe(user!.id);
    expect(res.workspace).toMatchObject({ id: owner.user!.id, personal: true, role: 'editor', memberCount: 2 });
  });

  it("refuses another's workspace, a malformed id and an unknown one as not found", async () => {
    const other = await signUp('Other');
    const { token } = await signUp();
    for (const workspaceId of [other.user!.id, 'not-a-uuid', '7f1c8f7e-0000-4000-8000-000000000000']) {
      await expectRpcError(h.client.authenticate({ token, workspaceId }), Code.NotFound, 'Workspace not found');
    }
  });

  it('costs one SQL statement, with a workspace id or without', async () => {
    const owner = await signUp('Owner');
    const { token, user } = await signUp('Member');
    await h.db.membership.create({ data: { workspaceId: owner.user!.id, userId: user!.id, role: 'agent' } });
    const statements = async () =>
      sampleValue(parsePrometheusText(await metricsText()), 'parley_sql_statements_total', { schema: h.config.AUTH_DB_SCHEMA }) ?? 0;
    const before = await statements();
    await h.client.authenticate({ token });
    await h.client.authenticate({ token, workspaceId: owner.user!.id });
    await expectRpcError(
      h.client.authenticate({ token, workspaceId: '7f1c8f7e-0000-4000-8000-000000000000' }),
      Code.NotFound,
      'Workspace not found',
    );
    expect((await statements()) - before).toBe(3);
  });

  it('checks the session before the workspace', async () => {
    await expectRpcError(
      h.client.authenticate({ token: 'nope', workspaceId: 'not-a-uuid' }),
      Code.Unauthenticated,
      'Session expired. Please login again.',
    );
  });

  it('ends access at once when the membership goes', async () => {
    const owner = await signUp('Owner');
    const { token, user } = await signUp('Member');
    await h.db.membership.create({ data: { workspaceId: owner.user!.id, userId: user!.id, role: 'viewer' } });
    expect((await h.client.authenticate({ token, workspaceId: owner.user!.id })).workspace?.role).toBe('viewer');
    await h.db.membership.delete({ where: { workspaceId_userId: { workspaceId: owner.user!.id, userId: user!.id } } });
    await expectRpcError(h.client.authenticate({ token, workspaceId: owner.user!.id }), Code.NotFound, 'Workspace not found');
  });

  it('answers the oldest membership when the person no longer belongs to their personal workspace', async () => {
    const first = await signUp('First');
    const second = await signUp('Second');
    const { token, user } = await signUp('Leaver');
    await h.db.membership.create({
      data: { workspaceId: second.user!.id, userId: user!.id, role: 'agent', createdAt: new Date('2026-03-02') },
    });
    await h.db.membership.create({
      data: { workspaceId: first.user!.id, userId: user!.id, role: 'admin', createdAt: new Date('2026-03-01') },
    });
    await h.db.membership.delete({ where: { workspaceId_userId: { workspaceId: user!.id, userId: user!.id } } });
    expect((await h.client.authenticate({ token })).workspace).toMatchObject({ id: first.user!.id, role: 'admin' });

    await h.db.membership.deleteMany({ where: { userId: user!.id } });
    const alone = await h.client.authenticate({ token });
    expect(alone.user?.id).toBe(user!.id);
    expect(alone.workspace).toBeUndefined();
  });
});
