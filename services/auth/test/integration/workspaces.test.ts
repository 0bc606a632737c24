// The WorkspaceService's workspaces: list, create (announced to billing), rename, delete (announced
// through the AccountDeleted outbox), the owner's export, and DeleteAccount's rules for workspaces.
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { Code } from '@parley/common/rpc-errors.ts';
import { QUEUES } from '@parley/common/queues.ts';
import { WorkspaceCreatedSchema } from '@parley/proto/parley/events/v1/workspace_created_pb.js';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_DELETED_QUEUES, accountDeletedJobId } from '../../src/accounts/account-deleted.publisher.ts';
import { workspaceCreatedJobId } from '../../src/workspaces/workspace-created.publisher.ts';
import { expectRpcError, startAuth, type AuthHarness } from './harness.ts';
import { actor, join, signUp, team, WORKSPACE_ENV } from './workspaces-fixtures.ts';

let h: AuthHarness;
let deletedQueues: Queue[];
let createdQueue: Queue;
beforeAll(async () => {
  h = await startAuth(WORKSPACE_ENV, { workers: false });
  deletedQueues = ACCOUNT_DELETED_QUEUES.map((name) => h.queueOf(name));
  createdQueue = h.queueOf(QUEUES.workspaceCreated);
});
afterAll(async () => {
  await h?.close();
});

const deletionJobs = (ownerId: string) => Promise.all(deletedQueues.map((q) => q.getJob(accountDeletedJobId(ownerId))));

describe('CreateWorkspace and ListWorkspaces', () => {
  it('creates a workspace owned by its creator, announces it, and lists the personal one first', async () => {
    const ada = await signUp(h, 'Ada');
    const { workspace } = await h.workspaces.createWorkspace({ userId: ada.id, name: '  Acme  ', clientIp: '198.51.100.7' });
    expect(workspace).toMatchObject({ name: 'Acme', personal: false, role: 'owner', memberCount: 1 });
    expect(workspace!.id).not.toBe(ada.id);

    const job = await createdQueue.getJob(workspaceCreatedJobId(workspace!.id));
    const event = fromJson(WorkspaceCreatedSchema, job!.data as JsonValue);
    expect(event).toMatchObject({ workspaceId: workspace!.id, ownerUserId: ada.id });

    await h.workspaces.createWorkspace({ userId: ada.id, name: 'Zeta', clientIp: '' });
    await h.workspaces.createWorkspace({ userId: ada.id, name: 'Beta', clientIp: '' });
    const { workspaces } = await h.workspaces.listWorkspaces({ userId: ada.id });
    expect(workspaces.map((w) => w.name)).toEqual(["Ada's workspace", 'Acme', 'Beta', 'Zeta']);
    expect(workspaces[0]).toMatchObject({ id: ada.id, personal: true, role: 'owner' });

    const audit = await h.db.auditEvent.findMany({ where: { workspaceId: workspace!.id } });
    expect(audit).toEqual([
      expect.objectContaining({ action: 'workspace.created', actorUserId: ada.id, actorEmail: ada.email, target: 'Acme' }),
    ]);
  });

  it('refuses an empty or over-long name and an unknown user', async () => {
    const ada = await signUp(h);
    await expectRpcError(
      h.workspaces.createWorkspace({ userId: ada.id, name: '  ', clientIp: '' }),
      Code.InvalidArgument,
      'Please enter a name for the workspace',
    );
    await expectRpcError(
      h.workspaces.createWorkspace({ userId: ada.id, name: 'x'.repeat(101), clientIp: '' }),
      Code.InvalidArgument,
      'Name must be at most 100 characters',
    );
    await expectRpcError(
      h.workspaces.createWorkspace({ userId: 'nobody', name: 'Acme', clientIp: '' }),
      Code.NotFound,
      'Account not found',
    );
    await expectRpcError(
      h.workspaces.createWorkspace({ userId: '7f1c8f7e-0000-4000-8000-000000000000', name: 'Acme', clientIp: '' }),
      Code.NotFound,
      'Account not found',
    );
  });

  it('lists a shared workspace with the member count and the member role', async () => {
    const { owner, workspaceId, members } = await team(h, ['viewer']);
    const { workspaces } = await h.workspaces.listWorkspaces({ userId: members[0].id });
    expect(workspaces.map((w) => [w.id, w.role, w.memberCount])).toEqual([
      [members[0].id, 'owner', 1],
      [workspaceId, 'viewer', 2],
    ]);
    expect((await h.workspaces.listWorkspaces({ userId: owner.id })).workspaces).toHaveLength(2);
  });
});

