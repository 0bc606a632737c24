import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHECKOUT_FAILED_MESSAGE } from '../../../lib/billing/use-checkout';
import { redirectTo } from '../../../lib/redirect';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { billingAnswers } from '../../../test/usage-fixtures';

vi.mock('../../../lib/redirect', () => ({ redirectTo: vi.fn() }));

function openPricingSignedIn(handlers: Record<string, Handler> = {}) {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    Me: () => ({ data: { me: sampleUser } }),
    CreateCustomer: () => ({ data: { createCustomer: true } }),
    CreateCheckoutSession: () => ({
      data: { createCheckoutSession: { __typename: 'CheckoutSession', url: 'https://checkout.stripe.com/c/pay/cs_test_1' } },
    }),
    ...handlers,
  });
  return { ...mock, ...renderApp('/pricing', mock.link) };
}

describe('Pricing page', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.mocked(redirectTo).mockClear();
  });

  it('lists both plans with their prices and limits', () => {
    renderApp('/pricing', mockLink({}).link);
    const free = screen.getByRole('region', { name: 'Free' });
    const pro = screen.getByRole('region', { name: 'Pro' });
    expect(free.textContent).toContain('$0');
    expect(free.textContent).toContain('Up to 1 chatbot');
    expect(free.textContent).toContain('$0.01 initial credit');
    expect(pro.textContent).toContain('$10');
    expect(pro.textContent).toContain('per month');
    expect(pro.textContent).toContain('Unlimited chatbots');
    expect(pro.textContent).toContain('$2.00 initial credit');
  });

  it('sends a signed-out visitor pressing Upgrade Now to /signup (and so to /register)', async () => {
    const { link, calls } = mockLink({});
    const { router } = renderApp('/pricing', link);
    fireEvent.click(screen.getByRole('button', { name: 'Upgrade Now' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/register'));
    expect(calls).toEqual([]);
  });

  it("sends a signed-in user's free-plan button to the dashboard", async () => {
    localStorage.setItem('token', 'good');
    const { router } = renderApp('/pricing', mockLink({ ...billingAnswers, Me: () => ({ data: { me: sampleUser } }) }).link);
    fireEvent.click(await screen.findByRole('button', { name: 'Go to Dashboard' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('sends a signed-in free user pressing Upgrade Now to checkout, never back to the dashboard', async () => {
    const { calls, router } = openPricingSignedIn();
    await screen.findByRole('button', { name: 'Go to Dashboard' });
    fireEvent.click(screen.getByRole('button', { name: 'Upgrade Now' }));
    await waitFor(() => expect(redirectTo).toHaveBeenCalledWith('https://checkout.stripe.com/c/pay/cs_test_1'));
    const billing = calls.filter((c) => c.operationName?.startsWith('Create'));
    expect(billing.map((c) => c.operationName)).toEqual(['CreateCustomer', 'CreateCheckoutSession']);
    expect(billing[1]?.variables).toEqual({
      input: {
        mode: 'subscription',
        lineItems: [{ price: 'pro', quantity: 1 }],
        metadata: { type: 'subscription', plan: 'pro' },
        successUrl: `${window.location.origin}/dashboard?checkout=success`,
        cancelUrl: window.location.href,
      },
    });
    expect(router.state.location.pathname).toBe('/pricing');
  });

  it('shows "Processing..." and disables Upgrade Now while the checkout is created', async () => {
    let answer: ((value: ReturnType<Handler>) => void) | undefined;
    openPricingSignedIn({
      CreateCheckoutSession: () => new Promise((resolve) => (answer = resolve)),
    });
    await screen.findByRole('button', { name: 'Go to Dashboard' });
    fireEvent.click(screen.getByRole('button', { name: 'Upgrade Now' }));
    const processing = (await screen.findByRole('button', { name: 'Processing...' })) as HTMLButtonElement;
    expect(processing.disabled).toBe(true);
    expect(screen.queryByRole('button', { name: 'Upgrade Now' })).toBeNull();
    // The request reaches the link a moment after the page shows it is waiting.
    await waitFor(() => expect(answer).toBeDefined());
    answer!({ data: { createCheckoutSession: { __typename: 'CheckoutSession', url: 'https://checkout.example/cs_2' } } });
    await waitFor(() => expect(redirectTo).toHaveBeenCalledWith('https://checkout.example/cs_2'));
  });

  it('alerts "Failed to initiate checkout. Please try again." and offers Upgrade Now again on failure', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => undefined);
    openPricingSignedIn({ CreateCheckoutSession: () => graphqlError('successUrl must be on this site', 'BAD_USER_INPUT') });
    await screen.findByRole('button', { name: 'Go to Dashboard' });
    fireEvent.click(screen.getByRole('button', { name: 'Upgrade Now' }));
    await waitFor(() => expect(alert).toHaveBeenCalledWith(CHECKOUT_FAILED_MESSAGE));
    expect(redirectTo).not.toHaveBeenCalled();
    expect((screen.getByRole('button', { name: 'Upgrade Now' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('marks Pro as the current plan for a pro user', async () => {
    localStorage.setItem('token', 'good');
    renderApp('/pricing', mockLink({ Me: () => ({ data: { me: { ...sampleUser, subscription: 'pro' } } }) }).link);
    const current = await screen.findByRole('button', { name: 'Current Plan' });
    expect((current as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(current);
    expect(redirectTo).not.toHaveBeenCalled();
  });
});
