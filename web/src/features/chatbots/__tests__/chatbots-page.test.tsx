import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { proUser, sampleChatbot } from '../../../test/chatbot-fixtures';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';

function openChatbots(
  chatbots: ReturnType<typeof sampleChatbot>[],
  user: typeof sampleUser | typeof proUser = sampleUser,
  handlers: Record<string, Handler> = {},
) {
  localStorage.setItem('token', 'good');
  const mock = mockLink({ Me: () => ({ data: { me: user } }), Chatbots: () => ({ data: { chatbots } }), ...handlers });
  return { ...mock, ...renderApp('/chatbots', mock.link) };
}

describe('My Chatbots page', () => {
  afterEach(() => vi.restoreAllMocks());

  it('shows a spinner while loading, then the empty state with one Create New Chatbot button', async () => {
    openChatbots([]);
    expect(await screen.findByText('Loading chatbots')).toBeTruthy();
    expect(await screen.findByText('No chatbots yet')).toBeTruthy();
    expect(screen.getByText('Create your first chatbot to get started')).toBeTruthy();
    const create = screen.getAllByRole('link', { name: 'Create New Chatbot' });
    expect(create).toHaveLength(1);
    expect(create[0].getAttribute('href')).toBe('/chatbots/create');
    expect(screen.queryByText(/Free plan/)).toBeNull();
  });

  it('shows each chatbot as a card with its details and links', async () => {
    openChatbots(
      [
        sampleChatbot({ id: 'c1', name: 'support bot', interactions: 12, lastInteraction: '2025-04-02T12:00:00.000Z' }),
        sampleChatbot({ id: 'c2', uniqueId: 'pub-c2', name: 'Sales', isActive: false, profilePicture: '/media/chatbots/s.png' }),
      ],
      proUser,
    );
    const first = (await screen.findByRole('link', { name: 'support bot' })).closest('article') as HTMLElement;
    expect(within(first).getByRole('link', { name: 'support bot' }).getAttribute('href')).toBe('/chatbots/c1');
    expect(within(first).getByText('SU')).toBeTruthy();
    expect(within(first).getByText('Created on Mar 4, 2025')).toBeTruthy();
    expect(within(first).getByText('12 interactions')).toBeTruthy();
    expect(within(first).getByText('Last active Apr 2, 2025')).toBeTruthy();
    expect(within(first).getByText('Active')).toBeTruthy();
    expect(within(first).getByRole('link', { name: 'Edit support bot' }).getAttribute('href')).toBe('/chatbots/c1');
    const chat = within(first).getByRole('link', { name: /Open Chat/ });
    expect(chat.getAttribute('href')).toBe('/chat/pub-c1');
    expect(chat.getAttribute('target')).toBe('_blank');
    expect(chat.getAttribute('rel')).toBe('noopener noreferrer');

    const second = screen.getByRole('link', { name: 'Sales' }).closest('article') as HTMLElement;
    expect(within(second).getByText('Inactive')).toBeTruthy();
    expect(within(second).getByText('0 interactions')).toBeTruthy();
    expect(within(second).queryByText(/Last active/)).toBeNull();
    expect(second.querySelector('img')?.getAttribute('src')).toBe('/media/chatbots/s.png');

    // Pro: the header offers another chatbot and there is no free-plan notice.
    expect(screen.getByRole('link', { name: 'Create New Chatbot' }).getAttribute('href')).toBe('/chatbots/create');
    expect(screen.queryByText(/Free plan/)).toBeNull();
  });

  it('a free user with a chatbot gets no create button but a notice with an upgrade link', async () => {
    openChatbots([sampleChatbot()]);
    expect(await screen.findByText('Free plan: you can have one chatbot. Upgrade to Pro for unlimited chatbots.')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Upgrade to Pro' }).getAttribute('href')).toBe('/pricing');
    expect(screen.queryByRole('link', { name: 'Create New Chatbot' })).toBeNull();
  });

  it('deletes a chatbot after confirmation and drops its card', async () => {
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(true);
    const { calls } = openChatbots([sampleChatbot()], sampleUser, { DeleteChatbot: () => ({ data: { deleteChatbot: true } }) });
    fireEvent.click(await screen.findByRole('button', { name: 'Delete support bot' }));
    expect(confirm).toHaveBeenCalledWith('Are you sure you want to delete this chatbot? This action cannot be undone.');
    expect(await screen.findByText('No chatbots yet')).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'DeleteChatbot')?.variables).toEqual({ id: 'c1' });
  });

  it('does nothing when the confirmation is declined', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(false);
    const { calls } = openChatbots([sampleChatbot()]);
    fireEvent.click(await screen.findByRole('button', { name: 'Delete support bot' }));
    expect(calls.some((c) => c.operationName === 'DeleteChatbot')).toBe(false);
    expect(screen.getByRole('link', { name: 'support bot' })).toBeTruthy();
  });

  it('a failed delete is only logged', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    openChatbots([sampleChatbot()], sampleUser, { DeleteChatbot: () => graphqlError('Chatbot not found', 'NOT_FOUND') });
    fireEvent.click(await screen.findByRole('button', { name: 'Delete support bot' }));
    await waitFor(() => expect(log).toHaveBeenCalledWith('Failed to delete chatbot', 'Chatbot not found'));
    expect(screen.getByRole('link', { name: 'support bot' })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
