// Members and roles: listing, changing roles within what the actor may give, removing and leaving,
// transferring ownership, and the rule that a workspace always keeps an owner.
import { Code } from '@parley/common/rpc-errors.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRpcError, startAuth, type AuthHarness } from './harness.ts';
import { actor, signUp, team, WORKSPACE_ENV } from './workspaces-fixtures.ts';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth(WORKSPACE_ENV, { workers: false });
});
afterAll(async () => {
  await h?.close();
});

const roleOf = async (workspaceId: string, userId: string) =>
  (await h.db.membership.findUnique({ where: { workspaceId_userId: { workspaceId, userId } } }))?.role;

describe('ListMembers', () => {
  it('shows every member to any member, and nothing to a stranger', async () => {
    const { owner, workspaceId, members } = await team(h, ['viewer', 'admin']);
    const { members: listed } = await h.workspaces.listMembers({ actor: actor(members[0], workspaceId) });
    expect(listed.map((m) => [m.userId, m.email, m.role])).toEqual([
      [owner.id, owner.email, 'owner'],
      [members[1].id, members[1].email, 'admin'],
      [members[0].id, members[0].email, 'viewer'],
    ]);
    expect(listed[0].name).toBe('Owner');
    const stranger = await signUp(h);
    await expectRpcError(h.workspaces.listMembers({ actor: actor(stranger, workspaceId) }), Code.NotFound, 'Workspace not found');
  });
});

describe('ChangeMemberRole', () => {
  it('lets an admin change roles below owner, and records the change', async () => {
    const { workspaceId, members } = await team(h, ['admin', 'viewer']);
    const [admin, viewer] = members;
    const { member } = await h.workspaces.changeMemberRole({ actor: actor(admin, workspaceId), memberUserId: viewer.id, role: 'editor' });
    expect(member).toMatchObject({ userId: viewer.id, role: 'editor' });
    expect((await h.client.authenticate({ token: viewer.token, workspaceId })).workspace?.role).toBe('editor');
    const entry = await h.db.auditEvent.findFirstOrThrow({ where: { workspaceId, action: 'member.role_changed' } });
    expect(entry).toMatchObject({
      actorUserId: admin.id,
      target: viewer.email,
      details: { userId: viewer.id, from: 'viewer', to: 'editor' },
    });
  });

  it('keeps the owner role to owners, and refuses roles below admin', async () => {
    const { owner, workspaceId, members } = await team(h, ['admin', 'editor']);
    const [admin, editor] = members;
    await expectRpcError(
      h.workspaces.changeMemberRole({ actor: actor(admin, workspaceId), memberUserId: editor.id, role: 'owner' }),
      Code.PermissionDenied,
      'Only an owner can give or take the owner role',
    );
    await expectRpcError(
      h.workspaces.changeMemberRole({ actor: actor(admin, workspaceId), memberUserId: owner.id, role: 'viewer' }),
      Code.PermissionDenied,
      'Only an owner can give or take the owner role',
    );
    await expectRpcError(
      h.workspaces.changeMemberRole({ actor: actor(editor, workspaceId), memberUserId: admin.id, role: 'viewer' }),
      Code.PermissionDenied,
      'Only owners and admins can manage members and invitations',
    );
    await expectRpcError(
      h.workspaces.changeMemberRole({ actor: actor(owner, workspaceId), memberUserId: editor.id, role: 'boss' }),
      Code.InvalidArgument,
      'Role must be one of owner, admin, editor, agent or viewer',
    );
    await expectRpcError(
      h.workspaces.changeMemberRole({ actor: actor(owner, workspaceId), memberUserId: 'nobody', role: 'viewer' }),
      Code.NotFound,
      'Member not found',
    );
    // An owner may make another owner, and then step down.
    await h.workspaces.changeMemberRole({ actor: actor(owner, workspaceId), memberUserId: editor.id, role: 'owner' });
    await h.workspaces.changeMemberRole({ actor: actor(owner, workspaceId), memberUserId: owner.id, role: 'admin' });
    expect([await roleOf(workspaceId, owner.id), await roleOf(workspaceId, editor.id)]).toEqual(['admin', 'owner']);
  });

  it('refuses to demote the last owner', async () => {
    const { owner, workspaceId } = await team(h, ['admin']);
    await expectRpcError(
      h.workspaces.changeMemberRole({ actor: actor(owner, workspaceId), memberUserId: owner.id, role: 'admin' }),
      Code.FailedPrecondition,
      'A workspace needs an owner: make another member an owner before changing this role',
    );
    expect(await roleOf(workspaceId, owner.id)).toBe('owner');
  });
});

