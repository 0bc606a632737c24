import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockLink, sampleUser } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { billingAnswers } from '../../../test/usage-fixtures';

function openDashboard(me: typeof sampleUser) {
  localStorage.setItem('token', 'good');
  renderApp('/dashboard', mockLink({ ...billingAnswers, Chatbots: () => ({ data: { chatbots: [] } }), Me: () => ({ data: { me } }) }).link);
}

describe('Dashboard greeting', () => {
  it("greets with the user's name", async () => {
    openDashboard({ ...sampleUser, email: 'grace.hopper@example.com', name: 'Grace' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome back, Grace' })).toBeTruthy();
  });

  it('falls back to "User", never to the email\'s local part', async () => {
    openDashboard({ ...sampleUser, email: 'grace.hopper@example.com', name: ' ' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome back, User' })).toBeTruthy();
    // The email appears once, as the email, in the Account Overview; nowhere as a name.
    expect(screen.queryByText(/grace\.hopper(?!@)/)).toBeNull();
    expect(screen.getByText('grace.hopper@example.com')).toBeTruthy();
  });
});
