import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { readToken } from '../../../lib/token-storage';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { billingAnswers } from '../../../test/usage-fixtures';
import { renderApp } from '../../../test/render-app';

function submit(values: { email: string; password: string; password2: string }, handlers: Record<string, Handler> = {}) {
  const mock = mockLink({ ...billingAnswers, ...handlers });
  const app = renderApp('/register', mock.link);
  fireEvent.change(screen.getByLabelText('Email'), { target: { value: values.email } });
  fireEvent.change(screen.getByLabelText('Password'), { target: { value: values.password } });
  fireEvent.change(screen.getByLabelText('Confirm password'), { target: { value: values.password2 } });
  fireEvent.click(screen.getByRole('button', { name: 'Create account' }));
  return { ...mock, ...app };
}

describe('Register page', () => {
  it('is titled "Create an account" and names the confirmation field password2', () => {
    renderApp('/register', mockLink({}).link);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Create an account');
    expect(screen.getByLabelText('Confirm password').getAttribute('name')).toBe('password2');
  });

  it.each([
    [{ email: '', password: 'secret1', password2: 'secret1' }, 'Please enter all required fields'],
    [{ email: 'ada@example.com', password: 'secret1', password2: 'secret2' }, 'Passwords do not match'],
    [{ email: 'ada@example.com', password: 'short', password2: 'short' }, 'Password must be at least 6 characters'],
  ])('checks %o on the client: %s', async (values, message) => {
    const { calls } = submit(values);
    expect((await screen.findByRole('alert')).textContent).toBe(message);
    expect(calls).toHaveLength(0);
  });

  it("shows the server's message, e.g. a duplicate email", async () => {
    submit(
      { email: 'ada@example.com', password: 'secret1', password2: 'secret1' },
      { Register: () => graphqlError('An account with this email already exists', 'CONFLICT') },
    );
    expect((await screen.findByRole('alert')).textContent).toBe('An account with this email already exists');
  });

  it('falls back to a generic message when the server gives none', async () => {
    submit(
      { email: 'ada@example.com', password: 'secret1', password2: 'secret1' },
      {
        Register: () => {
          throw new Error('Failed to fetch');
        },
      },
    );
    expect((await screen.findByRole('alert')).textContent).toBe('Registration failed. Please try again.');
  });

  it('stores the token and opens the dashboard on success', async () => {
    const { router, calls } = submit(
      { email: 'ada@example.com', password: 'secret1', password2: 'secret1' },
      {
        Register: () => ({ data: { register: { __typename: 'AuthPayload', token: 't-new', user: sampleUser } } }),
        // The dashboard asks for the user again when it opens.
        Me: () => ({ data: { me: sampleUser } }),
      },
    );
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(readToken()).toBe('t-new');
    expect(calls[0].variables).toEqual({ input: { email: 'ada@example.com', password: 'secret1', password2: 'secret1' } });
  });
});
