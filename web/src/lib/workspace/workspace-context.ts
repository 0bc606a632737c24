import { createContext, useContext } from 'react';
import type { Workspace } from './roles';

export interface WorkspaceState {
  /** Every workspace the signed-in user belongs to, personal first; empty while loading or signed out. */
  workspaces: Workspace[];
  /** The workspace requests act in; null while loading, signed out, or when it could not be read. */
  current: Workspace | null;
  loading: boolean;
  error: string | null;
  /**
   * Signed in, and a member of no workspace (they transferred their personal one and left every
   * other): nothing is shown of any workspace, and the dashboard offers creating one or joining by
   * an invitation.
   */
  noWorkspace: boolean;
  /**
   * Changes with the workspace the app acts in (and the user), so data kept outside Apollo's cache
   * (the chatbot list) knows to load again.
   */
  key: string;
  /** Acts in another workspace from now on: stores the choice, empties the cache, reloads everything. */
  select: (id: string) => Promise<void>;
  /** Asks for the workspaces again, e.g. after one was created, renamed or joined. */
  refresh: () => Promise<void>;
  /**
   * The current workspace is gone for this user (left, deleted) and no other is known: forgets it at
   * once (nothing of it stays shown, its cache is emptied) and asks again where the user acts, which
   * for a person in no workspace is nowhere.
   */
  forget: () => Promise<void>;
}

export const WorkspaceContext = createContext<WorkspaceState | null>(null);

const SIGNED_OUT: WorkspaceState = {
  workspaces: [],
  current: null,
  loading: false,
  error: null,
  noWorkspace: false,
  key: '',
  select: async () => undefined,
  refresh: async () => undefined,
  forget: async () => undefined,
};

/** The workspace the app acts in. Outside a <WorkspaceProvider> (a test of one card) there is none. */
export function useWorkspace(): WorkspaceState {
  return useContext(WorkspaceContext) ?? SIGNED_OUT;
}
