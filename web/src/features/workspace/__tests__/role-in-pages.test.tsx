import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { sampleChatbot } from '../../../test/chatbot-fixtures';
import { openAsMember, sampleWorkspace } from '../../../test/workspace-fixtures';

describe('The role in the chatbot list', () => {
  it('hides deleting and creating chatbots from a viewer', async () => {
    openAsMember('/chatbots', sampleWorkspace({ role: 'VIEWER' }), {
      Chatbots: () => ({ data: { chatbots: [sampleChatbot()] } }),
    });
    expect(await screen.findByText('support bot')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('workspace-name').textContent).toBe('Acme Team'));
    expect(screen.queryByRole('button', { name: 'Delete support bot' })).toBeNull();
  });

  it('offers a viewer no chatbot to create in an empty workspace', async () => {
    openAsMember('/chatbots', sampleWorkspace({ role: 'VIEWER' }));
    expect(await screen.findByText('An editor, admin or owner of this workspace can create one.')).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Create New Chatbot' })).toBeNull();
  });
});

describe('The role in the plan and credit', () => {
  it('offers upgrading and topping up to an owner only', async () => {
    openAsMember('/dashboard', sampleWorkspace({ role: 'ADMIN' }));
    expect(await screen.findByRole('heading', { name: 'Account Overview' })).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('workspace-name').textContent).toBe('Acme Team'));
    expect(screen.queryByRole('button', { name: 'Upgrade Plan' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Top up/ })).toBeNull();
  });

  it('shows an owner the buttons', async () => {
    openAsMember('/dashboard', sampleWorkspace({ role: 'OWNER' }));
    await waitFor(() => expect(screen.getByTestId('workspace-name').textContent).toBe('Acme Team'));
    expect(await screen.findByRole('button', { name: 'Upgrade Plan' })).toBeTruthy();
    expect(screen.getByRole('button', { name: /Top up/ })).toBeTruthy();
  });
});
