import { screen, within } from '@testing-library/react';
import { mockLink, sampleUser, type Handler } from './mock-link';
import { renderApp } from './render-app';

// Account page answers as the gateway gives them (with __typename, as Apollo asks for it).

export function accountSession(overrides: Record<string, unknown> = {}) {
  return {
    __typename: 'AccountSession' as const,
    id: 's1',
    createdAt: '2025-03-01T09:00:00.000Z',
    expiresAt: '2025-04-01T09:00:00.000Z',
    clientIp: '203.0.113.7' as string | null,
    current: true,
    ...overrides,
  };
}

export const accountUser = { ...sampleUser, createdAt: '2025-01-05T12:00:00.000Z' };

export const accountAnswers: Record<string, Handler> = {
  Me: () => ({ data: { me: sampleUser } }),
  InboxWaitingCount: () => ({ data: { inboxWaitingCount: 0 } }),
  AccountDetails: () => ({ data: { me: accountUser } }),
  MySessions: () => ({
    data: { mySessions: [accountSession(), accountSession({ id: 's2', current: false, clientIp: null })] },
  }),
  MyTwoFactor: () => ({ data: { myTwoFactor: twoFactorStatus() } }),
};

export function twoFactorStatus(enabled = false, recoveryCodesLeft = enabled ? 10 : 0) {
  return { __typename: 'TwoFactorStatus' as const, enabled, recoveryCodesLeft };
}

/** Opens /account signed in, answering the page's queries; `handlers` add or replace answers. */
export function openAccountPage(handlers: Record<string, Handler> = {}) {
  localStorage.setItem('token', 'good');
  const mock = mockLink({ ...accountAnswers, ...handlers });
  return { ...mock, ...renderApp('/account', mock.link) };
}

/** One card of the account page, found by its title, to query inside. */
export async function accountSection(title: string) {
  return within(await screen.findByRole('region', { name: title }));
}
