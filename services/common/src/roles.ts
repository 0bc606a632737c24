// The roles of a workspace's members and what each may do: the one table every service and the
// gateway read (docs/adr/0030-workspaces.md). Roles are ranked; a permission names the lowest role
// that holds it, and every role above holds it too.

/** From the most to the least powerful. */
export const ROLES = ['owner', 'admin', 'editor', 'agent', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** The lowest role that holds each permission. */
export const PERMISSIONS = {
  /** Chatbots with their settings and knowledge, analytics, usage, the plan and credit: read only. */
  'workspace:read': 'viewer',
  /** Conversations, their history and export, unanswered questions (visitors' words and data). */
  'conversations:read': 'agent',
  /** Marking unanswered questions resolved, and what later works a conversation. */
  'conversations:write': 'agent',
  /** Chatbots, knowledge, voice, appearance, sites and limits: create, change, delete. */
  'chatbots:write': 'editor',
  /** Members, roles, invitations and the workspace's own settings. */
  'members:manage': 'admin',
  /** The workspace's audit log. */
  'audit:read': 'admin',
  /** The developer API's keys: create, list, roll and revoke (docs/adr/0031-api-keys.md). */
  'apikeys:manage': 'admin',
  /** Plan, checkout, subscription and credit. */
  'billing:manage': 'owner',
  /** Deleting the workspace with everything it owns. */
  'workspace:delete': 'owner',
  /** Giving the owner role to another member. */
  'ownership:transfer': 'owner',
} as const satisfies Record<string, Role>;
export type Permission = keyof typeof PERMISSIONS;

const rank = (role: Role) => ROLES.length - ROLES.indexOf(role);

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Whether a member with this role may do what the permission covers. */
export function can(role: Role, permission: Permission): boolean {
  return rank(role) >= rank(PERMISSIONS[permission]);
}

/** Every permission a role holds, in the table's order (for the product's pages and the API's docs). */
export function permissionsOf(role: Role): Permission[] {
  return (Object.keys(PERMISSIONS) as Permission[]).filter((p) => can(role, p));
}

/** The roles an admin may give or take: every role but owner, which only a transfer of ownership moves. */
export function assignableBy(role: Role): Role[] {
  if (role === 'owner') return ['owner', 'admin', 'editor', 'agent', 'viewer'];
  if (role === 'admin') return ['admin', 'editor', 'agent', 'viewer'];
  return [];
}
