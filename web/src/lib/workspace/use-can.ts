import { hasPermission, type Permission } from './roles';
import { useWorkspace } from './workspace-context';

/**
 * Whether the signed-in member's role in the current workspace allows `permission`, to hide what it
 * does not (the server refuses it anyway). While the workspace is not known yet, nothing is hidden;
 * a person in no workspace may do nothing in one.
 */
export function useCan(permission: Permission): boolean {
  const { current, noWorkspace } = useWorkspace();
  if (noWorkspace) return false;
  return current === null || hasPermission(current, permission);
}
