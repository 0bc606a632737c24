import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { graphqlError, mockLink, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';

const SENT = "If an account exists for that email, we've sent a link.";

function submit(email: string, handlers: Record<string, Handler>) {
  const mock = mockLink(handlers);
  const app = renderApp('/forgot-password', mock.link);
  fireEvent.change(screen.getByLabelText('Email'), { target: { value: email } });
  fireEvent.click(screen.getByRole('button', { name: 'Send reset link' }));
  return { ...mock, ...app };
}

describe('Forgot password page', () => {
  it('asks for the email with a browser email check and links back to login', () => {
    renderApp('/forgot-password', mockLink({}).link);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Reset your password');
    expect(screen.getByLabelText('Email').getAttribute('type')).toBe('email');
    expect(screen.getByRole('link', { name: 'Back to login' }).getAttribute('href')).toBe('/login');
    expect(screen.queryByText(/coming soon/i)).toBeNull();
  });

  it.each(['ada@example.com', 'nobody@example.com'])(
    "shows the server's one answer for %s, whether or not it has an account",
    async (email) => {
      const { calls } = submit(` ${email} `, { RequestPasswordReset: () => ({ data: { requestPasswordReset: SENT } }) });
      expect((await screen.findByRole('status')).textContent).toContain(SENT);
      expect(calls.map((c) => c.variables)).toEqual([{ email }]);
      expect(screen.queryByRole('alert')).toBeNull();
    },
  );

  it('says "Sending..." while the request is under way', async () => {
    let answer: ((value: ReturnType<Handler>) => void) | undefined;
    submit('ada@example.com', { RequestPasswordReset: () => new Promise((resolve) => (answer = resolve)) });
    const busy = (await screen.findByRole('button', { name: 'Sending...' })) as HTMLButtonElement;
    expect(busy.disabled).toBe(true);
    // The request reaches the link a moment after the page shows it is waiting.
    await waitFor(() => expect(answer).toBeDefined());
    answer!({ data: { requestPasswordReset: SENT } });
    expect(await screen.findByRole('button', { name: 'Send reset link' })).toBeTruthy();
  });

  it('shows a refusal, e.g. too many requests, as an error', async () => {
    submit('ada@example.com', {
      RequestPasswordReset: () => graphqlError('Too many reset requests. Please try again later.', 'TOO_MANY_REQUESTS'),
    });
    expect((await screen.findByRole('alert')).textContent).toBe('Too many reset requests. Please try again later.');
    expect(screen.queryByText(SENT)).toBeNull();
  });

  it('sends nothing without an email', async () => {
    const { calls } = submit('  ', {});
    expect((await screen.findByRole('alert')).textContent).toBe('Please enter your email address');
    expect(calls).toHaveLength(0);
  });
});
