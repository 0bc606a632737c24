import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rememberAccountBeforeCheckout } from '../../../lib/billing/account-before-checkout';
import { CHECKOUT_FAILED_MESSAGE } from '../../../lib/billing/use-checkout';
import { redirectTo } from '../../../lib/redirect';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { billingOptions, dashboardUsage } from '../../../test/usage-fixtures';
import { CHECKOUT_APPLIED_MESSAGE, CHECKOUT_CONFIRMING_MESSAGE, CHECKOUT_POLL_ATTEMPTS } from '../hooks/use-fresh-account';

vi.mock('../../../lib/redirect', () => ({ redirectTo: vi.fn() }));

function openDashboard(handlers: Record<string, Handler>, path = '/dashboard') {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    Me: () => ({ data: { me: sampleUser } }),
    Chatbots: () => ({ data: { chatbots: [] } }),
    DashboardUsage: () => ({ data: { usage: dashboardUsage('0', '0.01') } }),
    BillingOptions: () => ({ data: { billingOptions } }),
    CreateCustomer: () => ({ data: { createCustomer: true } }),
    CreateCheckoutSession: () => ({
      data: { createCheckoutSession: { __typename: 'CheckoutSession', url: 'http://localhost/checkout/cs_1' } },
    }),
    ...handlers,
  });
  return { ...mock, ...renderApp(path, mock.link) };
}

const ORIGIN = window.location.origin;

