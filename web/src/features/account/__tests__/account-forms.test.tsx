import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MeQuery } from '../../../lib/session/graphql/me-query';
import { accountSection, accountUser, openAccountPage } from '../../../test/account-fixtures';
import { graphqlError, sampleUser, type Handler } from '../../../test/mock-link';
import { billingAnswers } from '../../../test/usage-fixtures';

type Section = Awaited<ReturnType<typeof accountSection>>;

function fill(section: Section, label: string, value: string) {
  fireEvent.change(section.getByLabelText(label), { target: { value } });
}

/** A server that remembers the saved name, as `me` then answers it (the dashboard asks on opening). */
function serverWithName(initial: string): Record<string, Handler> {
  let name = initial;
  return {
    ...billingAnswers,
    Chatbots: () => ({ data: { chatbots: [] } }),
    Me: () => ({ data: { me: { ...sampleUser, name } } }),
    AccountDetails: () => ({ data: { me: { ...accountUser, name } } }),
    UpdateProfile: ({ variables }) => {
      name = String(variables.name);
      return { data: { updateProfile: { ...sampleUser, name } } };
    },
  };
}

describe('Account page: profile', () => {
  afterEach(() => vi.useRealTimers());

  it('shows the name and since when the account exists', async () => {
    openAccountPage();
    const profile = await accountSection('Profile');
    expect((profile.getByLabelText('Name') as HTMLInputElement).value).toBe('Ada');
    expect(profile.getByText('Member since Jan 5, 2025')).toBeTruthy();
    expect(profile.getByText('Shown on your dashboard. Left empty, Parley calls you "User".')).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Account');
  });

  it('saves the name, says "Profile updated" for 3 seconds, and the dashboard greets with it', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { calls, router, client } = openAccountPage(serverWithName('Ada'));
    const profile = await accountSection('Profile');
    fill(profile, 'Name', '  Grace ');
    fireEvent.click(profile.getByRole('button', { name: 'Save' }));

    expect((await profile.findByRole('status')).textContent).toBe('Profile updated');
    expect(calls.find((c) => c.operationName === 'UpdateProfile')?.variables).toEqual({ name: 'Grace' });
    expect((profile.getByLabelText('Name') as HTMLInputElement).value).toBe('Grace');
    // The cached `me` holds the new name too.
    expect(client.readQuery({ query: MeQuery })?.me.name).toBe('Grace');
    await act(() => vi.advanceTimersByTimeAsync(3000));
    expect(profile.queryByText('Profile updated')).toBeNull();

    await act(() => router.navigate('/dashboard'));
    expect(await screen.findByText('Welcome back, Grace')).toBeTruthy();
  });

  it('allows an empty name, after which the dashboard says "User"', async () => {
    const { calls, router } = openAccountPage(serverWithName('Ada'));
    const profile = await accountSection('Profile');
    fill(profile, 'Name', '');
    fireEvent.click(profile.getByRole('button', { name: 'Save' }));
    expect(await profile.findByText('Profile updated')).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'UpdateProfile')?.variables).toEqual({ name: '' });

    await act(() => router.navigate('/dashboard'));
    expect(await screen.findByText('Welcome back, User')).toBeTruthy();
    expect(screen.queryByText(/Welcome back, ada/i)).toBeNull();
  });

  it("shows the server's message when the name is refused", async () => {
    openAccountPage({ UpdateProfile: () => graphqlError('Name must be at most 100 characters', 'BAD_USER_INPUT') });
    const profile = await accountSection('Profile');
    fireEvent.click(profile.getByRole('button', { name: 'Save' }));
    expect((await profile.findByRole('alert')).textContent).toBe('Name must be at most 100 characters');
  });
});

