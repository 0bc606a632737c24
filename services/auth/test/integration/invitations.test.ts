// Invitations: the mailed single-use link, its states (expired, used, revoked, sent again, forged),
// acceptance by the invited address only and exactly once under concurrency, and the seat limit.
import { readOutbox } from '@parley/common/mail-outbox.ts';
import { Code } from '@parley/common/rpc-errors.ts';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashInvitationToken, newInvitationToken } from '../../src/workspaces/invitation-token.ts';
import { expectRpcError, startAuth, TEST_PUBLIC_URL, type AuthHarness } from './harness.ts';
import { actor, invitationToken, signUp, team, WORKSPACE_ENV, type Person } from './workspaces-fixtures.ts';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth(WORKSPACE_ENV, { workers: false });
});
afterAll(async () => {
  await h?.close();
});

const invite = (by: Person, workspaceId: string, email: string, role = 'editor', seatLimit = 5, plan = 'pro') =>
  h.workspaces.createInvitation({ actor: actor(by, workspaceId), email, role, seatLimit, plan });
const accept = (token: string, person: Person, seatLimit = 5, plan = 'pro') =>
  h.workspaces.acceptInvitation({ token, userId: person.id, clientIp: '198.51.100.9', seatLimit, plan });

describe('CreateInvitation', () => {
  it('mails a 7-day single-use link to the address, stores only its hash, and records it', async () => {
    const { owner, workspaceId } = await team(h);
    const guest = await signUp(h, 'Guest');
    const before = Date.now();
    const { invitation } = await invite(owner, workspaceId, `  ${guest.email.toUpperCase()} `, 'agent');
    expect(invitation).toMatchObject({ email: guest.email, role: 'agent', invitedBy: owner.email });
    const expiresAt = timestampDate(invitation!.expiresAt!).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + 7 * 24 * 3600 * 1000);
    expect(expiresAt).toBeLessThan(before + 7 * 24 * 3600 * 1000 + 60_000);

    const token = await invitationToken(h, guest.email);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const row = await h.db.invitation.findUniqueOrThrow({ where: { id: invitation!.id } });
    expect(row.tokenHash).toBe(hashInvitationToken(token));
    const mail = (await readOutbox(h.outboxDir, { limit: 1000 })).find((m) => m.to.includes(guest.email))!;
    expect(mail.subject).toBe('Join Acme on Parley');
    expect(mail.text).toContain(`${TEST_PUBLIC_URL}/invitations/${token}`);
    expect(mail.text).toContain('as an agent');

    const entry = await h.db.auditEvent.findFirstOrThrow({ where: { workspaceId, action: 'member.invited' } });
    expect(entry).toMatchObject({ actorUserId: owner.id, target: guest.email, details: { invitationId: invitation!.id, role: 'agent' } });
    expect((await h.workspaces.listInvitations({ actor: actor(owner, workspaceId) })).invitations.map((i) => i.id)).toEqual([
      invitation!.id,
    ]);
  });

  it('refuses a member, a pending invitation, a bad email, an owner invited by an admin, and non-admins', async () => {
    const { owner, workspaceId, members } = await team(h, ['admin', 'editor']);
    const [admin, editor] = members;
    await expectRpcError(
      invite(owner, workspaceId, editor.email),
      Code.AlreadyExists,
      `${editor.email} is already a member of this workspace`,
    );
    await invite(owner, workspaceId, 'new@example.com');
    await expectRpcError(
      invite(admin, workspaceId, 'NEW@example.com'),
      Code.AlreadyExists,
      'new@example.com already has a pending invitation. You can send it again instead.',
    );
    await expectRpcError(invite(owner, workspaceId, 'not an email'), Code.InvalidArgument, 'Please enter a valid email address');
    await expectRpcError(
      invite(owner, workspaceId, 'x@example.com', 'boss'),
      Code.InvalidArgument,
      'Role must be one of owner, admin, editor, agent or viewer',
    );
    await expectRpcError(invite(admin, workspaceId, 'x@example.com', 'owner'), Code.PermissionDenied, 'Only an owner can invite an owner');
    await expectRpcError(
      invite(editor, workspaceId, 'x@example.com'),
      Code.PermissionDenied,
      'Only owners and admins can manage members and invitations',
    );
    await expectRpcError(
      h.workspaces.listInvitations({ actor: actor(editor, workspaceId) }),
      Code.PermissionDenied,
      'Only owners and admins can manage members and invitations',
    );
    await expectRpcError(invite(owner, workspaceId, 'x@example.com', 'viewer', 0), Code.InvalidArgument, 'seat_limit must be at least 1');
    const [pending] = (await h.workspaces.listInvitations({ actor: actor(owner, workspaceId) })).invitations;
    await expectRpcError(
      h.workspaces.resendInvitation({ actor: actor(editor, workspaceId), invitationId: pending.id }),
      Code.PermissionDenied,
      'Only owners and admins can manage members and invitations',
    );
    await expectRpcError(
      h.workspaces.revokeInvitation({ actor: actor(editor, workspaceId), invitationId: pending.id }),
      Code.PermissionDenied,
      'Only owners and admins can manage members and invitations',
    );
    const stranger = await signUp(h);
    await expectRpcError(invite(stranger, workspaceId, 'x@example.com'), Code.NotFound, 'Workspace not found');
  });

  it('counts members and pending invitations against the seat limit, naming the plan', async () => {
    const solo = await team(h);
    await expectRpcError(
      invite(solo.owner, solo.workspaceId, 'one@example.com', 'viewer', 1, 'free'),
      Code.PermissionDenied,
      'Your Free plan allows 1 member, pending invitations included. Upgrade to Pro for more members.',
    );
    const { owner, workspaceId } = await team(h, ['viewer']);
    await invite(owner, workspaceId, 'three@example.com', 'viewer', 3);
    await expectRpcError(
      invite(owner, workspaceId, 'four@example.com', 'viewer', 3),
      Code.PermissionDenied,
      'Your Pro plan allows 3 members, pending invitations included.',
    );
    // Concurrent invitations count one another: of two for the last seat, one is sent.
    const other = await team(h);
    const raced = await Promise.allSettled([
      invite(other.owner, other.workspaceId, 'a@example.com', 'viewer', 2),
      invite(other.owner, other.workspaceId, 'b@example.com', 'viewer', 2),
    ]);
    expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await h.db.invitation.count({ where: { workspaceId: other.workspaceId } })).toBe(1);
    // A revoked invitation frees its seat.
    const [pending] = (await h.workspaces.listInvitations({ actor: actor(owner, workspaceId) })).invitations;
    await h.workspaces.revokeInvitation({ actor: actor(owner, workspaceId), invitationId: pending.id });
    await invite(owner, workspaceId, 'four@example.com', 'viewer', 3);
  });
});

