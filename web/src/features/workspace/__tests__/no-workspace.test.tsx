import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { billingAnswers } from '../../../test/usage-fixtures';
import { openAsMember, personalWorkspace, sampleMember, sampleWorkspace, section } from '../../../test/workspace-fixtures';

const NOT_FOUND = { data: null, errors: [{ message: 'Workspace not found', extensions: { code: 'NOT_FOUND' } }] };
// What the gateway shows a person in no workspace: no workspace's plan or credit.
const nobody = { ...sampleUser, usage: { ...sampleUser.usage, creditBalance: '0', lastCreditRefill: null } };

/** Signed in as a person who transferred their personal workspace and left it (and every other). */
function openWithoutWorkspace(path: string, handlers: Record<string, Handler> = {}) {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    ...billingAnswers,
    Me: () => ({ data: { me: nobody } }),
    Workspaces: () => NOT_FOUND,
    WorkspaceIds: () => ({ data: { workspaces: [] } }),
    Chatbots: () => NOT_FOUND,
    ...handlers,
  });
  return { ...mock, ...renderApp(path, mock.link) };
}

describe('a person in no workspace', () => {
  it('sees on the dashboard that they are a member of none, with creating one and joining by an invitation', async () => {
    const { calls } = openWithoutWorkspace('/dashboard');
    expect(await screen.findByRole('heading', { level: 1, name: 'You are not a member of any workspace' })).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('No workspace — Parley'));
    expect(screen.getByRole('heading', { name: 'Create a workspace' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Join with an invitation' })).toBeTruthy();
    expect(screen.getByText(sampleUser.email)).toBeTruthy();
    // Nothing of a workspace: no plan, credit, chatbots or usage, and no question asked about them.
    expect(screen.queryByText(/Plan$/)).toBeNull();
    expect(screen.queryByText('Account Overview')).toBeNull();
    expect(calls.some((c) => c.operationName === 'DashboardUsage')).toBe(false);

    const header = within(screen.getByRole('banner'));
    expect(header.getByRole('button', { name: /^Workspace:/ }).textContent).toContain('No workspace');
    expect(header.queryByRole('link', { name: 'Leads' })).toBeNull();
    expect(header.queryByRole('link', { name: 'Developers' })).toBeNull();
    expect(header.queryByRole('link', { name: 'Inbox' })).toBeNull();
    fireEvent.click(header.getByRole('button', { name: /^Workspace:/ }));
    expect(screen.getByText('You are not a member of any workspace.')).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Members' })).toBeNull();
    // The switcher's own way to create one, beside the page's.
    expect(screen.getAllByRole('button', { name: 'Create workspace' })).toHaveLength(2);
  });

  it.each(['/chatbots', '/chatbots/create', '/usage', '/leads', '/inbox', '/workspace/members', '/workspace/developers'])(
    'is led from %s back to the dashboard',
    async (path) => {
      const { router } = openWithoutWorkspace(path);
      await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
      expect(await screen.findByRole('heading', { name: 'You are not a member of any workspace' })).toBeTruthy();
    },
  );

  it('lands there too when the stored workspace is one they left and the personal one is gone', async () => {
    localStorage.setItem('workspace', 'w-left');
    const { calls } = openWithoutWorkspace('/dashboard');
    expect(await screen.findByRole('heading', { level: 1, name: 'You are not a member of any workspace' })).toBeTruthy();
    expect(localStorage.getItem('workspace')).toBeNull();
    const asked = calls.filter((c) => c.operationName === 'Workspaces');
    expect(asked[0].headers['x-workspace-id']).toBe('w-left');
    expect(asked.at(-1)?.headers['x-workspace-id']).toBeUndefined();
  });

  it('keeps the account page, without a plan', async () => {
    openWithoutWorkspace('/account', {
      AccountDetails: () => ({ data: { me: { ...nobody, createdAt: '2025-01-01T00:00:00.000Z' } } }),
      MySessions: () => ({ data: { mySessions: [] } }),
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Account' })).toBeTruthy();
    await waitFor(() => expect(screen.queryByText('Loading account')).toBeNull());
    expect(screen.queryByRole('button', { name: 'Upgrade Plan' })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Plan' })).toBeNull();
  });

  it('creates a workspace from there and lands in its dashboard', async () => {
    const created = sampleWorkspace({ id: 'w-new', name: 'Fresh start', memberCount: 1, seatLimit: 1 });
    const { calls } = openWithoutWorkspace('/dashboard', {
      Workspaces: ({ headers }) =>
        headers['x-workspace-id'] === 'w-new' ? { data: { workspaces: [created], currentWorkspace: created } } : NOT_FOUND,
      CreateWorkspace: () => ({ data: { createWorkspace: created } }),
      Chatbots: () => ({ data: { chatbots: [] } }),
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Create workspace' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Create workspace' }));
    fireEvent.change(dialog.getByLabelText('Workspace name'), { target: { value: 'Fresh start' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Create workspace' }));

    expect(await screen.findByText('Welcome back, Ada')).toBeTruthy();
    expect(screen.getByTestId('workspace-name').textContent).toBe('Fresh start');
    expect(localStorage.getItem('workspace')).toBe('w-new');
    expect(calls.find((c) => c.operationName === 'CreateWorkspace')?.variables).toEqual({ name: 'Fresh start' });
    await waitFor(() => expect(calls.some((c) => c.operationName === 'Chatbots' && c.headers['x-workspace-id'] === 'w-new')).toBe(true));
  });

  it('is where leaving the last workspace lands, with the notice, the plan and credit asked again', async () => {
    // The personal workspace, given away: its former owner is an admin there now, and leaves.
    const given = { ...personalWorkspace, ...sampleWorkspace({ id: sampleUser.id, name: 'Ada', personal: true, role: 'ADMIN' }) };
    let left = false;
    const { calls, router } = openAsMember('/workspace/members', given, {
      Workspaces: () => (left ? NOT_FOUND : { data: { workspaces: [given], currentWorkspace: given } }),
      WorkspaceIds: () => ({ data: { workspaces: [] } }),
      Members: () => ({
        data: { members: [sampleMember({ role: 'ADMIN' }), sampleMember({ userId: 'u2', email: 'heir@example.com', name: 'Heir' })] },
      }),
      Invitations: () => ({ data: { invitations: [] } }),
      LeaveWorkspace: () => {
        left = true;
        return { data: { leaveWorkspace: true } };
      },
      Me: () => ({ data: { me: left ? nobody : { ...sampleUser, subscription: 'pro' } } }),
    });
    fireEvent.click(await (await section('Members')).findByRole('button', { name: 'Leave' }));
    fireEvent.click(within(await screen.findByRole('dialog', { name: 'Leave workspace' })).getByRole('button', { name: 'Leave' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'You are not a member of any workspace' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/dashboard');
    expect((await screen.findByText('You have left the workspace.')).closest('[role="status"]')).toBeTruthy();
    await waitFor(() => expect(calls.filter((c) => c.operationName === 'Me')).toHaveLength(2));
  });

  it('joins by an invitation link from there and lands in that workspace', async () => {
    const team = sampleWorkspace({ id: 'w-team', name: 'Acme Team', role: 'AGENT' });
    openWithoutWorkspace('/invitations/tok-1', {
      InvitationPreview: () => ({
        data: {
          invitation: {
            __typename: 'InvitationPreview',
            workspaceName: 'Acme Team',
            email: sampleUser.email,
            role: 'AGENT',
            invitedBy: 'olga@example.com',
            expiresAt: '2025-03-08T10:00:00.000Z',
          },
        },
      }),
      AcceptInvitation: () => ({ data: { acceptInvitation: team } }),
      Workspaces: ({ headers }) =>
        headers['x-workspace-id'] === 'w-team' ? { data: { workspaces: [team], currentWorkspace: team } } : NOT_FOUND,
      Chatbots: () => ({ data: { chatbots: [] } }),
      InboxWaitingCount: () => ({ data: { inboxWaitingCount: 0 } }),
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Accept invitation' }));
    expect(await screen.findByText('Welcome back, Ada')).toBeTruthy();
    expect(screen.getByTestId('workspace-name').textContent).toBe('Acme Team');
    expect(screen.queryByRole('heading', { name: 'You are not a member of any workspace' })).toBeNull();
  });
});