describe('Dashboard checkout', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    vi.mocked(redirectTo).mockClear();
  });

  it('Upgrade Plan creates the customer, then the pro checkout, then goes there', async () => {
    const { calls } = openDashboard({});
    fireEvent.click(await screen.findByRole('button', { name: 'Upgrade Plan' }));
    await waitFor(() => expect(redirectTo).toHaveBeenCalledWith('http://localhost/checkout/cs_1'));
    const billing = calls.filter((c) => c.operationName?.startsWith('Create'));
    expect(billing.map((c) => c.operationName)).toEqual(['CreateCustomer', 'CreateCheckoutSession']);
    expect(billing[1]?.variables).toEqual({
      input: {
        mode: 'subscription',
        lineItems: [{ price: 'pro', quantity: 1 }],
        metadata: { type: 'subscription', plan: 'pro' },
        successUrl: `${ORIGIN}/dashboard?checkout=success`,
        cancelUrl: window.location.href,
      },
    });
    // Leaving for the checkout: the button keeps saying so.
    expect((screen.getByRole('button', { name: 'Processing...' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('the top-up is a one-time payment for credit, labelled with the amount', async () => {
    const { calls } = openDashboard({});
    fireEvent.click(await screen.findByRole('button', { name: 'Top up $5.00' }));
    await waitFor(() => expect(redirectTo).toHaveBeenCalledTimes(1));
    expect(calls.find((c) => c.operationName === 'CreateCheckoutSession')?.variables).toEqual({
      input: {
        mode: 'payment',
        lineItems: [{ price: 'credit_topup', quantity: 1 }],
        metadata: { type: 'credit_topup' },
        successUrl: `${ORIGIN}/dashboard?checkout=success`,
        cancelUrl: window.location.href,
      },
    });
  });

  it('says "Top up credit" when the billing options could not be loaded', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    openDashboard({ BillingOptions: () => graphqlError('down', 'UNAVAILABLE') });
    expect(await screen.findByRole('button', { name: 'Top up credit' })).toBeTruthy();
  });

  it('shows "Processing..." and disables the buttons while the checkout is created; a second click does nothing', async () => {
    let answer: ((value: ReturnType<Handler>) => void) | undefined;
    const { calls } = openDashboard({ CreateCustomer: () => new Promise((resolve) => (answer = resolve)) });
    const upgrade = await screen.findByRole('button', { name: 'Upgrade Plan' });
    fireEvent.click(upgrade);
    fireEvent.click(upgrade);
    const processing = (await screen.findByRole('button', { name: 'Processing...' })) as HTMLButtonElement;
    expect(processing.disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Top up $5.00' }) as HTMLButtonElement).disabled).toBe(true);
    // The request reaches the link a moment after the page shows it is waiting.
    await waitFor(() => expect(answer).toBeDefined());
    answer!({ data: { createCustomer: true } });
    await waitFor(() => expect(redirectTo).toHaveBeenCalledTimes(1));
    expect(calls.filter((c) => c.operationName === 'CreateCustomer')).toHaveLength(1);
  });

  it.each([
    ['the customer', { CreateCustomer: () => graphqlError('Stripe is unavailable', 'UNAVAILABLE') }],
    ['the session', { CreateCheckoutSession: () => graphqlError('Stripe is unavailable', 'UNAVAILABLE') }],
    ['the network', { CreateCheckoutSession: () => Promise.reject(new Error('offline')) }],
  ])('alerts "Failed to initiate checkout. Please try again." when %s fails, and the buttons work again', async (_, handlers) => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => undefined);
    openDashboard(handlers);
    fireEvent.click(await screen.findByRole('button', { name: 'Upgrade Plan' }));
    await waitFor(() => expect(alert).toHaveBeenCalledWith(CHECKOUT_FAILED_MESSAGE));
    expect(CHECKOUT_FAILED_MESSAGE).toBe('Failed to initiate checkout. Please try again.');
    expect(redirectTo).not.toHaveBeenCalled();
    expect((screen.getByRole('button', { name: 'Upgrade Plan' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('has no Upgrade Plan for a pro user', async () => {
    openDashboard({ Me: () => ({ data: { me: { ...sampleUser, subscription: 'pro' } } }) });
    await screen.findByText('pro Plan');
    expect(screen.queryByRole('button', { name: 'Upgrade Plan' })).toBeNull();
  });
});

describe('Dashboard after a paid checkout (?checkout=success)', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('asks again until the plan changed, then says so and drops the query string', async () => {
    rememberAccountBeforeCheckout(sampleUser);
    let meCalls = 0;
    const { calls, router } = openDashboard(
      {
        // The Stripe event lands while the dashboard is asking: the third answer is pro.
        Me: () => ({ data: { me: { ...sampleUser, subscription: ++meCalls >= 3 ? 'pro' : 'free' } } }),
      },
      '/dashboard?checkout=success',
    );
    expect(await screen.findByText(CHECKOUT_CONFIRMING_MESSAGE)).toBeTruthy();
    expect(await screen.findByText(CHECKOUT_APPLIED_MESSAGE, undefined, { timeout: 8000 })).toBeTruthy();
    expect(screen.getByText('pro Plan')).toBeTruthy();
    expect(screen.queryByText(CHECKOUT_CONFIRMING_MESSAGE)).toBeNull();
    expect(router.state.location.search).toBe('');
    // The usage (balance and spend) was asked for again too.
    expect(calls.filter((c) => c.operationName === 'DashboardUsage').length).toBeGreaterThan(1);
    expect(sessionStorage.length).toBe(0);
  });

  it('sees a top-up as a changed balance', async () => {
    rememberAccountBeforeCheckout(sampleUser);
    let meCalls = 0;
    openDashboard(
      {
        Me: () => ({
          data: { me: { ...sampleUser, usage: { ...sampleUser.usage, creditBalance: ++meCalls >= 2 ? '5.01' : '0.01' } } },
        }),
      },
      '/dashboard?checkout=success',
    );
    expect(await screen.findByText(CHECKOUT_APPLIED_MESSAGE, undefined, { timeout: 8000 })).toBeTruthy();
    expect(screen.getByText('$5.0100')).toBeTruthy();
  });

  it('stops after about ten seconds when nothing changes', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    rememberAccountBeforeCheckout(sampleUser);
    const { calls, router } = openDashboard({}, '/dashboard?checkout=success');
    expect(await screen.findByText(CHECKOUT_CONFIRMING_MESSAGE)).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(12_000));
    await waitFor(() => expect(screen.queryByText(CHECKOUT_CONFIRMING_MESSAGE)).toBeNull());
    expect(screen.queryByText(CHECKOUT_APPLIED_MESSAGE)).toBeNull();
    expect(router.state.location.search).toBe('');
    // One `me` for the session, then the polls (the first on opening); no more after that.
    const meCalls = calls.filter((c) => c.operationName === 'Me').length;
    expect(meCalls).toBe(1 + CHECKOUT_POLL_ATTEMPTS);
    await act(() => vi.advanceTimersByTimeAsync(5_000));
    expect(calls.filter((c) => c.operationName === 'Me').length).toBe(meCalls);
  });
});