describe('GetInvitation and AcceptInvitation', () => {
  it('shows the invitation, and lets the invited account join once with the role', async () => {
    const { owner, workspaceId } = await team(h);
    const guest = await signUp(h, 'Guest');
    await invite(owner, workspaceId, guest.email, 'viewer');
    const token = await invitationToken(h, guest.email);
    expect(await h.workspaces.getInvitation({ token })).toMatchObject({
      workspaceName: 'Acme',
      workspaceId,
      email: guest.email,
      role: 'viewer',
      invitedBy: owner.email,
    });

    const { workspace } = await accept(token, guest);
    expect(workspace).toMatchObject({ id: workspaceId, name: 'Acme', role: 'viewer', memberCount: 2, personal: false });
    expect((await h.client.authenticate({ token: guest.token, workspaceId })).workspace?.role).toBe('viewer');
    const entry = await h.db.auditEvent.findFirstOrThrow({ where: { workspaceId, action: 'member.joined' } });
    expect(entry).toMatchObject({ actorUserId: guest.id, actorEmail: guest.email, target: guest.email, clientIp: '198.51.100.9' });
    expect((await h.workspaces.listInvitations({ actor: actor(owner, workspaceId) })).invitations).toEqual([]);

    await expectRpcError(h.workspaces.getInvitation({ token }), Code.FailedPrecondition, 'This invitation has already been used');
    await expectRpcError(accept(token, guest), Code.FailedPrecondition, 'This invitation has already been used');
  });

  it('refuses another account, even holding the link', async () => {
    const { owner, workspaceId } = await team(h);
    const guest = await signUp(h, 'Guest');
    const other = await signUp(h, 'Other');
    await invite(owner, workspaceId, guest.email);
    const token = await invitationToken(h, guest.email);
    await expectRpcError(
      accept(token, other),
      Code.PermissionDenied,
      'This invitation was sent to another email address. Sign in with that address to accept it.',
    );
    expect(await h.db.membership.count({ where: { workspaceId, userId: other.id } })).toBe(0);
  });

  it('answers not found for a forged, empty or over-long token', async () => {
    for (const token of [newInvitationToken(), '', 'x'.repeat(200)]) {
      await expectRpcError(h.workspaces.getInvitation({ token }), Code.NotFound, 'Invitation not found');
    }
    const guest = await signUp(h);
    await expectRpcError(accept(newInvitationToken(), guest), Code.NotFound, 'Invitation not found');
  });

  it('refuses an expired invitation', async () => {
    const { owner, workspaceId } = await team(h);
    const guest = await signUp(h, 'Guest');
    const { invitation } = await invite(owner, workspaceId, guest.email);
    const token = await invitationToken(h, guest.email);
    await h.db.invitation.update({ where: { id: invitation!.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectRpcError(h.workspaces.getInvitation({ token }), Code.FailedPrecondition, 'This invitation has expired. Ask for a new one.');
    await expectRpcError(accept(token, guest), Code.FailedPrecondition, 'This invitation has expired. Ask for a new one.');
    // It no longer holds a seat nor blocks a new invitation; it cannot be sent again.
    expect((await h.workspaces.listInvitations({ actor: actor(owner, workspaceId) })).invitations).toEqual([]);
    await expectRpcError(
      h.workspaces.resendInvitation({ actor: actor(owner, workspaceId), invitationId: invitation!.id }),
      Code.FailedPrecondition,
      'This invitation has expired. Ask for a new one.',
    );
    await invite(owner, workspaceId, guest.email, 'viewer', 2);
  });

  it('refuses a revoked invitation, and records the revocation', async () => {
    const { owner, workspaceId, members } = await team(h, ['admin']);
    const guest = await signUp(h, 'Guest');
    const { invitation } = await invite(owner, workspaceId, guest.email);
    const token = await invitationToken(h, guest.email);
    await h.workspaces.revokeInvitation({ actor: actor(members[0], workspaceId), invitationId: invitation!.id });
    await expectRpcError(accept(token, guest), Code.FailedPrecondition, 'This invitation was revoked. Ask for a new one.');
    expect(await h.db.auditEvent.findFirstOrThrow({ where: { workspaceId, action: 'invitation.revoked' } })).toMatchObject({
      actorUserId: members[0].id,
      target: guest.email,
    });
    await expectRpcError(
      h.workspaces.revokeInvitation({ actor: actor(owner, workspaceId), invitationId: invitation!.id }),
      Code.FailedPrecondition,
      'This invitation was revoked. Ask for a new one.',
    );
    await expectRpcError(
      h.workspaces.revokeInvitation({ actor: actor(owner, workspaceId), invitationId: 'nope' }),
      Code.NotFound,
      'Invitation not found',
    );
    // Another workspace's invitation is not found in this one.
    const other = await team(h);
    await expectRpcError(
      h.workspaces.revokeInvitation({ actor: actor(other.owner, other.workspaceId), invitationId: invitation!.id }),
      Code.NotFound,
      'Invitation not found',
    );
  });

  it('sends again with a new token: the old link stops working', async () => {
    const { owner, workspaceId } = await team(h);
    const guest = await signUp(h, 'Guest');
    const { invitation } = await invite(owner, workspaceId, guest.email);
    const oldToken = await invitationToken(h, guest.email);
    await h.db.invitation.update({ where: { id: invitation!.id }, data: { expiresAt: new Date(Date.now() + 60_000) } });

    const { invitation: resent } = await h.workspaces.resendInvitation({ actor: actor(owner, workspaceId), invitationId: invitation!.id });
    expect(resent?.id).toBe(invitation!.id);
    expect(timestampDate(resent!.expiresAt!).getTime()).toBeGreaterThan(Date.now() + 6 * 24 * 3600 * 1000);
    const newToken = await invitationToken(h, guest.email);
    expect(newToken).not.toBe(oldToken);
    await expectRpcError(h.workspaces.getInvitation({ token: oldToken }), Code.NotFound, 'Invitation not found');
    await expectRpcError(accept(oldToken, guest), Code.NotFound, 'Invitation not found');
    expect(await h.db.auditEvent.count({ where: { workspaceId, action: 'invitation.resent' } })).toBe(1);
    await accept(newToken, guest);
  });

  it('lets exactly one of two concurrent acceptances join', async () => {
    const { owner, workspaceId } = await team(h);
    const guest = await signUp(h, 'Guest');
    await invite(owner, workspaceId, guest.email);
    const token = await invitationToken(h, guest.email);
    const results = await Promise.allSettled([accept(token, guest), accept(token, guest), accept(token, guest)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect(r.reason).toMatchObject({ code: Code.FailedPrecondition, rawMessage: 'This invitation has already been used' });
    }
    expect(await h.db.membership.count({ where: { workspaceId, userId: guest.id } })).toBe(1);
    expect(await h.db.auditEvent.count({ where: { workspaceId, action: 'member.joined' } })).toBe(1);
  });

  it('checks the seat limit again on acceptance', async () => {
    const { owner, workspaceId } = await team(h);
    const guest = await signUp(h, 'Guest');
    await invite(owner, workspaceId, guest.email, 'viewer', 2);
    const token = await invitationToken(h, guest.email);
    await expectRpcError(
      accept(token, guest, 1, 'free'),
      Code.PermissionDenied,
      'Your Free plan allows 1 member, pending invitations included. Upgrade to Pro for more members.',
    );
    expect(await h.db.membership.count({ where: { workspaceId } })).toBe(1);
    // Still pending: it can be accepted once the plan allows it.
    await accept(token, guest, 2);
  });
});
