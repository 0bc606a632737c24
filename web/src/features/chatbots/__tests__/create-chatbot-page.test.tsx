import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { proUser, sampleChatbot } from '../../../test/chatbot-fixtures';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { billingAnswers } from '../../../test/usage-fixtures';
import { renderApp } from '../../../test/render-app';
import { sampleEmbed, sampleVoice } from './detail-page-fixtures';

function openCreatePage(handlers: Record<string, Handler> = {}, user: typeof sampleUser | typeof proUser = sampleUser) {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    ...billingAnswers,
    Me: () => ({ data: { me: user } }),
    Chatbots: () => ({ data: { chatbots: [] } }),
    ...handlers,
  });
  return { ...mock, ...renderApp('/chatbots/create', mock.link) };
}

async function submitName(name: string) {
  fireEvent.change(await screen.findByLabelText('Chatbot Name'), { target: { value: name } });
  fireEvent.click(screen.getByRole('button', { name: 'Create Chatbot' }));
}

describe('Create Chatbot page', () => {
  it('has a back link to /chatbots', async () => {
    openCreatePage();
    expect((await screen.findByRole('link', { name: /Back to My Chatbots/ })).getAttribute('href')).toBe('/chatbots');
  });

  it('requires a name after trimming, without calling the server, and clears the error once text is typed', async () => {
    const { calls } = openCreatePage();
    await submitName('   ');
    expect((await screen.findByRole('alert')).textContent).toBe('Name is required');
    expect(calls.some((c) => c.operationName === 'CreateChatbot')).toBe(false);

    fireEvent.change(screen.getByLabelText('Chatbot Name'), { target: { value: 'S' } });
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('offers an upgrade when the free limit is reached', async () => {
    openCreatePage({
      CreateChatbot: () => ({
        data: null,
        errors: [{ message: 'Free users can only create one chatbot.', extensions: { code: 'LIMIT_REACHED', limitReached: true } }],
      }),
    });
    await submitName('Second bot');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Free users can only create one chatbot.');
    expect(screen.getByRole('link', { name: 'Upgrade to Pro' }).getAttribute('href')).toBe('/pricing');
  });

  it('recognises the limit by the limitReached flag alone', async () => {
    openCreatePage({
      CreateChatbot: () => ({ data: null, errors: [{ message: 'Limit', extensions: { code: 'BAD_USER_INPUT', limitReached: true } }] }),
    });
    await submitName('Second bot');
    expect((await screen.findByRole('alert')).textContent).toContain('Free users can only create one chatbot.');
  });

  it("shows the server's message for other errors, else the default", async () => {
    openCreatePage({ CreateChatbot: () => graphqlError('Name is too long', 'BAD_USER_INPUT') });
    await submitName('x');
    expect((await screen.findByRole('alert')).textContent).toBe('Name is too long');
    expect(screen.queryByRole('link', { name: 'Upgrade to Pro' })).toBeNull();
  });

  it('falls back to "Failed to create chatbot"', async () => {
    openCreatePage({
      CreateChatbot: () => {
        throw new Error('Failed to fetch');
      },
    });
    await submitName('x');
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to create chatbot');
  });

  it('shows "Creating..." while busy, then opens the new chatbot, which is appended to the list', async () => {
    let answer: (value: unknown) => void = () => undefined;
    const created = sampleChatbot({ id: 'new1', name: 'Support Assistant' });
    const { router, calls } = openCreatePage(
      {
        Chatbots: () => ({ data: { chatbots: [sampleChatbot({ id: 'old', name: 'Older bot' })] } }),
        CreateChatbot: () => new Promise((resolve) => (answer = resolve)).then(() => ({ data: { createChatbot: created } })),
        Chatbot: () => ({
          data: {
            chatbot: {
              ...created,
              ...sampleVoice(),
              ...sampleEmbed(),
              knowledgeBase: { __typename: 'KnowledgeBase', text: '', textEntries: [] },
            },
          },
        }),
      },
      proUser,
    );
    await submitName('  Support Assistant  ');
    expect((await screen.findByRole('button', { name: 'Creating...' })).hasAttribute('disabled')).toBe(true);
    expect(calls.find((c) => c.operationName === 'CreateChatbot')?.variables).toEqual({ input: { name: 'Support Assistant' } });

    act(() => answer(undefined));
    await waitFor(() => expect(router.state.location.pathname).toBe('/chatbots/new1'));

    await act(() => router.navigate('/chatbots'));
    await screen.findByText('Older bot');
    const names = within(screen.getByRole('main'))
      .getAllByRole('heading', { level: 2 })
      .map((h) => h.textContent);
    expect(names).toEqual(['Older bot', 'Support Assistant']);
  });
});
