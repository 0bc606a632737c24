import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockLink, sampleUser } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';

describe('Pricing page', () => {
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
    const { router } = renderApp('/pricing', mockLink({}).link);
    fireEvent.click(screen.getByRole('button', { name: 'Upgrade Now' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/register'));
  });

  it("sends a signed-in user's free-plan button to the dashboard", async () => {
    localStorage.setItem('token', 'good');
    const { router } = renderApp('/pricing', mockLink({ Me: () => ({ data: { me: sampleUser } }) }).link);
    fireEvent.click(await screen.findByRole('button', { name: 'Go to Dashboard' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('marks Pro as the current plan for a pro user', async () => {
    localStorage.setItem('token', 'good');
    renderApp('/pricing', mockLink({ Me: () => ({ data: { me: { ...sampleUser, subscription: 'pro' } } }) }).link);
    const current = await screen.findByRole('button', { name: 'Current Plan' });
    expect((current as HTMLButtonElement).disabled).toBe(true);
  });
});
