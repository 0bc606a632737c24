// Resolves a session token to its user and the workspace the request acts in, with the user's role
// there, in one statement: it runs on every signed-in request, and asks the membership each time, so
// a member who leaves or is removed loses access at the next request.
import { notFound, unauthenticated } from '@parley/common/rpc-errors.ts';
import { isRole } from '@parley/common/roles.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { AccountUser } from '../core/account-user.ts';
import { hashSessionToken } from '../core/session-token.ts';
import { WORKSPACE_NOT_FOUND, type WorkspaceView } from '../core/workspace.ts';
import { isUuid } from '@parley/common/ids.ts';

export const SESSION_INVALID = 'Session expired. Please login again.';

export interface Authenticated {
  user: AccountUser;
  /**
   * Where the request acts. Undefined only when no workspace was asked for and the person belongs to
   * none (they transferred and left their personal one, and every other).
   */
  workspace?: WorkspaceView;
}

interface Row {
  revokedAt: Date | null;
  expiresAt: Date;
  id: string;
  email: string;
  name: string;
  createdAt: Date;
  twoFactorEnabledAt: Date | null;
  workspaceId: string | null;
  workspaceName: string | null;
  personal: boolean | null;
  workspaceCreatedAt: Date | null;
  role: string | null;
  memberCount: number | null;
  notifyHandoff: boolean | null;
  requireTwoFactor: boolean | null;
}

// A workspace id that is not a UUID is looked for as this one, which names no workspace: the session
// is still checked first, so a bad token is UNAUTHENTICATED whatever the workspace.
const NO_WORKSPACE = '00000000-0000-0000-0000-000000000000';

/**
 * Any token that is not a live session gets one answer. Without a workspace id, the personal
 * workspace (whose id is the user's), or the oldest membership when the person left it; with one, that
 * workspace if the user is a member, else NOT_FOUND (other workspaces' ids reveal nothing).
 */
export async function authenticate(db: PrismaClient, token: string, workspaceId = '', now = new Date()): Promise<Authenticated> {
  if (!token) throw unauthenticated(SESSION_INVALID);
  const wanted = workspaceId ? (isUuid(workspaceId) ? workspaceId.toLowerCase() : NO_WORKSPACE) : null;
  const [row] = await db.$queryRaw<Row[]>`
    SELECT s."revokedAt", s."expiresAt", u."id", u."email", u."name", u."createdAt", u."twoFactorEnabledAt",
           w."id" AS "workspaceId", w."name" AS "workspaceName", w."personal", w."createdAt" AS "workspaceCreatedAt", m."role", m."notifyHandoff",
           w."requireTwoFactor",
           (SELECT count(*)::int FROM "Membership" AS c WHERE c."workspaceId" = w."id") AS "memberCount"
      FROM "Session" AS s
      JOIN "User" AS u ON u."id" = s."userId"
      LEFT JOIN LATERAL (
        SELECT "workspaceId", "role", "notifyHandoff" FROM "Membership"
         WHERE "userId" = u."id" AND (${wanted}::uuid IS NULL OR "workspaceId" = ${wanted}::uuid)
         ORDER BY ("workspaceId" = u."id") DESC, "createdAt", "workspaceId"
         LIMIT 1
      ) AS m ON true
      LEFT JOIN "Workspace" AS w ON w."id" = m."workspaceId"
     WHERE s."tokenHash" = ${hashSessionToken(token)}`;
  if (!row || row.revokedAt || row.expiresAt <= now) throw unauthenticated(SESSION_INVALID);
  const user: AccountUser = {
    id: row.id,
    email: row.email,
    name: row.name,
    createdAt: row.createdAt,
    twoFactorEnabledAt: row.twoFactorEnabledAt,
  };
  if (!row.workspaceId || !isRole(row.role)) {
    if (wanted) throw notFound(WORKSPACE_NOT_FOUND);
    return { user };
  }
  return {
    user,
    workspace: {
      id: row.workspaceId,
      name: row.workspaceName!,
      personal: row.personal!,
      createdAt: row.workspaceCreatedAt!,
      role: row.role,
      memberCount: row.memberCount!,
      notifyHandoff: row.notifyHandoff!,
      requireTwoFactor: row.requireTwoFactor!,
    },
  };
}
