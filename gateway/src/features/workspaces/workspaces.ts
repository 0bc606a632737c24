// Workspaces, members, invitations and the audit log as the gateway sees them (docs/adr/0030-workspaces.md):
// thin calls to auth's WorkspaceService shared by REST and GraphQL. Auth owns every rule and message
// and checks the actor's role itself; the gateway adds the seat limit of the workspace's plan
// (billing's) and the client's IP, and records the billing actions it starts.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { AuditEvent, Invitation, Member as WorkspaceMember, Workspace } from '@parley/proto/parley/auth/v1/workspaces_pb.js';
import { Plan } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { Code, ConnectError, invalid } from '@parley/common/rpc-errors.ts';
import { isRole, permissionsOf, ROLES, type Role } from '@parley/common/roles.ts';
import { isoDate } from '../../http/dates.ts';
import type { Clients } from '../../http/clients.ts';
import type { Member } from '../../access/members.ts';
import type { AuthUser } from '../../access/users.ts';

/** How many members and pending invitations each plan allows (SEATS_FREE, SEATS_PRO). */
export interface Seats {
  free: number;
  pro: number;
}

export const DEFAULT_SEATS: Seats = { free: 1, pro: 5 };
export const ROLE_INVALID = `role must be one of ${ROLES.join(', ')}`;
export const AUDIT_PAGE_INVALID = 'first must be a whole number from 1 to 100';
export const AUDIT_DATE_INVALID = (field: string) => `${field} must be an ISO 8601 date and time`;

export interface WorkspaceView {
  id: string;
  name: string;
  personal: boolean;
  createdAt: string;
  role: Role;
  permissions: string[];
  memberCount: number;
  seatLimit: number;
  /** The member's own choice of mails about visitors waiting for a person. */
  handoffNotifications: boolean;
  /** Members must have two-factor sign-in on before the workspace serves them. */
  requireTwoFactor: boolean;
}

export interface MemberView {
  userId: string;
  email: string;
  name: string;
  role: Role;
  joinedAt: string;
}

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

export interface InvitationPreviewView {
  workspaceName: string;
  email: string;
  role: Role;
  invitedBy: string;
  expiresAt: string;
}

export interface AuditEventView {
  id: string;
  actorEmail: string | null;
  action: string;
  target: string;
  details: string;
  clientIp: string | null;
  createdAt: string;
}

export interface AuditEventPageView {
  events: AuditEventView[];
  nextCursor: string | null;
}

/** A role as auth sends it; anything else is auth breaking its contract (a logged 500). */
function roleOf(value: string): Role {
  if (!isRole(value)) throw new ConnectError(`auth returned the role ${value}`, Code.Internal);
  return value;
}

const date = (ts: Parameters<typeof isoDate>[0]) => isoDate(ts) ?? new Date(0).toISOString();

/** The plan of a workspace, as the seat limit's message names it. */
async function planOf(clients: Clients, workspaceId: string): Promise<{ plan: 'free' | 'pro'; seatLimit: (seats: Seats) => number }> {
  const { account } = await clients.billing.getAccount({ ownerId: workspaceId });
  const plan = account?.plan === Plan.PRO ? 'pro' : 'free';
  return { plan, seatLimit: (seats) => seats[plan] };
}

async function workspaceView(clients: Clients, seats: Seats, w: Workspace | undefined): Promise<WorkspaceView> {
  if (!w) throw new ConnectError('auth returned no workspace', Code.Internal);
  const role = roleOf(w.role);
  const { seatLimit } = await planOf(clients, w.id);
  return {
    id: w.id,
    name: w.name,
    personal: w.personal,
    createdAt: date(w.createdAt),
    role,
    permissions: permissionsOf(role),
    memberCount: w.memberCount,
    seatLimit: seatLimit(seats),
    handoffNotifications: w.notifyHandoff,
    requireTwoFactor: w.requireTwoFactor,
  };
}

const memberView = (m: WorkspaceMember | undefined): MemberView => {
  if (!m) throw new ConnectError('auth returned no member', Code.Internal);
  return { userId: m.userId, email: m.email, name: m.name, role: roleOf(m.role), joinedAt: date(m.joinedAt) };
};

const invitationView = (i: Invitation | undefined): InvitationView => {
  if (!i) throw new ConnectError('auth returned no invitation', Code.Internal);
  return {
    id: i.id,
    email: i.email,
    role: roleOf(i.role),
    invitedBy: i.invitedBy,
    createdAt: date(i.createdAt),
    expiresAt: date(i.expiresAt),
  };
};

const auditEventView = (e: AuditEvent): AuditEventView => ({
  id: e.id,
  actorEmail: e.actorEmail || null,
  action: e.action,
  target: e.target,
  details: e.detailsJson || '{}',
  clientIp: e.clientIp || null,
  createdAt: date(e.createdAt),
});

export const actor = (m: Member) => ({ userId: m.user.id, workspaceId: m.ownerId, clientIp: m.clientIp });

/** A role the client sent (REST lowercase, GraphQL's enum lowercased). */
export function roleField(value: unknown): Role {
  const role = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (!isRole(role)) throw invalid(ROLE_INVALID);
  return role;
}

export async function listWorkspaces(clients: Clients, seats: Seats, user: AuthUser): Promise<WorkspaceView[]> {
  const { workspaces } = await clients.workspaces.listWorkspaces({ userId: user.id });
  return Promise.all(workspaces.map((w) => workspaceView(clients, seats, w)));
}

export async function createWorkspace(
  clients: Clients,
  seats: Seats,
  user: AuthUser,
  name: string,
  clientIp: string,
): Promise<WorkspaceView> {
  const { workspace } = await clients.workspaces.createWorkspace({ userId: user.id, name, clientIp });
  return workspaceView(clients, seats, workspace);
}

