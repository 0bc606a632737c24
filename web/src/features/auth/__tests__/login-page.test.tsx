import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { readToken } from '../../../lib/token-storage';
import { graphqlError, mockLink, sampleUser } from '../../../test/mock-link';
import { billingAnswers } from '../../../test/usage-fixtures';
import { renderApp } from '../../../test/render-app';

function fill(label: string, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

describe('Login page', () => {
  it('asks for all fields and sends nothing when one is empty', async () => {
    const { link, calls } = mockLink({});
    renderApp('/login', link);
    fill('Email', 'ada@example.com');
    fireEvent.click(screen.getByRole('button', { name: 'Login' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Please enter all fields');
    expect(calls).toHaveLength(0);
  });

  it.each([
    ['wrong password', () => graphqlError('Invalid credentials', 'UNAUTHENTICATED')],
    ['unexpected server text', () => graphqlError('Something odd happened', 'INTERNAL_SERVER_ERROR')],
    [
      'network failure',
      () => {
        throw new Error('Failed to fetch');
      },
    ],
  ])('shows "Invalid credentials" for a %s', async (_name, answer) => {
    const { link } = mockLink({ Login: answer });
    renderApp('/login', link);
    fill('Email', 'ada@example.com');
    fill('Password', 'wrong-password');
    fireEvent.click(screen.getByRole('button', { name: 'Login' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Invalid credentials');
    expect(readToken()).toBeNull();
  });

  it('shows "Logging in..." while busy, then stores the token and opens the dashboard', async () => {
    let release!: () => void;
    const { link, calls } = mockLink({
      ...billingAnswers,
      // The dashboard asks for the user again when it opens.
      Me: () => ({ data: { me: sampleUser } }),
      Login: () =>
        new Promise((resolve) => {
          release = () => resolve({ data: { login: { __typename: 'AuthPayload', token: 't-123', user: sampleUser } } });
        }),
    });
    const { router } = renderApp('/login', link);
    fill('Email', ' ada@example.com ');
    fill('Password', 'secret1');
    fireEvent.click(screen.getByRole('button', { name: 'Login' }));

    const busy = await screen.findByRole('button', { name: 'Logging in...' });
    expect((busy as HTMLButtonElement).disabled).toBe(true);
    release();

    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(readToken()).toBe('t-123');
    expect(calls[0].variables).toEqual({ input: { email: 'ada@example.com', password: 'secret1' } });
    expect(await screen.findByText('Welcome back, Ada')).toBeTruthy();
  });

  it('explains an expired session after the redirect from a protected page', async () => {
    localStorage.setItem('token', 'expired');
    const { link } = mockLink({ Me: () => graphqlError('Session expired', 'UNAUTHENTICATED') });
    const { router } = renderApp('/dashboard', link);
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect((await screen.findByRole('status')).textContent).toBe('Session expired. Please login again.');
  });

  it('uses a browser email check and links to password reset and registration', () => {
    const { link } = mockLink({});
    renderApp('/login', link);
    expect(screen.getByLabelText('Email').getAttribute('type')).toBe('email');
    expect(screen.getByRole('link', { name: 'Forgot password?' }).getAttribute('href')).toBe('/forgot-password');
    expect(screen.getByRole('link', { name: 'Sign up' }).getAttribute('href')).toBe('/register');
  });
});
