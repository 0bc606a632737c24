import { fireEvent, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { graphqlError, sampleUser, type Handler } from '../../../test/mock-link';
import { openAsMember, personalWorkspace, sampleMember, sampleWorkspace, section } from '../../../test/workspace-fixtures';

function openSettings(setRequireTwoFactor: Handler) {
  let workspace = sampleWorkspace({ role: 'ADMIN' });
  const opened = openAsMember('/workspace/members', workspace, {
    Me: () => ({ data: { me: { ...sampleUser, twoFactorEnabled: true } } }),
    Members: () => ({ data: { members: [sampleMember({ userId: sampleUser.id, email: sampleUser.email, role: 'ADMIN' })] } }),
    Invitations: () => ({ data: { invitations: [] } }),
    Workspaces: () => ({ data: { workspaces: [personalWorkspace, workspace], currentWorkspace: workspace } }),
    SetRequireTwoFactor: (operation) => {
      const answer = setRequireTwoFactor(operation);
      if (!('errors' in answer)) workspace = { ...workspace, requireTwoFactor: Boolean(operation.variables.enabled) };
      return answer;
    },
  });
  return opened;
}

describe('Workspace settings: require two-factor sign-in', () => {
  it('turns the requirement on and shows it', async () => {
    const { calls } = openSettings(({ variables }) => ({
      data: { setRequireTwoFactor: sampleWorkspace({ role: 'ADMIN', requireTwoFactor: Boolean(variables.enabled) }) },
    }));
    const settings = await section('Workspace settings');
    const toggle = await settings.findByRole('switch', { name: 'Require two-factor sign-in for members' });
    expect(toggle.getAttribute('aria-checked')).toBe('false');
    fireEvent.click(toggle);
    await waitFor(() => expect(toggle.getAttribute('aria-checked')).toBe('true'));
    expect(calls.find((c) => c.operationName === 'SetRequireTwoFactor')?.variables).toEqual({ enabled: true });
  });

  it("shows the server's refusal", async () => {
    openSettings(() => graphqlError('Turn on two-factor sign-in for your own account first.', 'BAD_USER_INPUT'));
    const settings = await section('Workspace settings');
    fireEvent.click(await settings.findByRole('switch', { name: 'Require two-factor sign-in for members' }));
    expect((await settings.findByRole('alert')).textContent).toBe('Turn on two-factor sign-in for your own account first.');
  });
});