describe('RemoveMember', () => {
  it('lets an admin remove a member, which ends their access at once', async () => {
    const { workspaceId, members } = await team(h, ['admin', 'agent']);
    const [admin, agent] = members;
    expect((await h.client.authenticate({ token: agent.token, workspaceId })).workspace?.role).toBe('agent');
    await h.workspaces.removeMember({ actor: actor(admin, workspaceId), memberUserId: agent.id });
    await expectRpcError(h.client.authenticate({ token: agent.token, workspaceId }), Code.NotFound, 'Workspace not found');
    // Their own session and workspace keep working.
    expect((await h.client.authenticate({ token: agent.token })).workspace?.id).toBe(agent.id);
    const entry = await h.db.auditEvent.findFirstOrThrow({ where: { workspaceId, action: 'member.removed' } });
    expect(entry).toMatchObject({ actorUserId: admin.id, target: agent.email, details: { userId: agent.id, role: 'agent' } });
  });

  it('keeps owners from admins and members from non-admins', async () => {
    const { owner, workspaceId, members } = await team(h, ['admin', 'editor', 'viewer']);
    const [admin, editor, viewer] = members;
    await expectRpcError(
      h.workspaces.removeMember({ actor: actor(admin, workspaceId), memberUserId: owner.id }),
      Code.PermissionDenied,
      'Only an owner can remove an owner',
    );
    await expectRpcError(
      h.workspaces.removeMember({ actor: actor(editor, workspaceId), memberUserId: viewer.id }),
      Code.PermissionDenied,
      'Only owners and admins can manage members and invitations',
    );
    await expectRpcError(
      h.workspaces.removeMember({ actor: actor(admin, workspaceId), memberUserId: 'x' }),
      Code.NotFound,
      'Member not found',
    );
    expect(await h.db.membership.count({ where: { workspaceId } })).toBe(4);
  });

  it('lets any member leave, but not the last owner', async () => {
    const { owner, workspaceId, members } = await team(h, ['viewer']);
    const [viewer] = members;
    await h.workspaces.removeMember({ actor: actor(viewer, workspaceId), memberUserId: viewer.id });
    await expectRpcError(h.client.authenticate({ token: viewer.token, workspaceId }), Code.NotFound, 'Workspace not found');
    expect(await h.db.auditEvent.findFirstOrThrow({ where: { workspaceId, action: 'member.left' } })).toMatchObject({
      actorUserId: viewer.id,
      target: viewer.email,
    });
    await expectRpcError(
      h.workspaces.removeMember({ actor: actor(owner, workspaceId), memberUserId: owner.id }),
      Code.FailedPrecondition,
      'You are the only owner of Acme: transfer ownership to another member before leaving',
    );
  });
});

describe('TransferOwnership', () => {
  it('makes the member an owner and the actor an admin, in one step', async () => {
    const { owner, workspaceId, members } = await team(h, ['editor']);
    const [editor] = members;
    await h.workspaces.transferOwnership({ actor: actor(owner, workspaceId), memberUserId: editor.id });
    expect([await roleOf(workspaceId, owner.id), await roleOf(workspaceId, editor.id)]).toEqual(['admin', 'owner']);
    expect(await h.db.auditEvent.findFirstOrThrow({ where: { workspaceId, action: 'ownership.transferred' } })).toMatchObject({
      actorUserId: owner.id,
      target: editor.email,
    });
    // The former owner, now an admin, can neither transfer nor delete any more.
    await expectRpcError(
      h.workspaces.transferOwnership({ actor: actor(owner, workspaceId), memberUserId: editor.id }),
      Code.PermissionDenied,
      'Only owners can transfer ownership',
    );
  });

  it('is refused to an admin, to oneself and to a non-member', async () => {
    const { owner, workspaceId, members } = await team(h, ['admin']);
    await expectRpcError(
      h.workspaces.transferOwnership({ actor: actor(members[0], workspaceId), memberUserId: members[0].id }),
      Code.PermissionDenied,
      'Only owners can transfer ownership',
    );
    await expectRpcError(
      h.workspaces.transferOwnership({ actor: actor(owner, workspaceId), memberUserId: owner.id }),
      Code.InvalidArgument,
      'Choose another member to transfer ownership to',
    );
    const stranger = await signUp(h);
    await expectRpcError(
      h.workspaces.transferOwnership({ actor: actor(owner, workspaceId), memberUserId: stranger.id }),
      Code.NotFound,
      'Member not found',
    );
  });
});
