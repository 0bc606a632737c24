import { ApolloProvider } from '@apollo/client/react';
import { act, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockLink, graphqlError, sampleUser, type Handler } from '../../../test/mock-link';
import { createApolloClient } from '../../apollo-client';
import { readToken, writeToken } from '../../token-storage';
import { MeQuery } from '../graphql/me-query';
import { useSession, type Session } from '../session-context';
import { SessionProvider } from '../session-provider';

function renderSession(handlers: Record<string, Handler>) {
  const { link, calls } = mockLink(handlers);
  const client = createApolloClient(link);
  const current: { session: Session | null } = { session: null };
  function Probe() {
    current.session = useSession();
    const { loading, user, error } = current.session;
    return <p data-testid="state">{loading ? 'loading' : user ? `signed in as ${user.email}` : `signed out: ${error ?? 'no error'}`}</p>;
  }
  render(
    <ApolloProvider client={client}>
      <SessionProvider>
        <Probe />
      </SessionProvider>
    </ApolloProvider>,
  );
  return { calls, client, session: () => current.session!, state: () => screen.getByTestId('state').textContent };
}

describe('SessionProvider', () => {
  it('is signed out without asking the server when no token is stored', async () => {
    const { calls, state } = renderSession({});
    await waitFor(() => expect(state()).toBe('signed out: no error'));
    expect(calls).toHaveLength(0);
  });

  it('restores the session from a stored token by asking for me, sending the bearer token', async () => {
    writeToken('good-token');
    const { calls, state, session } = renderSession({ Me: () => ({ data: { me: sampleUser } }) });
    expect(state()).toBe('loading');
    await waitFor(() => expect(state()).toBe('signed in as ada@example.com'));
    expect(calls[0].headers.authorization).toBe('Bearer good-token');
    expect(session().isAuthenticated).toBe(true);
  });

  it('clears the token and says the session expired when the server answers UNAUTHENTICATED', async () => {
    writeToken('revoked-token');
    const { state, session } = renderSession({ Me: () => graphqlError('Not signed in', 'UNAUTHENTICATED') });
    await waitFor(() => expect(state()).toBe('signed out: Session expired. Please login again.'));
    expect(readToken()).toBeNull();
    expect(session().isAuthenticated).toBe(false);
  });

  it('reports "Authentication failed" for any other failure and keeps the token for a later retry', async () => {
    writeToken('good-token');
    const { state } = renderSession({
      Me: () => {
        throw new Error('Failed to fetch');
      },
    });
    await waitFor(() => expect(state()).toBe('signed out: Authentication failed'));
    expect(readToken()).toBe('good-token');
  });

  it('reports "Authentication failed" for a server error that is not about the session', async () => {
    writeToken('good-token');
    const { state } = renderSession({ Me: () => graphqlError('Auth service unavailable', 'SERVICE_UNAVAILABLE') });
    await waitFor(() => expect(state()).toBe('signed out: Authentication failed'));
  });

  it('fills in the default credit when the user has none', async () => {
    writeToken('good-token');
    const user = { ...sampleUser, usage: { __typename: 'Usage' as const, creditBalance: '', lastCreditRefill: null } };
    const { state, session } = renderSession({ Me: () => ({ data: { me: user } }) });
    await waitFor(() => expect(state()).toBe('signed in as ada@example.com'));
    expect(session().user?.usage.creditBalance).toBe('0.01');
    expect(Number.isNaN(Date.parse(session().user?.usage.lastCreditRefill ?? ''))).toBe(false);
  });

  it('signIn stores the token and the user', async () => {
    const { state, session } = renderSession({});
    await waitFor(() => expect(state()).toBe('signed out: no error'));
    act(() => session().signIn('new-token', sampleUser));
    expect(state()).toBe('signed in as ada@example.com');
    expect(readToken()).toBe('new-token');
  });

  it('logout revokes the token on the server, then clears token, user and cache', async () => {
    writeToken('good-token');
    const { calls, client, state, session } = renderSession({
      Me: () => ({ data: { me: sampleUser } }),
      Logout: () => ({ data: { logout: true } }),
    });
    await waitFor(() => expect(state()).toBe('signed in as ada@example.com'));
    expect(client.readQuery({ query: MeQuery })?.me.email).toBe('ada@example.com');

    await act(() => session().logout());

    const logoutCall = calls.find((c) => c.operationName === 'Logout');
    expect(logoutCall?.headers.authorization).toBe('Bearer good-token');
    expect(readToken()).toBeNull();
    expect(state()).toBe('signed out: no error');
    expect(client.readQuery({ query: MeQuery })).toBeNull();
  });

  it('logout clears everything locally even when the server call fails', async () => {
    writeToken('good-token');
    const { state, session, client } = renderSession({
      Me: () => ({ data: { me: sampleUser } }),
      Logout: () => {
        throw new Error('Failed to fetch');
      },
    });
    await waitFor(() => expect(state()).toBe('signed in as ada@example.com'));

    await act(() => session().logout());

    expect(readToken()).toBeNull();
    expect(state()).toBe('signed out: no error');
    expect(client.readQuery({ query: MeQuery })).toBeNull();
  });

  it('endLocally forgets token, user and cache without asking the server', async () => {
    writeToken('good-token');
    const { calls, client, state, session } = renderSession({ Me: () => ({ data: { me: sampleUser } }) });
    await waitFor(() => expect(state()).toBe('signed in as ada@example.com'));

    await act(() => session().endLocally());

    expect(calls.map((c) => c.operationName)).toEqual(['Me']);
    expect(readToken()).toBeNull();
    expect(state()).toBe('signed out: no error');
    expect(client.readQuery({ query: MeQuery })).toBeNull();
  });

  it('updateUser shows the signed-in user as the server answered it, and ignores anyone else', async () => {
    writeToken('good-token');
    const { state, session } = renderSession({ Me: () => ({ data: { me: sampleUser } }) });
    await waitFor(() => expect(state()).toBe('signed in as ada@example.com'));

    act(() => session().updateUser({ ...sampleUser, email: 'grace@example.com', name: 'Grace' }));
    expect(state()).toBe('signed in as grace@example.com');
    expect(session().user?.name).toBe('Grace');

    act(() => session().updateUser({ ...sampleUser, id: 'someone-else', email: 'eve@example.com' }));
    expect(state()).toBe('signed in as grace@example.com');
  });

  it('updateUser changes nothing once signed out', async () => {
    const { state, session } = renderSession({});
    await waitFor(() => expect(state()).toBe('signed out: no error'));
    act(() => session().updateUser(sampleUser));
    expect(state()).toBe('signed out: no error');
  });
});
