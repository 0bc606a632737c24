import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { accountAnswers } from '../../test/account-fixtures';
import { graphqlError, sampleUser } from '../../test/mock-link';
import { openAsMember, personalWorkspace, sampleWorkspace } from '../../test/workspace-fixtures';

const strict = sampleWorkspace({ requireTwoFactor: true });

describe('a workspace that requires two-factor sign-in', () => {
  it('sends a member without it from the dashboard to set it up, and says why', async () => {
    const { router } = openAsMember('/chatbots', strict, accountAnswers);
    await waitFor(() => expect(router.state.location.pathname).toBe('/account'));
    expect(router.state.location.hash).toBe('#two-factor');
    expect((await screen.findByRole('alert')).textContent).toBe('Acme Team requires two-factor sign-in. Set it up below to continue.');
  });

  it('knows the workspace from the list when the gateway refuses it until then', async () => {
    const { router } = openAsMember('/dashboard', strict, {
      ...accountAnswers,
      Workspaces: () =>
        graphqlError('This workspace requires two-factor sign-in. Turn it on in your account to continue.', 'TWO_FACTOR_REQUIRED'),
      WorkspaceList: () => ({ data: { workspaces: [personalWorkspace, strict] } }),
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/account'));
  });

  it('lets a member who has it through', async () => {
    const { router } = openAsMember('/dashboard', strict, { Me: () => ({ data: { me: { ...sampleUser, twoFactorEnabled: true } } }) });
    expect(await screen.findByText('Welcome back, Ada')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/dashboard');
  });
});
