import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { isCurrentPath } from '../../components/ui/nav-button-link';
import { readToken } from '../../lib/token-storage';
import { mockLink, sampleUser } from '../../test/mock-link';
import { billingAnswers } from '../../test/usage-fixtures';
import { renderApp } from '../../test/render-app';

describe('routes and layout', () => {
  it('redirects a signed-out visitor from /dashboard to /login', async () => {
    const { router } = renderApp('/dashboard', mockLink({}).link);
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });

  it('shows a spinner while the stored session is checked, then the dashboard', async () => {
    localStorage.setItem('token', 'good');
    renderApp('/dashboard', mockLink({ ...billingAnswers, Me: () => ({ data: { me: { ...sampleUser, name: '' } } }) }).link);
    expect(screen.getByRole('status').textContent).toBe('Loading');
    expect(await screen.findByText('Welcome back, User')).toBeTruthy();
  });

  it('sends /signup to /register', async () => {
    const { router } = renderApp('/signup', mockLink({}).link);
    await waitFor(() => expect(router.state.location.pathname).toBe('/register'));
  });

  it.each([
    ['/', 'AI Chatbots with Your Knowledge — Parley'],
    ['/pricing', 'Pricing — Parley'],
    ['/login', 'Sign in — Parley'],
    ['/register', 'Sign up — Parley'],
    ['/forgot-password', 'Forgot password — Parley'],
    ['/reset-password?token=t', 'Reset password — Parley'],
    ['/terms', 'Terms and Conditions — Parley'],
    ['/privacy', 'Privacy Policy — Parley'],
    ['/no-such-page', 'Page not found — Parley'],
  ])('names the browser tab of %s "%s"', async (path, title) => {
    document.title = '';
    renderApp(path, mockLink({}).link);
    await waitFor(() => expect(document.title).toBe(title));
  });

  it('shows a 404 page for an unknown route', () => {
    renderApp('/no-such-page', mockLink({}).link);
    expect(screen.getByRole('heading', { name: 'Page not found' })).toBeTruthy();
  });

  it('shows Login and Sign Up when signed out, and the footer links', async () => {
    renderApp('/', mockLink({}).link);
    expect(await screen.findByRole('link', { name: 'Login' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Sign Up' }).getAttribute('href')).toBe('/register');
    expect(screen.getByText('Create and manage AI chatbots powered by OpenAI.')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Usage Details' }).getAttribute('href')).toBe('/usage');
    expect(screen.getByText(new RegExp(`${new Date().getFullYear()} Parley`))).toBeTruthy();
  });

  it('shows Leads, Developers and Account links beside Dashboard when signed in', async () => {
    localStorage.setItem('token', 'good');
    renderApp('/pricing', mockLink({ Me: () => ({ data: { me: sampleUser } }) }).link);
    expect((await screen.findByRole('link', { name: 'Account' })).getAttribute('href')).toBe('/account');
    expect(screen.getByRole('link', { name: 'Developers' }).getAttribute('href')).toBe('/workspace/developers');
    const header = within(screen.getByRole('banner'));
    expect(header.getAllByRole('link').map((link) => link.textContent)).toEqual([
      'Parley',
      'Pricing',
      'Dashboard',
      'Leads',
      'Developers',
      'Account',
    ]);
  });

  it('marks only the current page in the header: Dashboard for the dashboard and the pages under it', async () => {
    localStorage.setItem('token', 'good');
    renderApp('/pricing', mockLink({ Me: () => ({ data: { me: sampleUser } }) }).link);
    const header = within(await screen.findByRole('banner'));
    await header.findByRole('link', { name: 'Account' });
    const current = () => header.getAllByRole('link').filter((link) => link.getAttribute('aria-current') === 'page');
    expect(current().map((link) => link.textContent)).toEqual(['Pricing']);
    expect([
      isCurrentPath('/dashboard', '/dashboard', ['/chatbots', '/usage']),
      isCurrentPath('/chatbots/42', '/dashboard', ['/chatbots', '/usage']),
      isCurrentPath('/leads', '/dashboard', ['/chatbots', '/usage']),
      isCurrentPath('/inbox/7b0c', '/inbox'),
      isCurrentPath('/inboxes', '/inbox'),
    ]).toEqual([true, true, false, true, false]);
  });

  it('sends a signed-out visitor from /account to /login, and has no Account link for them', async () => {
    const { router } = renderApp('/account', mockLink({}).link);
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(await screen.findByRole('link', { name: 'Login' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Account' })).toBeNull();
  });

  it('shows Dashboard and Logout when signed in; Logout signs out and goes to /login', async () => {
    localStorage.setItem('token', 'good');
    const { router, client } = renderApp(
      '/pricing',
      mockLink({ Me: () => ({ data: { me: sampleUser } }), Logout: () => ({ data: { logout: true } }) }).link,
    );
    expect((await screen.findByRole('link', { name: 'Dashboard' })).getAttribute('href')).toBe('/dashboard');
    fireEvent.click(screen.getByRole('button', { name: 'Logout' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(readToken()).toBeNull();
    expect(client.extract()).toEqual({});
  });
});
