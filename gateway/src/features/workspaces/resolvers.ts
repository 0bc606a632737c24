// GraphQL counterparts of /api/workspaces, /api/workspace and /api/invitations: the same calls
// (./workspaces.ts), roles as the WorkspaceRole enum.
import { assignableBy, type Role } from '@parley/common/roles.ts';
import type { Resolvers, WorkspaceRole } from '../../generated/graphql.ts';
import { authenticate } from '../../access/sessions.ts';
import {
  acceptInvitation,
  auditLog,
  changeMemberRole,
  createWorkspace,
  currentWorkspace,
  deleteWorkspace,
  invitationPreview,
  inviteMember,
  listInvitations,
  listMembers,
  listWorkspaces,
  removeMember,
  renameWorkspace,
  setRequireTwoFactor,
  resendInvitation,
  revokeInvitation,
  roleField,
  transferOwnership,
} from './workspaces.ts';

const enumRole = (role: Role) => role.toUpperCase() as WorkspaceRole;
const withEnumRole = <T extends { role: Role }>(view: T) => ({ ...view, role: enumRole(view.role) });

export const workspaceResolvers: Resolvers = {
  Workspace: {
    assignableRoles: (workspace) => assignableBy(workspace.role.toLowerCase() as Role).map(enumRole),
  },
  Query: {
    workspaces: async (_parent, _args, ctx) =>
      (await listWorkspaces(ctx.clients, ctx.seats, await authenticate(ctx.clients, ctx.token))).map(withEnumRole),
    currentWorkspace: async (_parent, _args, ctx) => withEnumRole(await currentWorkspace(ctx.clients, ctx.seats, await ctx.member())),
    members: async (_parent, _args, ctx) => (await listMembers(ctx.clients, await ctx.member())).map(withEnumRole),
    invitations: async (_parent, _args, ctx) => (await listInvitations(ctx.clients, await ctx.member())).map(withEnumRole),
    auditLog: async (_parent, { filter, first, after }, ctx) =>
      auditLog(ctx.clients, await ctx.member(), {
        action: filter?.action,
        actorUserId: filter?.actorUserId,
        from: filter?.from,
        to: filter?.to,
        first,
        after,
      }),
    invitation: async (_parent, { token }, ctx) => withEnumRole(await invitationPreview(ctx.clients, token)),
  },
  Mutation: {
    createWorkspace: async (_parent, { name }, ctx) =>
      withEnumRole(await createWorkspace(ctx.clients, ctx.seats, await authenticate(ctx.clients, ctx.token), name, ctx.clientIp)),
    setRequireTwoFactor: async (_parent, { enabled }, ctx) =>
      withEnumRole(await setRequireTwoFactor(ctx.clients, ctx.seats, await ctx.member(), enabled)),
    renameWorkspace: async (_parent, { name }, ctx) =>
      withEnumRole(await renameWorkspace(ctx.clients, ctx.seats, await ctx.member(), name)),
    deleteWorkspace: async (_parent, { password }, ctx) => {
      await deleteWorkspace(ctx.clients, await ctx.member(), password);
      return true;
    },
    inviteMember: async (_parent, { email, role }, ctx) =>
      withEnumRole(await inviteMember(ctx.clients, ctx.seats, await ctx.member(), email, roleField(role))),
    resendInvitation: async (_parent, { id }, ctx) => withEnumRole(await resendInvitation(ctx.clients, await ctx.member(), id)),
    revokeInvitation: async (_parent, { id }, ctx) => {
      await revokeInvitation(ctx.clients, await ctx.member(), id);
      return true;
    },
    acceptInvitation: async (_parent, { token }, ctx) =>
      withEnumRole(await acceptInvitation(ctx.clients, ctx.seats, await authenticate(ctx.clients, ctx.token), token, ctx.clientIp)),
    changeMemberRole: async (_parent, { userId, role }, ctx) =>
      withEnumRole(await changeMemberRole(ctx.clients, await ctx.member(), userId, roleField(role))),
    removeMember: async (_parent, { userId }, ctx) => {
      await removeMember(ctx.clients, await ctx.member(), userId);
      return true;
    },
    leaveWorkspace: async (_parent, _args, ctx) => {
      const m = await ctx.member();
      await removeMember(ctx.clients, m, m.user.id);
      return true;
    },
    transferOwnership: async (_parent, { userId }, ctx) => {
      await transferOwnership(ctx.clients, await ctx.member(), userId);
      return true;
    },
  },
};
