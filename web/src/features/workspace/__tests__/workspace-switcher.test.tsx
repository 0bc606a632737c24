import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { openAsMember, personalWorkspace, sampleWorkspace, workspacesAnswer } from '../../../test/workspace-fixtures';

function switcher() {
  return screen.findByRole('button', { name: /^Workspace:/ });
}

describe('Workspace switcher', () => {
  it('shows the current workspace in the header and on the dashboard, and lists every workspace with its role', async () => {
    openAsMember('/dashboard');
    fireEvent.click(await switcher());
    expect((await switcher()).textContent).toContain('Acme Team');
    const team = screen.getByRole('button', { name: /^Acme Team/ });
    expect(team.getAttribute('aria-current')).toBe('true');
    expect(team.textContent).toContain('Owner');
    expect(screen.getByRole('button', { name: /^Ada/ }).getAttribute('aria-current')).toBeNull();
    expect(screen.getByTestId('workspace-name').textContent).toBe('Acme Team');
    expect(screen.getByRole('link', { name: 'Members' }).getAttribute('href')).toBe('/workspace/members');
    expect(screen.getByRole('link', { name: 'Audit log' }).getAttribute('href')).toBe('/workspace/audit-log');
  });

  it('sends the chosen workspace on every request, and switching reloads everything for the other one on the dashboard', async () => {
    const { calls, router } = openAsMember('/usage', sampleWorkspace(), {
      UsageReport: () => ({ data: null, errors: [{ message: 'not in this test', extensions: { code: 'NOT_FOUND' } }] }),
    });
    await waitFor(() => expect(calls.some((c) => c.operationName === 'Chatbots')).toBe(true));
    const chatbotsBefore = calls.find((c) => c.operationName === 'Chatbots');
    expect(chatbotsBefore?.headers['x-workspace-id']).toBe('w-team');
    // The session's own question is about the person, not a workspace, yet carries it like every request.
    expect(calls.find((c) => c.operationName === 'Me')?.headers.authorization).toBe('Bearer good');

    fireEvent.click(await switcher());
    const before = calls.length;
    fireEvent.click(screen.getByRole('button', { name: /^Ada/ }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(localStorage.getItem('workspace')).toBeNull();
    await waitFor(() => expect(calls.slice(before).some((c) => c.operationName === 'Chatbots')).toBe(true));
    // The personal workspace is the one without the header, as before workspaces.
    for (const call of calls.slice(before)) expect(call.headers['x-workspace-id']).toBeUndefined();
    await waitFor(async () => expect((await switcher()).textContent).toContain('Ada'));
  });

  it('falls back to the personal workspace when the stored one is gone', async () => {
    localStorage.setItem('workspace', 'w-removed');
    const { calls } = openAsMember('/dashboard', personalWorkspace, { Workspaces: workspacesAnswer(personalWorkspace, []) });
    await waitFor(async () => expect((await switcher()).textContent).toContain('Ada'));
    expect(localStorage.getItem('workspace')).toBeNull();
    const asked = calls.filter((c) => c.operationName === 'Workspaces');
    expect(asked[0].headers['x-workspace-id']).toBe('w-removed');
    expect(asked.at(-1)?.headers['x-workspace-id']).toBeUndefined();
  });

  it('keeps a workspace chosen in another tab while its list was being asked for, for the next load', async () => {
    const created = sampleWorkspace({ id: 'w-new', name: 'Support crew' });
    let asked = 0;
    const { calls } = openAsMember('/dashboard', personalWorkspace, {
      Workspaces: (op) => {
        // The other tab creates the workspace and switches to it after this tab's first list was read.
        if (asked++ === 0) {
          localStorage.setItem('workspace', created.id);
          return workspacesAnswer(personalWorkspace, [])(op);
        }
        return workspacesAnswer(personalWorkspace, [created])(op);
      },
    });
    await waitFor(async () => expect((await switcher()).textContent).toContain('Ada'));
    expect(localStorage.getItem('workspace')).toBe('w-new');
    expect(calls.filter((c) => c.operationName === 'Workspaces')).toHaveLength(1);
  });

  it('creates a workspace in a small dialog and switches to it', async () => {
    const created = sampleWorkspace({ id: 'w-new', name: 'Support crew', memberCount: 1, seatLimit: 1 });
    let known = [personalWorkspace];
    const { calls, router } = openAsMember('/chatbots', personalWorkspace, {
      Workspaces: (op) =>
        workspacesAnswer(
          personalWorkspace,
          known.filter((w) => w !== personalWorkspace),
        )(op),
      CreateWorkspace: () => {
        known = [personalWorkspace, created];
        return { data: { createWorkspace: created } };
      },
    });
    fireEvent.click(await switcher());
    fireEvent.click(screen.getByRole('button', { name: 'Create workspace' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Create workspace' }));
    fireEvent.click(dialog.getByRole('button', { name: 'Create workspace' }));
    expect((await dialog.findByRole('alert')).textContent).toBe('Please enter a name for the workspace.');

    fireEvent.change(dialog.getByLabelText('Workspace name'), { target: { value: '  Support crew ' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Create workspace' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(calls.find((c) => c.operationName === 'CreateWorkspace')?.variables).toEqual({ name: 'Support crew' });
    expect(localStorage.getItem('workspace')).toBe('w-new');
    await waitFor(async () => expect((await switcher()).textContent).toContain('Support crew'));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('is not shown signed out, and signing out forgets the choice', async () => {
    const { router } = openAsMember('/dashboard', sampleWorkspace(), { Logout: () => ({ data: { logout: true } }) });
    await switcher();
    fireEvent.click(screen.getByRole('button', { name: 'Logout' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(screen.queryByRole('button', { name: /^Workspace:/ })).toBeNull();
    expect(localStorage.getItem('workspace')).toBeNull();
  });
});
