import type { WorkspaceFieldsFragment, WorkspaceRole } from '../../gql/graphql';

export type Workspace = WorkspaceFieldsFragment;
/** The permission names of the role table (services/common/src/roles.ts), as `Workspace.permissions` lists them. */
export type Permission =
  | 'workspace:read'
  | 'conversations:read'
  | 'conversations:write'
  | 'chatbots:write'
  | 'members:manage'
  | 'audit:read'
  | 'apikeys:manage'
  | 'webhooks:manage'
  | 'billing:manage'
  | 'workspace:delete'
  | 'ownership:transfer';

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

/** Whether the signed-in member's role in the workspace holds the permission (the server decides; this shapes the page). */
export function hasPermission(workspace: Pick<Workspace, 'permissions'> | null | undefined, permission: Permission): boolean {
  return workspace?.permissions.includes(permission) ?? false;
}

/** "2 of 5 seats": members and pending invitations count against the plan's seats. */
export function seatsLabel(used: number, limit: number): string {
  return `${used} of ${limit} ${limit === 1 ? 'seat' : 'seats'}`;
}
