import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sampleChatbot } from '../../../test/chatbot-fixtures';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { billingOptions, dashboardUsage } from '../../../test/usage-fixtures';

function openDashboard(handlers: Record<string, Handler>) {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    Me: () => ({ data: { me: sampleUser } }),
    Chatbots: () => ({ data: { chatbots: [] } }),
    BillingOptions: () => ({ data: { billingOptions } }),
    ...handlers,
  });
  return { ...mock, ...renderApp('/dashboard', mock.link) };
}

function card() {
  return screen.getByRole('heading', { name: 'Usage Statistics' }).closest('.rounded-2xl') as HTMLElement;
}

describe('Dashboard: Usage Statistics', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('asks for this calendar month, from the 1st at 00:00 local time up to now', async () => {
    const now = new Date(2025, 5, 15, 12, 0, 0);
    vi.useFakeTimers({ now, toFake: ['Date'] });
    const { calls } = openDashboard({ DashboardUsage: () => ({ data: { usage: dashboardUsage('0', '1') } }) });
    await screen.findByRole('progressbar', { name: 'Credit used' });
    expect(calls.filter((c) => c.operationName === 'DashboardUsage').map((c) => c.variables)).toEqual([
      { startDate: new Date(2025, 5, 1, 0, 0, 0).toISOString(), endDate: now.toISOString() },
    ]);
  });

  it('shows the balance and the credit used to 4 decimals, with a green bar up to 30 %', async () => {
    openDashboard({ DashboardUsage: () => ({ data: { usage: dashboardUsage('0.00012', '0.5') } }) });
    const bar = await screen.findByRole('progressbar', { name: 'Credit used' });
    expect(within(card()).getByText('$0.5000')).toBeTruthy();
    expect(within(card()).getByText('$0.0001')).toBeTruthy();
    expect(bar.getAttribute('aria-valuenow')).toBe('0');
    expect(bar.getAttribute('data-tone')).toBe('green');
    expect(within(card()).getByText('0% of your credit balance used this month')).toBeTruthy();
    expect(
      within(card())
        .getByRole('link', { name: /Usage Details/ })
        .getAttribute('href'),
    ).toBe('/usage');
  });

  it.each([
    ['0.15', '0.5', '30', 'green'],
    ['0.155', '0.5', '31', 'yellow'],
    ['0.35', '0.5', '70', 'yellow'],
    ['0.36', '0.5', '72', 'red'],
    ['2', '0.5', '100', 'red'],
    ['0.005', '0', '0', 'green'],
  ])('colours the bar by percent used: %s of %s is %s percent, %s', async (cost, balance, percent, tone) => {
    openDashboard({ DashboardUsage: () => ({ data: { usage: dashboardUsage(cost, balance) } }) });
    const bar = await screen.findByRole('progressbar', { name: 'Credit used' });
    expect(bar.getAttribute('aria-valuenow')).toBe(percent);
    expect(bar.getAttribute('data-tone')).toBe(tone);
    expect((bar.firstElementChild as HTMLElement).style.width).toBe(`${percent}%`);
  });

  it('shows a spinner while loading, and nothing once loading failed (only logged)', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    let fail: ((value: ReturnType<Handler>) => void) | undefined;
    openDashboard({ DashboardUsage: () => new Promise((resolve) => (fail = resolve)) });
    expect(await screen.findByText('Loading usage statistics')).toBeTruthy();
    // The request reaches the link a moment after the page shows it is waiting.
    await waitFor(() => expect(fail).toBeDefined());
    fail!(graphqlError('Billing is unavailable', 'UNAVAILABLE'));
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'Usage Statistics' })).toBeNull());
    expect(screen.queryByText('Loading usage statistics')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(logged).toHaveBeenCalledWith('Failed to load usage statistics', 'Billing is unavailable');
    expect(screen.getByRole('heading', { name: 'Account Overview' })).toBeTruthy();
  });

  it("shows each chatbot's cost this month to 4 decimals, 0.0000 without usage", async () => {
    openDashboard({
      Chatbots: () => ({ data: { chatbots: [sampleChatbot(), sampleChatbot({ id: 'c2', name: 'sales bot' })] } }),
      DashboardUsage: () => ({ data: { usage: dashboardUsage('0.0123', '2', [['c1', '0.01234']]) } }),
    });
    const tile = (name: string) => screen.getByRole('link', { name }).closest('li') as HTMLElement;
    await waitFor(() => expect(within(tile('support bot')).getByText('$0.0123')).toBeTruthy());
    expect(within(tile('sales bot')).getByText('$0.0000')).toBeTruthy();
  });

  it('asks for the user again on opening, so a changed plan or balance shows', async () => {
    let meCalls = 0;
    const { calls } = openDashboard({
      // The session's `me` says free; by the time the dashboard opens the plan is pro.
      Me: () => ({ data: { me: { ...sampleUser, subscription: ++meCalls === 1 ? 'free' : 'pro' } } }),
      DashboardUsage: () => ({ data: { usage: dashboardUsage('0', '1') } }),
    });
    expect(await screen.findByText('pro Plan')).toBeTruthy();
    expect(calls.filter((c) => c.operationName === 'Me')).toHaveLength(2);
  });
});
