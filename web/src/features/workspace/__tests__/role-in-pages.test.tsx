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
});
