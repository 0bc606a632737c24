import { useApolloClient } from '@apollo/client/react';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { graphqlErrorCode, userFacingErrorMessage } from '../graphql-errors';
import { useSession } from '../session/session-context';
import { WorkspaceIdsQuery } from './graphql/workspace-ids-query';
import { WorkspaceListQuery } from './graphql/workspace-list-query';
import { WorkspacesQuery } from './graphql/workspaces-query';
import type { Workspace } from './roles';
import { WorkspaceContext, type WorkspaceState } from './workspace-context';
import { clearWorkspaceId, readWorkspaceId, writeWorkspaceId } from './workspace-storage';

export const LOAD_WORKSPACES_FAILED_MESSAGE = 'Could not load your workspaces.';

// How the gateway refuses a workspace the user is not (or no longer) a member of.
const UNKNOWN_WORKSPACE_CODES = new Set(['NOT_FOUND', 'FORBIDDEN', 'BAD_USER_INPUT']);

interface LoadState {
  workspaces: Workspace[];
  current: Workspace | null;
  loading: boolean;
  error: string | null;
  noWorkspace: boolean;
  /** The user this answer is about: until the signed-in user's first one, the workspace is loading. */
  answeredFor: string | null;
}

const EMPTY: LoadState = { workspaces: [], current: null, loading: false, error: null, noWorkspace: false, answeredFor: null };

/**
 * The workspace the app acts in (docs/adr/0030-workspaces.md): the switcher's choice, kept in the
 * browser and sent on every request. A workspace the user no longer belongs to (removed, left,
 * deleted) falls back to the personal one. Signing out forgets the choice. A person in no workspace
 * at all (the personal one transferred and left) has none: `noWorkspace`.
 */