describe('Account page: email', () => {
  it('shows the current email and asks for both fields before sending', async () => {
    const { calls } = openAccountPage();
    const email = await accountSection('Email');
    expect(email.getByText('ada@example.com')).toBeTruthy();
    expect(email.getByLabelText('New email').getAttribute('type')).toBe('email');
    fill(email, 'New email', 'grace@example.com');
    fireEvent.click(email.getByRole('button', { name: 'Save' }));
    expect((await email.findByRole('alert')).textContent).toBe('Please enter all required fields');
    expect(calls.some((c) => c.operationName === 'ChangeEmail')).toBe(false);
  });

  it('changes the email with the current password and shows it, with "Email updated"', async () => {
    const { calls } = openAccountPage({
      ChangeEmail: () => ({ data: { changeEmail: { ...sampleUser, email: 'grace@example.com' } } }),
    });
    const email = await accountSection('Email');
    fill(email, 'New email', ' grace@example.com ');
    fill(email, 'Current password', 'secret1');
    fireEvent.click(email.getByRole('button', { name: 'Save' }));

    expect((await email.findByRole('status')).textContent).toBe('Email updated');
    expect(calls.find((c) => c.operationName === 'ChangeEmail')?.variables).toEqual({
      input: { email: 'grace@example.com', currentPassword: 'secret1' },
    });
    expect(email.getByText('grace@example.com')).toBeTruthy();
    expect((email.getByLabelText('New email') as HTMLInputElement).value).toBe('');
    expect((email.getByLabelText('Current password') as HTMLInputElement).value).toBe('');
  });

  it("shows the server's message for a wrong password and keeps what was typed", async () => {
    openAccountPage({ ChangeEmail: () => graphqlError('Current password is incorrect', 'BAD_USER_INPUT') });
    const email = await accountSection('Email');
    fill(email, 'New email', 'grace@example.com');
    fill(email, 'Current password', 'wrong1');
    fireEvent.click(email.getByRole('button', { name: 'Save' }));
    expect((await email.findByRole('alert')).textContent).toBe('Current password is incorrect');
    expect((email.getByLabelText('New email') as HTMLInputElement).value).toBe('grace@example.com');
    expect(email.getByText('ada@example.com')).toBeTruthy();
  });
});

describe('Account page: password', () => {
  it.each([
    [{ current: '', password: 'secret1', password2: 'secret1' }, 'Please enter all required fields'],
    [{ current: 'old-secret', password: 'secret1', password2: 'secret2' }, 'Passwords do not match'],
    [{ current: 'old-secret', password: 'short', password2: 'short' }, 'Password must be at least 6 characters'],
  ])('checks %o on the client: %s', async ({ current, password, password2 }, message) => {
    const { calls } = openAccountPage();
    const card = await accountSection('Password');
    fill(card, 'Current password', current);
    fill(card, 'New password', password);
    fill(card, 'Confirm new password', password2);
    fireEvent.click(card.getByRole('button', { name: 'Change password' }));
    expect((await card.findByRole('alert')).textContent).toBe(message);
    expect(calls.some((c) => c.operationName === 'ChangePassword')).toBe(false);
  });

  it.each([
    [2, 'Password changed. 2 other devices were signed out.'],
    [1, 'Password changed. 1 other device was signed out.'],
    [0, 'Password changed.'],
  ])('sends the passwords; %i other sessions signed out reads "%s"; the device list is asked again', async (count, message) => {
    const { calls } = openAccountPage({ ChangePassword: () => ({ data: { changePassword: count } }) });
    const card = await accountSection('Password');
    await screen.findByText('This device');
    fill(card, 'Current password', 'old-secret');
    fill(card, 'New password', 'secret1');
    fill(card, 'Confirm new password', 'secret1');
    fireEvent.click(card.getByRole('button', { name: 'Change password' }));

    expect((await card.findByRole('status')).textContent).toBe(message);
    expect(calls.find((c) => c.operationName === 'ChangePassword')?.variables).toEqual({
      input: { currentPassword: 'old-secret', password: 'secret1', password2: 'secret1' },
    });
    await waitFor(() => expect(calls.filter((c) => c.operationName === 'MySessions')).toHaveLength(2));
    expect((card.getByLabelText('Current password') as HTMLInputElement).value).toBe('');
  });

  it("shows the server's message for a wrong current password", async () => {
    openAccountPage({ ChangePassword: () => graphqlError('Current password is incorrect', 'BAD_USER_INPUT') });
    const card = await accountSection('Password');
    fill(card, 'Current password', 'wrong1');
    fill(card, 'New password', 'secret1');
    fill(card, 'Confirm new password', 'secret1');
    fireEvent.click(card.getByRole('button', { name: 'Change password' }));
    expect((await card.findByRole('alert')).textContent).toBe('Current password is incorrect');
  });
});

describe('Account page: loading', () => {
  it('refreshes the session from the fresh account, e.g. a plan changed in the billing portal', async () => {
    openAccountPage({ AccountDetails: () => ({ data: { me: { ...accountUser, subscription: 'pro' } } }) });
    expect(await screen.findByText('pro Plan')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Manage subscription' })).toBeTruthy();
  });

  it('still shows the page from the session when the account cannot be loaded', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    openAccountPage({ AccountDetails: () => graphqlError('Auth service unavailable', 'SERVICE_UNAVAILABLE') });
    const profile = await accountSection('Profile');
    expect((profile.getByLabelText('Name') as HTMLInputElement).value).toBe('Ada');
    expect(profile.getByText('How Parley addresses you.')).toBeTruthy();
    vi.restoreAllMocks();
  });
});
