import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sampleAnalytics } from '../../../test/analytics-fixtures';
import { proUser, sampleChatbot } from '../../../test/chatbot-fixtures';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { billingAnswers } from '../../../test/usage-fixtures';

class FixedSizeObserver {
  private readonly callback: ResizeObserverCallback;
  constructor(callback: ResizeObserverCallback) {
    this.callback = callback;
  }
  observe(target: Element) {
    this.callback(
      [{ target, contentRect: { width: 600, height: 180 } } as unknown as ResizeObserverEntry],
      this as unknown as ResizeObserver,
    );
  }
  unobserve() {}
  disconnect() {}
}

function openDashboard(user: typeof sampleUser | typeof proUser, handlers: Record<string, Handler> = {}) {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    ...billingAnswers,
    Me: () => ({ data: { me: user } }),
    Chatbots: () => ({ data: { chatbots: [sampleChatbot({ openUnansweredQuestions: 2 })] } }),
    AnalyticsSummary: () => ({ data: { analyticsSummary: sampleAnalytics({ full: user.subscription === 'pro' }) } }),
    ...handlers,
  });
  return { ...mock, ...renderApp('/dashboard', mock.link) };
}

const card = () => screen.getByRole('heading', { name: 'Analytics' }).closest('.rounded-2xl') as HTMLElement;

describe('Dashboard: analytics summary', () => {
  beforeEach(() => vi.stubGlobal('ResizeObserver', FixedSizeObserver));
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('shows a pro owner the last 30 days across all chatbots with a chart', async () => {
    vi.useFakeTimers({ now: new Date('2025-06-30T12:00:00Z'), toFake: ['Date'] });
    const { calls } = openDashboard(proUser);
    await screen.findByRole('heading', { name: 'Analytics' });
    // The card's heading may be on screen before its query is sent (a loaded machine): wait for both.
    await waitFor(() =>
      expect(calls.find((c) => c.operationName === 'AnalyticsSummary')?.variables).toEqual({
        startDate: '2025-06-01',
        endDate: '2025-06-30',
      }),
    );
    expect(await within(card()).findByRole('region', { name: 'Conversations' })).toBeTruthy();
    expect(within(within(card()).getByRole('region', { name: 'Conversations' })).getByText('12')).toBeTruthy();
    await waitFor(() => expect(card().querySelector('svg.recharts-surface')).not.toBeNull());
    expect(within(card()).queryByRole('link', { name: 'Upgrade to Pro' })).toBeNull();
  });

  it('shows a free owner the totals and an upgrade hint', async () => {
    openDashboard(sampleUser);
    await screen.findByRole('heading', { name: 'Analytics' });
    // The heading may be on screen before the figures (a loaded machine): wait for them.
    expect((await within(card()).findByRole('region', { name: 'Messages' })).textContent).toContain('1,234');
    expect(within(card()).getByRole('link', { name: 'Upgrade to Pro' }).getAttribute('href')).toBe('/pricing');
    expect(card().querySelector('figure')).toBeNull();
  });

  it('leaves the card out when the summary cannot be loaded (only logged)', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    openDashboard(proUser, { AnalyticsSummary: () => graphqlError('Service temporarily unavailable', 'UNAVAILABLE') });
    await waitFor(() => expect(logged).toHaveBeenCalledWith('Failed to load the analytics summary', 'Service temporarily unavailable'));
    expect(screen.queryByRole('heading', { name: 'Analytics' })).toBeNull();
  });

  it('shows the open unanswered counter on the chatbot tile', async () => {
    openDashboard(proUser);
    const tile = (await screen.findByRole('link', { name: 'support bot' })).closest('li') as HTMLElement;
    expect(within(tile).getByText('2 open unanswered questions')).toBeTruthy();
  });
});