export function WorkspaceProvider({ children }: { children: ReactNode }) {
  const client = useApolloClient();
  const { user } = useSession();
  const userId = user?.id ?? null;
  const [selected, setSelected] = useState<string | null>(() => readWorkspaceId());
  const [state, setState] = useState<LoadState>(() => ({ ...EMPTY, loading: userId !== null }));
  // Bumped by every load, sign-in and sign-out, so a slow answer cannot overwrite a newer one.
  const generation = useRef(0);
  const previousUser = useRef<string | null>(userId);

  const fallBackToPersonal = useCallback(async () => {
    clearWorkspaceId();
    // Whatever was loaded for the lost workspace is refused too: load it again for the personal one.
    await client.resetStore().catch(() => undefined);
    setSelected(null);
  }, [client]);

  const belongsToNone = useCallback(async (): Promise<boolean> => {
    try {
      const { data } = await client.query({ query: WorkspaceIdsQuery, fetchPolicy: 'network-only' });
      return data?.workspaces.length === 0;
    } catch {
      return false;
    }
  }, [client]);

  /**
   * The workspace refuses the person until they turn on two-factor sign-in: it is still the current
   * one (the stored choice, else the personal one, else the first that requires it), so the route
   * guard can send them to set it up.
   */
  const loadRequiringTwoFactor = useCallback(
    async (current: () => boolean): Promise<void> => {
      try {
        const { data } = await client.query({ query: WorkspaceListQuery, fetchPolicy: 'network-only' });
        if (!data) throw new Error('empty workspaces response');
        if (!current()) return;
        const stored = readWorkspaceId();
        const found = data.workspaces.find((w) => w.id === (stored ?? userId)) ?? data.workspaces.find((w) => w.requireTwoFactor) ?? null;
        setState({ workspaces: data.workspaces, current: found, loading: false, error: null, noWorkspace: false, answeredFor: userId });
      } catch (error) {
        if (!current()) return;
        const message = userFacingErrorMessage(error, LOAD_WORKSPACES_FAILED_MESSAGE);
        setState((s) => ({ ...s, loading: false, error: message, answeredFor: userId }));
      }
    },
    [client, userId],
  );

  const load = useCallback(async (): Promise<void> => {
    const started = ++generation.current;
    const current = () => generation.current === started;
    setState((s) => ({ ...s, loading: true }));
    // The choice this answer is for: one stored meanwhile (another tab created a workspace and switched
    // to it) is not judged by a list asked for before it, and applies at the next load.
    const asked = readWorkspaceId();
    try {
      const { data } = await client.query({ query: WorkspacesQuery, fetchPolicy: 'network-only' });
      if (!data) throw new Error('empty workspaces response');
      if (!current()) return;
      if (asked !== null && readWorkspaceId() === asked && !data.workspaces.some((w) => w.id === asked)) {
        await fallBackToPersonal();
        return load();
      }
      setState({
        workspaces: data.workspaces,
        current: data.currentWorkspace,
        loading: false,
        error: null,
        noWorkspace: false,
        answeredFor: userId,
      });
    } catch (error) {
      if (!current()) return;
      const code = graphqlErrorCode(error);
      if (code === 'TWO_FACTOR_REQUIRED') {
        await loadRequiringTwoFactor(current);
        return;
      }
      if (asked !== null && readWorkspaceId() === asked && code !== undefined && UNKNOWN_WORKSPACE_CODES.has(code)) {
        await fallBackToPersonal();
        return load();
      }
      // Without a choice the request acts in the personal workspace, or the oldest they belong to:
      // not found means none, unless they joined one meanwhile.
      if (code === 'NOT_FOUND' && (await belongsToNone())) {
        if (current()) setState({ ...EMPTY, noWorkspace: true, answeredFor: userId });
        return;
      }
      if (!current()) return;
      setState((s) => ({
        ...s,
        loading: false,
        error: userFacingErrorMessage(error, LOAD_WORKSPACES_FAILED_MESSAGE),
        answeredFor: userId,
      }));
    }
  }, [client, userId, fallBackToPersonal, belongsToNone, loadRequiringTwoFactor]);

  // Signing in loads the workspaces; signing out forgets them and the choice.
  useEffect(() => {
    const signedOut = previousUser.current !== null && userId === null;
    previousUser.current = userId;
    if (userId === null) {
      generation.current += 1;
      if (signedOut) {
        clearWorkspaceId();
        setSelected(null);
      }
      setState(EMPTY);
      return;
    }
    void load();
  }, [userId, load]);

  const select = useCallback(
    async (id: string) => {
      const personal = state.workspaces.find((w) => w.id === id)?.personal ?? false;
      // The personal workspace is the one without the header, as for every request before workspaces.
      if (personal) clearWorkspaceId();
      else writeWorkspaceId(id);
      generation.current += 1;
      setState((s) => ({ ...s, current: s.workspaces.find((w) => w.id === id) ?? s.current }));
      // The cache is emptied before the key changes: a fetch the new key starts must not be cancelled by it.
      await client.resetStore().catch(() => undefined);
      setSelected(personal ? null : id);
      await load();
    },
    [client, load, state.workspaces],
  );

  const forget = useCallback(async () => {
    clearWorkspaceId();
    generation.current += 1;
    setState((s) => ({ ...s, workspaces: s.workspaces.filter((w) => w.id !== s.current?.id), current: null, loading: true }));
    await client.resetStore().catch(() => undefined);
    setSelected(null);
    await load();
  }, [client, load]);

  const value = useMemo<WorkspaceState>(
    () => ({
      workspaces: state.workspaces,
      current: state.current,
      // Signed in, and not answered yet for this user: loading, so no page asks in a workspace unknown.
      loading: state.loading || (userId !== null && state.answeredFor !== userId),
      error: state.error,
      noWorkspace: state.noWorkspace,
      key: userId === null ? '' : `${userId}:${selected ?? 'personal'}`,
      select,
      refresh: load,
      forget,
    }),
    [state, userId, selected, select, load, forget],
  );

  return <WorkspaceContext.Provider value={value}>{children}</WorkspaceContext.Provider>;
}
