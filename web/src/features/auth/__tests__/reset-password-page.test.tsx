import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { readToken } from '../../../lib/token-storage';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';

const RESET = 'Your password has been reset. Please sign in with your new password.';

function fill(label: string, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

function submit(
  values: { password: string; password2: string },
  handlers: Record<string, Handler> = {},
  path = '/reset-password?token=tok-123',
) {
  const mock = mockLink(handlers);
  const app = renderApp(path, mock.link);
  fill('New password', values.password);
  fill('Confirm new password', values.password2);
  fireEvent.click(screen.getByRole('button', { name: 'Reset password' }));
  return { ...mock, ...app };
}

describe('Reset password page', () => {
  it.each([
    [{ password: '', password2: '' }, 'Please enter all required fields'],
    [{ password: 'secret1', password2: 'secret2' }, 'Passwords do not match'],
    [{ password: 'short', password2: 'short' }, 'Password must be at least 6 characters'],
  ])('checks %o on the client: %s', async (values, message) => {
    const { calls } = submit(values);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(message);
    // A typo is not a bad link: no new link is offered for it.
    expect(screen.queryByRole('link', { name: 'Request a new link' })).toBeNull();
    expect(calls).toHaveLength(0);
  });

  it('says a link without a token is invalid and offers a new one', () => {
    const { link, calls } = mockLink({});
    renderApp('/reset-password', link);
    expect(screen.getByRole('alert').textContent).toBe('This reset link is invalid.');
    expect(screen.getByRole('link', { name: 'Request a new link' }).getAttribute('href')).toBe('/forgot-password');
    expect(screen.queryByLabelText('New password')).toBeNull();
    expect(calls).toHaveLength(0);
  });

  it.each([
    'This reset link is invalid or has expired. Please request a new one.',
    'This reset link has already been used. Please request a new one.',
  ])("shows the server's refusal (%s) with a link to request a new one", async (message) => {
    submit({ password: 'secret1', password2: 'secret1' }, { ResetPassword: () => graphqlError(message, 'BAD_USER_INPUT') });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(message);
    expect(screen.getByRole('link', { name: 'Request a new link' }).getAttribute('href')).toBe('/forgot-password');
  });

  it('sends the token and both passwords, then opens the login page with the banner', async () => {
    const { calls, router } = submit(
      { password: 'secret1', password2: 'secret1' },
      { ResetPassword: () => ({ data: { resetPassword: RESET } }) },
    );
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(calls[0]?.variables).toEqual({ input: { token: 'tok-123', password: 'secret1', password2: 'secret1' } });
    expect((await screen.findByRole('status')).textContent).toBe(RESET);
    // The reset page (and its token) was replaced in the history, and the banner is read only once.
    expect(router.state.historyAction).toBe('REPLACE');
    await waitFor(() => expect(router.state.location.state).toBeNull());
  });

  it('forgets a session this browser still had: the reset signed it out', async () => {
    localStorage.setItem('token', 'old-token');
    const { link } = mockLink({
      Me: () => ({ data: { me: sampleUser } }),
      ResetPassword: () => ({ data: { resetPassword: RESET } }),
    });
    const { router } = renderApp('/reset-password?token=tok-123', link);
    expect(await screen.findByRole('link', { name: 'Dashboard' })).toBeTruthy();
    fill('New password', 'secret1');
    fill('Confirm new password', 'secret1');
    fireEvent.click(screen.getByRole('button', { name: 'Reset password' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(readToken()).toBeNull();
    expect(await screen.findByText(RESET)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Login' })).toBeTruthy();
  });
});

describe('Login page banner after a reset', () => {
  it('hides itself after 3 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      submit({ password: 'secret1', password2: 'secret1' }, { ResetPassword: () => ({ data: { resetPassword: RESET } }) });
      expect(await screen.findByText(RESET)).toBeTruthy();
      await act(() => vi.advanceTimersByTimeAsync(3000));
      expect(screen.queryByText(RESET)).toBeNull();
      expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Welcome back');
    } finally {
      vi.useRealTimers();
    }
  });
});
