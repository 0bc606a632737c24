// The workspace the app acts in, chosen in the header's switcher, lives in localStorage under
// "workspace" (docs/adr/0030-workspaces.md). Nothing stored means the personal workspace. Storage can
// throw (private mode, disabled storage); a broken storage reads as "the personal workspace".
const WORKSPACE_KEY = 'workspace';

/** The header every request to the gateway carries the chosen workspace in. */
export const WORKSPACE_HEADER = 'x-workspace-id';

export function readWorkspaceId(): string | null {
  try {
    return localStorage.getItem(WORKSPACE_KEY);
  } catch {
    return null;
  }
}

export function writeWorkspaceId(id: string): void {
  try {
    localStorage.setItem(WORKSPACE_KEY, id);
  } catch {
    // Without storage the choice simply does not survive a reload.
  }
}

export function clearWorkspaceId(): void {
  try {
    localStorage.removeItem(WORKSPACE_KEY);
  } catch {
    // Nothing stored, nothing to clear.
  }
}

/** The `X-Workspace-Id` header for the chosen workspace, or nothing for the personal one. */
export function workspaceHeaders(): Record<string, string> {
  const id = readWorkspaceId();
  return id ? { [WORKSPACE_HEADER]: id } : {};
}