export function currentWorkspace(clients: Clients, seats: Seats, m: Member): Promise<WorkspaceView> {
  return workspaceView(clients, seats, m.workspace);
}

export async function renameWorkspace(clients: Clients, seats: Seats, m: Member, name: string): Promise<WorkspaceView> {
  const { workspace } = await clients.workspaces.renameWorkspace({ actor: actor(m), name });
  return workspaceView(clients, seats, workspace);
}

/** "Require two-factor sign-in for members"; members:manage, and the caller's own two-factor sign-in on to turn it on. */
export async function setRequireTwoFactor(clients: Clients, seats: Seats, m: Member, enabled: boolean): Promise<WorkspaceView> {
  const { workspace } = await clients.workspaces.setRequireTwoFactor({ actor: actor(m), enabled });
  return workspaceView(clients, seats, workspace);
}

/** The member's own switch for mails about visitors waiting for a person; answers it as stored. */
export async function setHandoffNotifications(clients: Clients, m: Member, enabled: boolean): Promise<boolean> {
  const { workspace } = await clients.workspaces.setHandoffNotifications({ actor: actor(m), enabled });
  return workspace?.notifyHandoff ?? enabled;
}

export async function deleteWorkspace(clients: Clients, m: Member, password: string): Promise<void> {
  await clients.workspaces.deleteWorkspace({ actor: actor(m), password });
}

export async function listMembers(clients: Clients, m: Member): Promise<MemberView[]> {
  const { members } = await clients.workspaces.listMembers({ actor: actor(m) });
  return members.map(memberView);
}

export async function changeMemberRole(clients: Clients, m: Member, userId: string, role: Role): Promise<MemberView> {
  const { member } = await clients.workspaces.changeMemberRole({ actor: actor(m), memberUserId: userId, role });
  return memberView(member);
}

/** Removes a member; the member's own id leaves the workspace. */
export async function removeMember(clients: Clients, m: Member, userId: string): Promise<void> {
  await clients.workspaces.removeMember({ actor: actor(m), memberUserId: userId });
}

export async function transferOwnership(clients: Clients, m: Member, userId: string): Promise<void> {
  await clients.workspaces.transferOwnership({ actor: actor(m), memberUserId: userId });
}

export async function inviteMember(clients: Clients, seats: Seats, m: Member, email: string, role: Role): Promise<InvitationView> {
  const { plan, seatLimit } = await planOf(clients, m.ownerId);
  const { invitation } = await clients.workspaces.createInvitation({ actor: actor(m), email, role, seatLimit: seatLimit(seats), plan });
  return invitationView(invitation);
}

export async function listInvitations(clients: Clients, m: Member): Promise<InvitationView[]> {
  const { invitations } = await clients.workspaces.listInvitations({ actor: actor(m) });
  return invitations.map(invitationView);
}

export async function resendInvitation(clients: Clients, m: Member, id: string): Promise<InvitationView> {
  const { invitation } = await clients.workspaces.resendInvitation({ actor: actor(m), invitationId: id });
  return invitationView(invitation);
}

export async function revokeInvitation(clients: Clients, m: Member, id: string): Promise<void> {
  await clients.workspaces.revokeInvitation({ actor: actor(m), invitationId: id });
}

export async function invitationPreview(clients: Clients, token: string): Promise<InvitationPreviewView> {
  const res = await clients.workspaces.getInvitation({ token });
  return {
    workspaceName: res.workspaceName,
    email: res.email,
    role: roleOf(res.role),
    invitedBy: res.invitedBy,
    expiresAt: date(res.expiresAt),
  };
}

/** Joins the invitation's workspace; the seat limit is that workspace's plan's. */
export async function acceptInvitation(
  clients: Clients,
  seats: Seats,
  user: AuthUser,
  token: string,
  clientIp: string,
): Promise<WorkspaceView> {
  const { workspaceId } = await clients.workspaces.getInvitation({ token });
  const { plan, seatLimit } = await planOf(clients, workspaceId);
  const { workspace } = await clients.workspaces.acceptInvitation({ token, userId: user.id, clientIp, seatLimit: seatLimit(seats), plan });
  return workspaceView(clients, seats, workspace);
}

export interface AuditQuery {
  action?: string | null;
  actorUserId?: string | null;
  from?: string | null;
  to?: string | null;
  first?: number | null;
  after?: string | null;
}

function timestampOf(raw: string | null | undefined, field: string) {
  if (raw === undefined || raw === null || raw.trim() === '') return undefined;
  const parsed = new Date(raw.trim());
  if (Number.isNaN(parsed.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(raw.trim())) throw invalid(AUDIT_DATE_INVALID(field));
  return timestampFromDate(parsed);
}

export async function auditLog(clients: Clients, m: Member, query: AuditQuery): Promise<AuditEventPageView> {
  const first = query.first ?? 50;
  if (!Number.isInteger(first) || first < 1 || first > 100) throw invalid(AUDIT_PAGE_INVALID);
  const { events, nextCursor } = await clients.workspaces.listAuditEvents({
    actor: actor(m),
    action: query.action?.trim() ?? '',
    actorUserId: query.actorUserId?.trim() ?? '',
    from: timestampOf(query.from, 'from'),
    to: timestampOf(query.to, 'to'),
    limit: first,
    cursor: query.after ?? '',
  });
  return { events: events.map(auditEventView), nextCursor: nextCursor || null };
}

/** Records a billing or plan action the gateway starts for the workspace, with its actor and IP. */
export async function recordBillingAction(
  clients: Clients,
  m: Member,
  action: string,
  target: string,
  details: object = {},
): Promise<void> {
  await clients.workspaces.recordAuditEvent({ actor: actor(m), action, target, detailsJson: JSON.stringify(details) });
}
