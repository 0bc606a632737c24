import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readToken } from '../../../lib/token-storage';
import { accountSection, openAccountPage } from '../../../test/account-fixtures';
import { graphqlError } from '../../../test/mock-link';

const CONFIRMATION = 'Are you sure you want to delete your account? This cannot be undone.';

async function submitDeletion(password: string) {
  const zone = await accountSection('Delete account');
  fireEvent.change(zone.getByLabelText('Password'), { target: { value: password } });
  fireEvent.click(zone.getByRole('button', { name: 'Delete my account' }));
  return zone;
}

describe('Account page: delete account', () => {
  afterEach(() => vi.restoreAllMocks());

  it('explains what is removed and what is kept', async () => {
    openAccountPage();
    const zone = await accountSection('Delete account');
    const text = zone.getByText(/Deleting your account removes/).textContent;
    expect(text).toContain('chatbots, their knowledge and pictures, their conversations, and your personal data');
    expect(text).toContain('Your subscription is cancelled.');
    expect(zone.getByText(/anonymised accounting records/)).toBeTruthy();
    expect(zone.getByRole('link', { name: 'Privacy Policy' }).getAttribute('href')).toBe('/privacy');
  });

  it('asks for the password before anything else', async () => {
    const confirm = vi.spyOn(window, 'confirm');
    const { calls } = openAccountPage();
    const zone = await submitDeletion('');
    expect((await zone.findByRole('alert')).textContent).toBe('Please enter your password to delete your account.');
    expect(confirm).not.toHaveBeenCalled();
    expect(calls.some((c) => c.operationName === 'DeleteAccount')).toBe(false);
  });

  it('does nothing when the owner does not confirm', async () => {
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(false);
    const { calls, router } = openAccountPage();
    await submitDeletion('secret1');
    expect(confirm).toHaveBeenCalledWith(CONFIRMATION);
    expect(calls.some((c) => c.operationName === 'DeleteAccount')).toBe(false);
    expect(router.state.location.pathname).toBe('/account');
  });

  it('deletes after the confirm, forgets the session and lands on the home page with the banner', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    const { calls, router, client } = openAccountPage({ DeleteAccount: () => ({ data: { deleteAccount: true } }) });
    await submitDeletion('secret1');

    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(calls.find((c) => c.operationName === 'DeleteAccount')?.variables).toEqual({ password: 'secret1' });
    expect((await screen.findByRole('status')).textContent).toBe('Your account has been deleted.');
    await waitFor(() => expect(readToken()).toBeNull());
    expect(client.extract()).toEqual({});
    expect(await screen.findByRole('link', { name: 'Login' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Account' })).toBeNull();
    // No call after the deletion was made with the old token.
    const after = calls.slice(calls.findIndex((c) => c.operationName === 'DeleteAccount') + 1);
    expect(after).toEqual([]);
  });

  it("shows the server's message for a wrong password and keeps the session", async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    const { router } = openAccountPage({ DeleteAccount: () => graphqlError('Incorrect password', 'BAD_USER_INPUT') });
    const zone = await submitDeletion('wrong1');
    expect((await zone.findByRole('alert')).textContent).toBe('Incorrect password');
    expect(router.state.location.pathname).toBe('/account');
    expect(readToken()).toBe('good');
  });
});
