import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it, vi } from 'vitest';
import { sampleUser } from '../../../test/mock-link';
import { displayName, planLabel, topUpLabel } from '../account-labels';
import { AccountOverviewCard } from '../components/account-overview-card';

describe('planLabel', () => {
  it('is the plan value followed by " Plan"', () => {
    expect(planLabel('free')).toBe('free Plan');
    expect(planLabel('pro')).toBe('pro Plan');
  });
});

describe('displayName', () => {
  it('falls back to "User" when the name is missing or blank', () => {
    expect(displayName('Ada')).toBe('Ada');
    expect(displayName('  ')).toBe('User');
    expect(displayName(undefined)).toBe('User');
  });
});

describe('topUpLabel', () => {
  it('names the amount when the server told it, else says "Top up credit"', () => {
    expect(topUpLabel('5')).toBe('Top up $5.00');
    expect(topUpLabel('12.5')).toBe('Top up $12.50');
    expect(topUpLabel(null)).toBe('Top up credit');
  });
});

describe('AccountOverviewCard', () => {
  type User = typeof sampleUser | (Omit<typeof sampleUser, 'subscription'> & { subscription: 'pro' });

  function renderCard(user: User, props: Partial<Parameters<typeof AccountOverviewCard>[0]> = {}) {
    const onCheckout = vi.fn();
    render(
      <MemoryRouter>
        <AccountOverviewCard user={user} pendingCheckout={null} onCheckout={onCheckout} topUpAmount="5" testMode={false} {...props} />
      </MemoryRouter>,
    );
    return onCheckout;
  }

  it('shows email, plan, credit to 4 decimals, and offers Upgrade Plan and a top-up to a free user', () => {
    const onCheckout = renderCard({ ...sampleUser, usage: { ...sampleUser.usage, creditBalance: '1.5' } });
    expect(screen.getByText('ada@example.com')).toBeTruthy();
    expect(screen.getByText('free Plan')).toBeTruthy();
    expect(screen.getByText('$1.5000')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Upgrade Plan' }));
    fireEvent.click(screen.getByRole('button', { name: 'Top up $5.00' }));
    expect(onCheckout.mock.calls).toEqual([['pro'], ['credit_topup']]);
    expect(screen.queryByText(/test mode/)).toBeNull();
  });

  it('hides the upgrade for a pro user, who can still top up', () => {
    renderCard({ ...sampleUser, subscription: 'pro' }, { topUpAmount: null });
    expect(screen.getByText('pro Plan')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Upgrade Plan' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Top up credit' })).toBeTruthy();
  });

  it('shows "Processing..." on the checkout being prepared and disables both buttons', () => {
    renderCard(sampleUser, { pendingCheckout: 'credit_topup' });
    const processing = screen.getByRole('button', { name: 'Processing...' }) as HTMLButtonElement;
    expect(processing.disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Upgrade Plan' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('says so when payments are in test mode', () => {
    renderCard(sampleUser, { testMode: true });
    expect(screen.getByText('Payments are in test mode — no real payment is taken.')).toBeTruthy();
  });
});
