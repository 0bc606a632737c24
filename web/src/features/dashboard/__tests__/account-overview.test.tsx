import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { sampleUser } from '../../../test/mock-link';
import { displayName, planLabel } from '../account-labels';
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

describe('AccountOverviewCard', () => {
  function renderCard(user: typeof sampleUser | (Omit<typeof sampleUser, 'subscription'> & { subscription: 'pro' })) {
    render(
      <MemoryRouter>
        <AccountOverviewCard user={user} />
      </MemoryRouter>,
    );
  }

  it('shows email, plan, credit to 4 decimals and an Upgrade Plan link for a free user', () => {
    renderCard({ ...sampleUser, usage: { ...sampleUser.usage, creditBalance: '1.5' } });
    expect(screen.getByText('ada@example.com')).toBeTruthy();
    expect(screen.getByText('free Plan')).toBeTruthy();
    expect(screen.getByText('$1.5000')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Upgrade Plan' }).getAttribute('href')).toBe('/pricing');
  });

  it('hides the upgrade for a pro user', () => {
    renderCard({ ...sampleUser, subscription: 'pro' });
    expect(screen.getByText('pro Plan')).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Upgrade Plan' })).toBeNull();
  });
});
