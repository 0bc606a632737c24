import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { graphqlError, mockLink, sampleUser } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { billingAnswers } from '../../../test/usage-fixtures';
import { personalWorkspace, sampleWorkspace, workspacesAnswer } from '../../../test/workspace-fixtures';

const preview = {
  __typename: 'InvitationPreview' as const,
  workspaceName: 'Acme Team',
  email: 'ada@example.com',
  role: 'AGENT' as const,
  invitedBy: 'olga@example.com',
  expiresAt: '2025-03-08T10:00:00.000Z',
};

describe('Invitation page', () => {
  it('shows a signed-out visitor what they are invited to, with sign-up and sign-in that come back here', async () => {
    const mock = mockLink({ InvitationPreview: () => ({ data: { invitation: preview } }) });
    renderApp('/invitations/tok-123', mock.link);
    expect(await screen.findByRole('heading', { level: 1, name: 'Join Acme Team' })).toBeTruthy();
    expect(screen.getByText('Agent')).toBeTruthy();
    expect(screen.getAllByText('olga@example.com').length).toBeGreaterThan(0);
    expect(document.title).toBe('Invitation — Parley');
    expect(screen.getByRole('link', { name: 'Sign up' }).getAttribute('href')).toBe('/register?next=%2Finvitations%2Ftok-123');
    expect(screen.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/login?next=%2Finvitations%2Ftok-123');
    expect(mock.calls.find((c) => c.operationName === 'InvitationPreview')?.variables).toEqual({ token: 'tok-123' });
  });

  it('shows the server’s reason for an expired, used or forged link', async () => {
    const mock = mockLink({ InvitationPreview: () => graphqlError('This invitation has expired. Ask for a new one.', 'NOT_FOUND') });
    renderApp('/invitations/old', mock.link);
    expect(await screen.findByRole('heading', { name: 'This invitation cannot be used' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toBe('This invitation has expired. Ask for a new one.');
  });

  it('signing in from the link comes back to it', async () => {
    const mock = mockLink({
      ...billingAnswers,
      InvitationPreview: () => ({ data: { invitation: preview } }),
      Login: () => ({ data: { login: { __typename: 'AuthPayload', token: 't2', user: sampleUser } } }),
      Workspaces: workspacesAnswer(personalWorkspace, []),
      Chatbots: () => ({ data: { chatbots: [] } }),
    });
    const { router } = renderApp('/login?next=%2Finvitations%2Ftok-123', mock.link);
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'ada@example.com' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'secret1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/invitations/tok-123'));
    expect(await screen.findByRole('button', { name: 'Accept invitation' })).toBeTruthy();
  });

  it('never follows a next that leaves the site', async () => {
    const mock = mockLink({
      ...billingAnswers,
      Login: () => ({ data: { login: { __typename: 'AuthPayload', token: 't2', user: sampleUser } } }),
      Workspaces: workspacesAnswer(personalWorkspace, []),
      Chatbots: () => ({ data: { chatbots: [] } }),
    });
    const { router } = renderApp('/login?next=%2F%2Fevil.example.com', mock.link);
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'ada@example.com' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'secret1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('accepting joins the workspace and switches to it', async () => {
    localStorage.setItem('token', 'good');
    const team = sampleWorkspace({ role: 'AGENT' });
    let joined = false;
    const mock = mockLink({
      ...billingAnswers,
      Me: () => ({ data: { me: sampleUser } }),
      Chatbots: () => ({ data: { chatbots: [] } }),
      InvitationPreview: () => ({ data: { invitation: preview } }),
      Workspaces: (op) => workspacesAnswer(joined ? team : personalWorkspace, joined ? [personalWorkspace] : [])(op),
      AcceptInvitation: () => {
        joined = true;
        return { data: { acceptInvitation: team } };
      },
    });
    const { router } = renderApp('/invitations/tok-123', mock.link);
    fireEvent.click(await screen.findByRole('button', { name: 'Accept invitation' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(mock.calls.find((c) => c.operationName === 'AcceptInvitation')?.variables).toEqual({ token: 'tok-123' });
    expect(localStorage.getItem('workspace')).toBe('w-team');
    expect((await screen.findByTestId('workspace-name')).textContent).toBe('Acme Team');
  });

  it('tells someone signed in with another email that the invitation is not theirs', async () => {
    localStorage.setItem('token', 'good');
    const mock = mockLink({
      ...billingAnswers,
      Me: () => ({ data: { me: { ...sampleUser, email: 'someone@example.com' } } }),
      Chatbots: () => ({ data: { chatbots: [] } }),
      Workspaces: workspacesAnswer(personalWorkspace, []),
      InvitationPreview: () => ({ data: { invitation: preview } }),
      Logout: () => ({ data: { logout: true } }),
    });
    const { router } = renderApp('/invitations/tok-123', mock.link);
    expect(await screen.findByText(/This invitation is for ada@example.com, and you are signed in as someone@example.com/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Accept invitation' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Sign in with another account' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(router.state.location.search).toBe('?next=%2Finvitations%2Ftok-123');
    expect(localStorage.getItem('token')).toBeNull();
  });
});
