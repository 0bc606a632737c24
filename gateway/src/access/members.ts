// The routes not yet in an operation table (http/operations.ts) find their permission in
// permissions.ts's table by the route's Express path; everything else about the member is
// workspace-member.ts's, re-exported here for them.
import type { Request } from 'express';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { accessOf, isPermission } from './permissions.ts';
import type { Clients } from '../http/clients.ts';
import { member, restCaller, type Member } from './workspace-member.ts';

export * from './workspace-member.ts';

/** A REST route's template as permissions.ts names it: `GET /api/chatbot/:id`. */
export function routeKey(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route?.path;
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  return `${method} ${req.baseUrl}${route === '/' && req.baseUrl ? '' : String(route)}`;
}

/** The member a REST route acts for, checked against the route's permission in permissions.ts. */
export async function routeMember(clients: Clients, req: Request): Promise<Member> {
  const key = routeKey(req);
  const access = accessOf(key);
  // A route the table does not name as an owner route never acts for an owner.
  if (!isPermission(access)) throw new ConnectError(`no permission for ${key}`, Code.Internal);
  return member(clients, restCaller(req), access);
}

/** The workspace a REST route acts in (its ownerId), checked against the route's permission. */
export async function ownerId(clients: Clients, req: Request): Promise<string> {
  return (await routeMember(clients, req)).ownerId;
}
