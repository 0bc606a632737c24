import type { WorkspaceFieldsFragment, WorkspaceRole } from '../../gql/graphql';
import { assignableBy, type Permission, type Role } from '../../../../services/common/src/roles';

export type Workspace = WorkspaceFieldsFragment;
export type { Permission };

/** The roles as the product names them, from the most to the least powerful. */
export const ROLE_LABELS: Record<WorkspaceRole, string> = {
  OWNER: 'Owner',
  ADMIN: 'Admin',
  EDITOR: 'Editor',
  AGENT: 'Agent',
  VIEWER: 'Viewer',
};

/** What each role may do, in a sentence, for the role pickers. */
export const ROLE_DESCRIPTIONS: Record<WorkspaceRole, string> = {
  OWNER: 'Everything, including billing and deleting the workspace.',
  ADMIN: 'Members, invitations and settings, and everything an editor does.',
  EDITOR: 'Creates and changes chatbots and their knowledge.',
  AGENT: 'Reads chatbots and works their conversations.',
  VIEWER: 'Reads chatbots, analytics and usage, not conversations.',
};

const toRole = (role: WorkspaceRole) => role.toLowerCase() as Role;
const fromRole = (role: Role) => role.toUpperCase() as WorkspaceRole;

/** Whether the signed-in member's role in the workspace holds the permission (the server decides; this shapes the page). */
export function hasPermission(workspace: Pick<Workspace, 'permissions'> | null | undefined, permission: Permission): boolean {
  return workspace?.permissions.includes(permission) ?? false;
}

/** The roles a member with `role` may give, from the role table (services/common/src/roles.ts). */
export function assignableRoles(role: WorkspaceRole): WorkspaceRole[] {
  return assignableBy(toRole(role)).map(fromRole);
}

/** "2 of 5 seats": members and pending invitations count against the plan's seats. */
export function seatsLabel(used: number, limit: number): string {
  return `${used} of ${limit} ${limit === 1 ? 'seat' : 'seats'}`;
}
