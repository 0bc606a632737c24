import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { proUser, sampleChatbot } from '../../../test/chatbot-fixtures';
import { mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { billingOptions, dashboardUsage } from '../../../test/usage-fixtures';

function openDashboard(
  chatbots: ReturnType<typeof sampleChatbot>[],
  user: typeof sampleUser | typeof proUser = sampleUser,
  handlers: Record<string, Handler> = {},
) {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    Me: () => ({ data: { me: user } }),
    Chatbots: () => ({ data: { chatbots } }),
    DashboardUsage: () => ({ data: { usage: dashboardUsage('0.5', '2', [['c1', '0.12345']]) } }),
    BillingOptions: () => ({ data: { billingOptions } }),
    ...handlers,
  });
  return { ...mock, ...renderApp('/dashboard', mock.link) };
}

function section() {
  return screen.getByRole('heading', { name: 'My Chatbots' }).closest('.rounded-2xl') as HTMLElement;
}

describe('Dashboard: My Chatbots', () => {
  afterEach(() => vi.restoreAllMocks());

  it('shows the empty state with a single create button', async () => {
    openDashboard([]);
    expect(await screen.findByText('No chatbots yet')).toBeTruthy();
    expect(screen.getByText('Create your first chatbot to get started')).toBeTruthy();
    const create = within(section()).getAllByRole('link', { name: /Create New/ });
    expect(create.map((l) => [l.textContent, l.getAttribute('href')])).toEqual([['Create New Chatbot', '/chatbots/create']]);
  });

  it('lists chatbots with avatar, dates, interactions, the cost this month and edit/delete', async () => {
    openDashboard([sampleChatbot({ name: 'support bot', interactions: 1, lastInteraction: '2025-04-02T12:00:00.000Z' })], proUser);
    const name = await screen.findByRole('link', { name: 'support bot' });
    const tile = name.closest('li') as HTMLElement;
    expect(name.getAttribute('href')).toBe('/chatbots/c1');
    expect(within(tile).getByText('SU')).toBeTruthy();
    expect(within(tile).getByText('Created on Mar 4, 2025')).toBeTruthy();
    expect(within(tile).getByText('1 interaction')).toBeTruthy();
    expect(within(tile).getByText('Last active Apr 2, 2025')).toBeTruthy();
    expect(within(tile).getByText('Cost this month')).toBeTruthy();
    expect(await within(tile).findByText('$0.1235')).toBeTruthy();
    expect(within(tile).getByRole('link', { name: 'Edit support bot' }).getAttribute('href')).toBe('/chatbots/c1');
    expect(within(section()).getByRole('link', { name: 'Create New' }).getAttribute('href')).toBe('/chatbots/create');
    expect(within(section()).getByRole('link', { name: 'View all' }).getAttribute('href')).toBe('/chatbots');
  });

  it('does not offer a second chatbot to a free user', async () => {
    openDashboard([sampleChatbot()]);
    await screen.findByRole('link', { name: 'support bot' });
    expect(within(section()).queryByRole('link', { name: /Create New/ })).toBeNull();
  });

  it('deletes from the dashboard after confirmation', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    openDashboard([sampleChatbot()], sampleUser, { DeleteChatbot: () => ({ data: { deleteChatbot: true } }) });
    fireEvent.click(await screen.findByRole('button', { name: 'Delete support bot' }));
    expect(await screen.findByText('No chatbots yet')).toBeTruthy();
  });
});
