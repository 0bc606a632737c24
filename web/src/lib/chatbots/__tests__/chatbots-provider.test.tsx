import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sampleChatbot } from '../../../test/chatbot-fixtures';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { billingAnswers } from '../../../test/usage-fixtures';
import { renderApp } from '../../../test/render-app';

function chatbotsAnswer(...chatbots: ReturnType<typeof sampleChatbot>[]): Handler {
  return () => ({ data: { chatbots } });
}

describe('ChatbotsProvider (the shared chatbot list)', () => {
  afterEach(() => vi.useRealTimers());

  it('does not ask for chatbots while signed out', async () => {
    const mock = mockLink({ Chatbots: chatbotsAnswer(sampleChatbot()) });
    renderApp('/', mock.link);
    await act(() => new Promise((r) => setTimeout(r, 20)));
    expect(mock.calls.filter((c) => c.operationName === 'Chatbots')).toHaveLength(0);
  });

  it('is shared: the dashboard and /chatbots show the same list, fetched at most once per 2 s', async () => {
    localStorage.setItem('token', 'good');
    const mock = mockLink({
      ...billingAnswers,
      Me: () => ({ data: { me: sampleUser } }),
      Chatbots: chatbotsAnswer(sampleChatbot({ name: 'Helper' })),
    });
    const { router } = renderApp('/dashboard', mock.link);
    expect(await screen.findByText('Helper')).toBeTruthy();
    const fetches = () => mock.calls.filter((c) => c.operationName === 'Chatbots').length;
    // The provider's load and the dashboard's refresh on mount overlap: one request.
    expect(fetches()).toBe(1);

    await act(() => router.navigate('/chatbots'));
    expect(await screen.findByRole('heading', { name: 'My Chatbots', level: 1 })).toBeTruthy();
    expect(screen.getByText('Helper')).toBeTruthy();
    // Opening /chatbots inside the window asks again only once the 2 s have passed.
    expect(fetches()).toBe(1);
    await waitFor(() => expect(fetches()).toBe(2), { timeout: 3000 });
  });

  it('shows the server message, else "Failed to fetch chatbots"', async () => {
    localStorage.setItem('token', 'good');
    renderApp(
      '/chatbots',
      mockLink({
        Me: () => ({ data: { me: sampleUser } }),
        Chatbots: () => {
          throw new Error('Failed to fetch');
        },
      }).link,
    );
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to fetch chatbots');
  });

  it("shows the server's own message when it sends one", async () => {
    localStorage.setItem('token', 'good');
    renderApp(
      '/chatbots',
      mockLink({
        Me: () => ({ data: { me: sampleUser } }),
        Chatbots: () => graphqlError('Service temporarily unavailable. Please try again.', 'SERVICE_UNAVAILABLE'),
      }).link,
    );
    expect((await screen.findByRole('alert')).textContent).toBe('Service temporarily unavailable. Please try again.');
  });

  it('is cleared on logout, and the next user gets their own list', async () => {
    localStorage.setItem('token', 'good');
    let owner = 'Ada';
    const mock = mockLink({
      ...billingAnswers,
      Me: () => ({ data: { me: sampleUser } }),
      Logout: () => ({ data: { logout: true } }),
      Chatbots: () => ({ data: { chatbots: [sampleChatbot({ id: owner, name: `${owner}'s bot` })] } }),
      Login: () => ({
        data: {
          login: { __typename: 'AuthPayload', token: 't2', user: { ...sampleUser, id: 'u2', email: 'bob@example.com' } },
        },
      }),
    });
    const { router } = renderApp('/chatbots', mock.link);
    expect(await screen.findByText("Ada's bot")).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Logout' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(screen.queryByText("Ada's bot")).toBeNull();

    owner = 'Bob';
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'bob@example.com' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'secret1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(await screen.findByText("Bob's bot")).toBeTruthy();
    expect(screen.queryByText("Ada's bot")).toBeNull();
  });
});
