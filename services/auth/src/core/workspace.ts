// What the workspace use cases share: the view of a workspace a member gets, input rules for ids,
// names and roles, and the messages every caller shows (docs/adr/0030-workspaces.md).
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import { isRole, type Role } from '@parley/common/roles.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';
import { isUuid } from '@parley/common/ids.ts';

export const WORKSPACE_NOT_FOUND = 'Workspace not found';
export const MEMBER_NOT_FOUND = 'Member not found';
export const MAX_WORKSPACE_NAME_LENGTH = 100;

/** A workspace as one of its members sees it. */
export interface WorkspaceView {
  id: string;
  name: string;
  personal: boolean;
  createdAt: Date;
  /** The asking member's role. */
  role: Role;
  memberCount: number;
  /** The asking member's choice of mails about visitors waiting for a person. */
  notifyHandoff: boolean;
  /** Members must have two-factor sign-in on before the workspace serves them. */
  requireTwoFactor: boolean;
}

/** A workspace id from a caller: anything that is not a UUID names no workspace (NOT_FOUND). */
export function parseWorkspaceId(raw: string): string {
  if (!isUuid(raw)) throw notFound(WORKSPACE_NOT_FOUND);
  return raw.toLowerCase();
}

/** A member's user id: anything that is not a UUID names no member (NOT_FOUND). */
export function parseMemberId(raw: string): string {
  if (!isUuid(raw)) throw notFound(MEMBER_NOT_FOUND);
  return raw.toLowerCase();
}

export function parseWorkspaceName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalid('Please enter a name for the workspace');
  if (hasControlCharacters(name)) throw invalid('Name must not contain control characters');
  if (name.length > MAX_WORKSPACE_NAME_LENGTH) throw invalid(`Name must be at most ${MAX_WORKSPACE_NAME_LENGTH} characters`);
  return name;
}

export function parseRole(raw: string): Role {
  if (!isRole(raw)) throw invalid('Role must be one of owner, admin, editor, agent or viewer');
  return raw;
}

/** A personal workspace's name: "<name>'s workspace", or the email's local part's when the person has no name. */
export function personalWorkspaceName(user: { name: string; email: string }): string {
  return `${user.name || user.email.split('@')[0]}'s workspace`;
}

/**
 * The personal workspace of a new account, with the account as its owner: its id is the account's,
 * so the owner id every service stores for the account names it. In the registration's transaction.
 */
export async function createPersonalWorkspace(
  tx: Prisma.TransactionClient,
  user: { id: string; name: string; email: string; createdAt: Date },
) {
  await tx.workspace.create({
    data: {
      id: user.id,
      name: personalWorkspaceName(user),
      personal: true,
      createdAt: user.createdAt,
      memberships: { create: { userId: user.id, role: 'owner', createdAt: user.createdAt } },
    },
  });
}