describe('RenameWorkspace', () => {
  it('lets an admin rename, records it, and refuses an editor and a stranger', async () => {
    const { workspaceId, members } = await team(h, ['admin', 'editor']);
    const [admin, editor] = members;
    const { workspace } = await h.workspaces.renameWorkspace({ actor: actor(admin, workspaceId), name: 'Acme Inc' });
    expect(workspace).toMatchObject({ name: 'Acme Inc', role: 'admin', memberCount: 3 });
    const entry = await h.db.auditEvent.findFirstOrThrow({ where: { workspaceId, action: 'workspace.renamed' } });
    expect(entry).toMatchObject({
      actorUserId: admin.id,
      target: 'Acme Inc',
      details: { from: 'Acme', to: 'Acme Inc' },
      clientIp: '198.51.100.7',
    });

    await expectRpcError(
      h.workspaces.renameWorkspace({ actor: actor(editor, workspaceId), name: 'Mine' }),
      Code.PermissionDenied,
      'Only owners and admins can manage members and invitations',
    );
    const stranger = await signUp(h);
    await expectRpcError(
      h.workspaces.renameWorkspace({ actor: actor(stranger, workspaceId), name: 'Mine' }),
      Code.NotFound,
      'Workspace not found',
    );
    await expectRpcError(
      h.workspaces.renameWorkspace({ actor: actor(stranger, 'nope'), name: 'Mine' }),
      Code.NotFound,
      'Workspace not found',
    );
  });
});

describe('DeleteWorkspace', () => {
  it('needs an owner and the password, keeps the personal workspace, and announces the deletion once', async () => {
    const { owner, workspaceId, members } = await team(h, ['admin']);
    await expectRpcError(
      h.workspaces.deleteWorkspace({ actor: actor(members[0], workspaceId), password: 'secret1' }),
      Code.PermissionDenied,
      'Only owners can delete the workspace',
    );
    await expectRpcError(
      h.workspaces.deleteWorkspace({ actor: actor(owner, owner.id), password: owner.password }),
      Code.FailedPrecondition,
      'Your personal workspace is deleted only with your account',
    );
    await expectRpcError(
      h.workspaces.deleteWorkspace({ actor: actor(owner, workspaceId), password: '' }),
      Code.InvalidArgument,
      'Please enter your password',
    );
    await expectRpcError(
      h.workspaces.deleteWorkspace({ actor: actor(owner, workspaceId), password: 'wrong!!' }),
      Code.InvalidArgument,
      'Password is incorrect',
    );

    await h.workspaces.deleteWorkspace({ actor: actor(owner, workspaceId), password: owner.password });
    expect(await h.db.workspace.count({ where: { id: workspaceId } })).toBe(0);
    expect(await h.db.membership.count({ where: { workspaceId } })).toBe(0);
    expect(await h.db.auditEvent.count({ where: { workspaceId } })).toBe(0);
    // Published at once, so the outbox holds nothing; one job per queue, keyed on the workspace's id.
    expect(await h.db.accountDeletedOutbox.count({ where: { userId: workspaceId } })).toBe(0);
    const jobs = await deletionJobs(workspaceId);
    expect(jobs.every(Boolean)).toBe(true);
    expect(jobs.map((j) => (j!.data as { userId: string }).userId)).toEqual([workspaceId, workspaceId, workspaceId]);
    for (const q of deletedQueues)
      expect((await q.getJobs(['waiting'])).filter((j) => j.id === accountDeletedJobId(workspaceId))).toHaveLength(1);

    // The member's requests in it end; their own account stays.
    await expectRpcError(h.client.authenticate({ token: members[0].token, workspaceId }), Code.NotFound, 'Workspace not found');
    expect((await h.client.authenticate({ token: members[0].token })).workspace?.id).toBe(members[0].id);
  });
});

