import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { readToken } from '../../../lib/token-storage';
import { graphqlError, mockLink, sampleUser } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { billingAnswers } from '../../../test/usage-fixtures';

const fill = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

const challengeAnswer = () => ({ data: { login: { __typename: 'LoginPayload', token: null, user: null, twoFactorChallenge: 'c-1' } } });

async function passwordStep() {
  fill('Email', 'ada@example.com');
  fill('Password', 'secret1');
  fireEvent.click(screen.getByRole('button', { name: 'Login' }));
  await screen.findByRole('heading', { name: 'Two-factor sign-in' });
}

describe('Login page: two-factor sign-in', () => {
  it('asks for the code after the password, then signs in with it', async () => {
    const { link, calls } = mockLink({
      ...billingAnswers,
      Me: () => ({ data: { me: { ...sampleUser, twoFactorEnabled: true } } }),
      Login: challengeAnswer,
      CompleteTwoFactorLogin: () => ({
        data: { completeTwoFactorLogin: { __typename: 'AuthPayload', token: 't-2fa', user: { ...sampleUser, twoFactorEnabled: true } } },
      }),
    });
    const { router } = renderApp('/login', link);
    await passwordStep();
    expect(readToken()).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Please enter the 6-digit code from your authenticator app, or a recovery code.',
    );

    fill('Code', ' 123456 ');
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(readToken()).toBe('t-2fa');
    expect(calls.find((c) => c.operationName === 'CompleteTwoFactorLogin')?.variables).toEqual({
      input: { challengeToken: 'c-1', code: '123456' },
    });
  });

  it("shows the server's words for a wrong code or a lock-out, and stays on the code step", async () => {
    const answers = [
      graphqlError(
        'That code is not right. Enter the 6-digit code from your authenticator app, or one of your recovery codes.',
        'UNAUTHENTICATED',
      ),
      graphqlError('Too many wrong two-factor codes. Please try again in 15 minutes.', 'TOO_MANY_REQUESTS'),
    ];
    const { link } = mockLink({ Login: challengeAnswer, CompleteTwoFactorLogin: () => answers.shift()! });
    renderApp('/login', link);
    await passwordStep();
    fill('Code', '000000');
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/^That code is not right/);
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() =>
      expect(screen.getByRole('alert').textContent).toBe('Too many wrong two-factor codes. Please try again in 15 minutes.'),
    );
    expect(screen.getByRole('heading', { name: 'Two-factor sign-in' })).toBeTruthy();
    expect(readToken()).toBeNull();
  });

  it('goes back to the password when the sign-in expired, or when asked', async () => {
    const { link } = mockLink({
      Login: challengeAnswer,
      CompleteTwoFactorLogin: () => graphqlError('Your sign-in has expired. Please log in again.', 'UNAUTHENTICATED'),
    });
    renderApp('/login', link);
    await passwordStep();
    fill('Code', '123456');
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Your sign-in has expired. Please log in again.');
    expect(screen.getByRole('button', { name: 'Login' })).toBeTruthy();

    await passwordStep();
    fireEvent.click(screen.getByRole('button', { name: 'Back to sign in' }));
    expect(await screen.findByRole('button', { name: 'Login' })).toBeTruthy();
  });
});
