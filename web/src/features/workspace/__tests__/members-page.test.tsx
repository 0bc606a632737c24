import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { graphqlError, sampleUser } from '../../../test/mock-link';
import { openAsMember, sampleInvitation, sampleMember, sampleWorkspace, section } from '../../../test/workspace-fixtures';

const grace = sampleMember({ userId: 'u2', email: 'grace@example.com', name: 'Grace', role: 'AGENT' });
const owner = sampleMember();

function openMembers(role: 'OWNER' | 'ADMIN' | 'AGENT' = 'OWNER', handlers = {}) {
  const me = sampleMember({ role });
  const others =
    role === 'OWNER' ? [grace] : [sampleMember({ userId: 'u0', email: 'olga@example.com', name: 'Olga', role: 'OWNER' }), grace];
  return openAsMember('/workspace/members', sampleWorkspace({ role }), {
    Members: () => ({ data: { members: [me, ...others] } }),
    Invitations: () => ({ data: { invitations: [sampleInvitation({ email: 'linus@example.com', role: 'EDITOR' })] } }),
    ...handlers,
  });
}

describe('Members page', () => {
  it('lists the members with their roles and the seats used, pending invitations included', async () => {
    openMembers();
    const members = await section('Members');
    expect(await members.findByText('Grace')).toBeTruthy();
    expect(members.getByText('grace@example.com')).toBeTruthy();
    expect(members.getByText('You')).toBeTruthy();
    // The only owner cannot leave: ownership moves by transfer.
    expect(members.queryByRole('button', { name: 'Leave' })).toBeNull();
    expect(await screen.findByText('3 of 5 seats used')).toBeTruthy();
    expect(document.title).toBe('Members — Parley');
    expect(screen.getByTestId('workspace-name').textContent).toBe('Acme Team');
    const invitations = await section('Pending invitations');
    expect(await invitations.findByText('linus@example.com')).toBeTruthy();
    expect(invitations.getByText(/Invited by ada@example.com/)).toBeTruthy();
  });

  it('lets an owner change a role', async () => {
    const { calls } = openMembers('OWNER', {
      ChangeMemberRole: () => ({ data: { changeMemberRole: { ...grace, role: 'EDITOR' } } }),
    });
    const select = await screen.findByLabelText('Role of Grace');
    expect([...(select as HTMLSelectElement).options].map((o) => o.textContent)).toEqual(['Owner', 'Admin', 'Editor', 'Agent', 'Viewer']);
    fireEvent.change(select, { target: { value: 'EDITOR' } });
    await waitFor(() =>
      expect(calls.find((c) => c.operationName === 'ChangeMemberRole')?.variables).toEqual({ userId: 'u2', role: 'EDITOR' }),
    );
    // The signed-in owner's own role is not a picker.
    expect(screen.queryByLabelText(`Role of ${sampleUser.name}`)).toBeNull();
  });

  it('invites by email with a role, and shows the seat limit refusal as the server words it', async () => {
    const limit = 'Your Free plan allows 1 seat (members and pending invitations). Upgrade to Pro for 5.';
    const { calls } = openMembers('OWNER', { InviteMember: () => graphqlError(limit, 'FORBIDDEN') });
    const invite = await section('Invite a member');
    fireEvent.click(invite.getByRole('button', { name: 'Send invitation' }));
    expect((await invite.findByRole('alert')).textContent).toBe('Please enter the email address to invite.');

    fireEvent.change(invite.getByLabelText('Email'), { target: { value: 'new@example.com' } });
    fireEvent.change(invite.getByLabelText('Role'), { target: { value: 'AGENT' } });
    fireEvent.click(invite.getByRole('button', { name: 'Send invitation' }));
    await waitFor(() => expect(invite.getByRole('alert').textContent).toBe(limit));
    expect(calls.find((c) => c.operationName === 'InviteMember')?.variables).toEqual({ email: 'new@example.com', role: 'AGENT' });
    // Ownership moves by transfer, never by invitation.
    expect([...(invite.getByLabelText('Role') as HTMLSelectElement).options].map((o) => o.value)).toEqual([
      'ADMIN',
      'EDITOR',
      'AGENT',
      'VIEWER',
    ]);
  });

  it('confirms a transfer of ownership in a dialog before making it', async () => {
    const { calls } = openMembers('OWNER', { TransferOwnership: () => ({ data: { transferOwnership: true } }) });
    const members = await section('Members');
    fireEvent.click(await members.findByRole('button', { name: 'Make owner' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Transfer ownership' }));
    expect(dialog.getByText(/Grace becomes an owner of Acme Team/)).toBeTruthy();
    fireEvent.click(dialog.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(calls.some((c) => c.operationName === 'TransferOwnership')).toBe(false);

    fireEvent.click(members.getByRole('button', { name: 'Make owner' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Transfer ownership' }));
    await waitFor(() => expect(calls.find((c) => c.operationName === 'TransferOwnership')?.variables).toEqual({ userId: 'u2' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('removes a member after a confirm, and shows why when the server refuses', async () => {
    const { calls } = openMembers('OWNER', { RemoveMember: () => graphqlError('A workspace must keep an owner.', 'FAILED_PRECONDITION') });
    const row = within(await screen.findByRole('listitem', { name: 'Grace' }));
    fireEvent.click(row.getByRole('button', { name: 'Remove' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Remove member' }));
    fireEvent.click(dialog.getByRole('button', { name: 'Remove' }));
    expect((await dialog.findByRole('alert')).textContent).toBe('A workspace must keep an owner.');
    expect(calls.find((c) => c.operationName === 'RemoveMember')?.variables).toEqual({ userId: 'u2' });
  });

  it('resends and revokes a pending invitation', async () => {
    const { calls } = openMembers('OWNER', {
      ResendInvitation: () => ({ data: { resendInvitation: sampleInvitation({ email: 'linus@example.com' }) } }),
      RevokeInvitation: () => ({ data: { revokeInvitation: true } }),
    });
    const row = within(await screen.findByRole('listitem', { name: 'linus@example.com' }));
    fireEvent.click(row.getByRole('button', { name: 'Resend' }));
    await waitFor(() => expect(calls.find((c) => c.operationName === 'ResendInvitation')?.variables).toEqual({ id: 'i1' }));
    await waitFor(() => expect(row.getByRole('button', { name: 'Revoke' }).hasAttribute('disabled')).toBe(false));
    fireEvent.click(row.getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(calls.find((c) => c.operationName === 'RevokeInvitation')?.variables).toEqual({ id: 'i1' }));
  });

  it('shows an admin no owner controls: owners keep their role, and there is no transfer or deleting', async () => {
    openMembers('ADMIN');
    expect(await screen.findByLabelText('Role of Grace')).toBeTruthy();
    expect(screen.queryByLabelText('Role of Olga')).toBeNull();
    const olga = within(await screen.findByRole('listitem', { name: 'Olga' }));
    expect(olga.queryByRole('button', { name: 'Remove' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Make owner' })).toBeNull();
    expect(screen.queryByRole('region', { name: 'Delete workspace' })).toBeNull();
    expect(await screen.findByRole('region', { name: 'Invite a member' })).toBeTruthy();
  });

  it('shows an agent the members only, with Leave for themselves', async () => {
    const { calls } = openMembers('AGENT');
    const members = await section('Members');
    expect(await members.findByText('Grace')).toBeTruthy();
    expect(screen.queryByRole('combobox')).toBeNull();
    expect(members.queryByRole('button', { name: 'Remove' })).toBeNull();
    expect(members.getByRole('button', { name: 'Leave' })).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Invite a member' })).toBeNull();
    expect(screen.queryByRole('region', { name: 'Pending invitations' })).toBeNull();
    expect(screen.queryByRole('region', { name: 'Workspace settings' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Audit log' })).toBeNull();
    expect(calls.some((c) => c.operationName === 'Invitations')).toBe(false);
  });

  it('leaving goes to the personal workspace’s dashboard with a notice', async () => {
    const { calls, router } = openMembers('AGENT', { LeaveWorkspace: () => ({ data: { leaveWorkspace: true } }) });
    fireEvent.click(await (await section('Members')).findByRole('button', { name: 'Leave' }));
    fireEvent.click(within(await screen.findByRole('dialog', { name: 'Leave workspace' })).getByRole('button', { name: 'Leave' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(calls.find((c) => c.operationName === 'LeaveWorkspace')?.headers['x-workspace-id']).toBe('w-team');
    expect(localStorage.getItem('workspace')).toBeNull();
    expect((await screen.findByText('You have left the workspace.')).closest('[role="status"]')).toBeTruthy();
  });

  it('renames the workspace, and deletes it with the password after a confirm', async () => {
    const { calls, router } = openMembers('OWNER', {
      RenameWorkspace: () => ({ data: { renameWorkspace: sampleWorkspace({ name: 'Acme Support' }) } }),
      DeleteWorkspace: () => ({ data: { deleteWorkspace: true } }),
    });
    const settings = await section('Workspace settings');
    fireEvent.change(settings.getByLabelText('Workspace name'), { target: { value: 'Acme Support' } });
    fireEvent.click(settings.getByRole('button', { name: 'Save' }));
    expect((await settings.findByRole('status')).textContent).toBe('Workspace renamed');
    expect(calls.find((c) => c.operationName === 'RenameWorkspace')?.variables).toEqual({ name: 'Acme Support' });

    const danger = await section('Delete workspace');
    fireEvent.click(danger.getByRole('button', { name: 'Delete workspace' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Delete workspace' }));
    fireEvent.click(dialog.getByRole('button', { name: 'Delete workspace' }));
    expect((await dialog.findByRole('alert')).textContent).toBe('Please enter your password to delete the workspace.');
    fireEvent.click(dialog.getByRole('button', { name: 'Cancel' }));

    fireEvent.change(danger.getByLabelText('Password'), { target: { value: 'secret1' } });
    fireEvent.click(danger.getByRole('button', { name: 'Delete workspace' }));
    fireEvent.click(
      within(await screen.findByRole('dialog', { name: 'Delete workspace' })).getByRole('button', { name: 'Delete workspace' }),
    );
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(calls.find((c) => c.operationName === 'DeleteWorkspace')?.variables).toEqual({ password: 'secret1' });
    expect(await screen.findByText('The workspace has been deleted.')).toBeTruthy();
  });

  it('offers no deleting of the personal workspace', async () => {
    openAsMember('/workspace/members', sampleWorkspace({ id: 'u1', name: 'Ada', personal: true, memberCount: 1, seatLimit: 1 }), {
      Members: () => ({ data: { members: [owner] } }),
      Invitations: () => ({ data: { invitations: [] } }),
    });
    expect(await screen.findByText('1 of 1 seat used')).toBeTruthy();
    expect((await section('Invite a member')).getByText(/Every seat is taken/)).toBeTruthy();
    expect(await screen.findByRole('region', { name: 'Workspace settings' })).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Delete workspace' })).toBeNull();
  });
});