describe('DeleteAccount and workspaces', () => {
  it('is refused while the person is the only owner of a workspace with other members', async () => {
    const { owner, workspaceId, members } = await team(h, ['editor']);
    await expectRpcError(
      h.client.deleteAccount({ userId: owner.id, password: owner.password, clientIp: '' }),
      Code.FailedPrecondition,
      'Transfer ownership of Acme or delete it before deleting your account',
    );
    expect(await h.db.user.count({ where: { id: owner.id } })).toBe(1);

    await h.workspaces.transferOwnership({ actor: actor(owner, workspaceId), memberUserId: members[0].id });
    await h.client.deleteAccount({ userId: owner.id, password: owner.password, clientIp: '' });
    // The shared workspace stays, with its new owner; the personal one went, announced once.
    expect(await h.db.membership.findMany({ where: { workspaceId }, select: { userId: true, role: true } })).toEqual([
      { userId: members[0].id, role: 'owner' },
    ]);
    expect(await h.db.workspace.count({ where: { id: owner.id } })).toBe(0);
    expect((await deletionJobs(owner.id)).every(Boolean)).toBe(true);
    expect((await deletionJobs(workspaceId)).some(Boolean)).toBe(false);
  });

  it('deletes every workspace the person alone belongs to, each announced, and keeps shared ones', async () => {
    const ada = await signUp(h, 'Ada');
    const { workspace: solo } = await h.workspaces.createWorkspace({ userId: ada.id, name: 'Solo', clientIp: '' });
    const other = await team(h, []);
    await join(h, other.owner, other.workspaceId, ada, 'owner');

    await h.client.deleteAccount({ userId: ada.id, password: ada.password, clientIp: '' });
    expect(await h.db.workspace.count({ where: { id: { in: [ada.id, solo!.id] } } })).toBe(0);
    expect((await deletionJobs(ada.id)).every(Boolean)).toBe(true);
    expect((await deletionJobs(solo!.id)).every(Boolean)).toBe(true);
    expect(await h.db.membership.findMany({ where: { workspaceId: other.workspaceId }, select: { userId: true } })).toEqual([
      { userId: other.owner.id },
    ]);
    expect((await deletionJobs(other.workspaceId)).some(Boolean)).toBe(false);
  });

  it("keeps a transferred personal workspace (its id is the person's) when the person deletes their account", async () => {
    const ada = await signUp(h, 'Ada');
    const bob = await signUp(h, 'Bob');
    await join(h, ada, ada.id, bob, 'admin');
    await h.workspaces.transferOwnership({ actor: actor(ada, ada.id), memberUserId: bob.id });
    await h.client.deleteAccount({ userId: ada.id, password: ada.password, clientIp: '' });
    expect(await h.db.workspace.count({ where: { id: ada.id } })).toBe(1);
    expect((await deletionJobs(ada.id)).some(Boolean)).toBe(false);
    expect((await h.client.authenticate({ token: bob.token, workspaceId: ada.id })).workspace).toMatchObject({
      role: 'owner',
      memberCount: 1,
    });
  });
});

describe('ExportOwnedWorkspaces', () => {
  it('exports the workspaces the user owns with members, invitations and audit log', async () => {
    const { owner, workspaceId, members } = await team(h, ['viewer']);
    await h.workspaces.createInvitation({
      actor: actor(owner, workspaceId),
      email: 'later@example.com',
      role: 'agent',
      seatLimit: 5,
      plan: 'pro',
    });
    const { workspaces } = await h.workspaces.exportOwnedWorkspaces({ userId: owner.id });
    expect(workspaces.map((w) => w.workspace?.id)).toEqual([owner.id, workspaceId]);
    const acme = workspaces[1];
    expect(acme.members.map((m) => [m.userId, m.role])).toEqual([
      [owner.id, 'owner'],
      [members[0].id, 'viewer'],
    ]);
    expect(acme.invitations.map((i) => i.email)).toEqual(['later@example.com', members[0].email]);
    expect(acme.auditEvents.map((e) => e.action)).toEqual(['member.invited', 'member.joined', 'member.invited', 'workspace.created']);
    // A viewer owns only their personal workspace.
    expect((await h.workspaces.exportOwnedWorkspaces({ userId: members[0].id })).workspaces.map((w) => w.workspace?.id)).toEqual([
      members[0].id,
    ]);
  });
});
