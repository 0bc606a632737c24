// What the workspace tests share: a team workspace with a member of every role (memberships written
// in auth's own table, as accepted invitations would leave them), a plan change for the workspace,
// and requests made in a workspace (X-Workspace-Id).
import pg from 'pg';
import { expect } from 'vitest';
import type { Role } from '@parley/common/roles.ts';
import { registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, type ApiResponse, type Stack } from './stack.ts';

export interface Team {
  id: string;
  owner: Owner;
  members: Record<Exclude<Role, 'owner'>, Owner>;
}

export async function sql(database: { databaseUrl: string; schema: string }, text: string, params: unknown[] = []): Promise<any[]> {
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  try {
    return (await client.query(text.replaceAll('$schema', `"${database.schema}"`), params)).rows;
  } finally {
    await client.end();
  }
}

/** A JSON call acting in a workspace. */
export function inWorkspace(stack: Stack, workspaceId: string | undefined, path: string, opts: Parameters<typeof api>[2] = {}) {
  return api(stack.url, path, { ...opts, headers: { ...opts.headers, ...(workspaceId ? { 'x-workspace-id': workspaceId } : {}) } });
}

/** A GraphQL call acting in a workspace. */
export function gqlIn(
  stack: Stack,
  workspaceId: string | undefined,
  token: string,
  query: string,
  variables: Record<string, unknown> = {},
) {
  return inWorkspace(stack, workspaceId, '/graphql', { body: { query, variables }, token });
}

/** Makes (or keeps) the user a member of the workspace with the role. */
export async function setMembership(stack: Stack, workspaceId: string, userId: string, role: Role): Promise<void> {
  await sql(
    stack.authDatabase,
    `INSERT INTO $schema."Membership" ("workspaceId", "userId", role) VALUES ($1, $2, $3)
     ON CONFLICT ("workspaceId", "userId") DO UPDATE SET role = EXCLUDED.role`,
    [workspaceId, userId, role],
  );
}

/** Moves a workspace to a plan in billing's own table, as a completed checkout would. */
export async function setWorkspacePlan(stack: Stack, owner: Owner, workspaceId: string, plan: 'free' | 'pro'): Promise<void> {
  // Reading the workspace makes sure billing has its account.
  expect((await inWorkspace(stack, workspaceId, '/api/workspace', { token: owner.token })).status).toBe(200);
  const updated = await sql(stack.billingDatabase, `UPDATE $schema."Account" SET plan = $2 WHERE "userId" = $1 RETURNING plan`, [
    workspaceId,
    plan,
  ]);
  expect(updated).toHaveLength(1);
}

/** A new workspace owned by a new account, with a member of every other role. */
export async function createTeam(stack: Stack, tag: string): Promise<Team> {
  const owner = await registerOwner(stack, `${tag}-owner`);
  const created: ApiResponse = await api(stack.url, '/api/workspaces', { body: { name: `${tag} team` }, token: owner.token });
  expect(created.status).toBe(201);
  const id: string = created.body.id;
  const members = {} as Team['members'];
  for (const role of ['admin', 'editor', 'agent', 'viewer'] as const) {
    members[role] = await registerOwner(stack, `${tag}-${role}`);
    await setMembership(stack, id, members[role].userId, role);
  }
  return { id, owner, members };
}
