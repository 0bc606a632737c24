import { screen, within } from '@testing-library/react';
import type { WorkspaceRole } from '../gql/graphql';
import { mockLink, sampleUser, type Handler } from './mock-link';
import { renderApp } from './render-app';
import { billingAnswers } from './usage-fixtures';

// Workspace answers as the gateway gives them (with __typename, as Apollo asks for it).

const PERMISSIONS: Record<WorkspaceRole, string[]> = {
  OWNER: [
    'workspace:read',
    'conversations:read',
    'conversations:write',
    'chatbots:write',
    'members:manage',
    'audit:read',
    'billing:manage',
    'workspace:delete',
    'ownership:transfer',
    'webhooks:manage',
  ],
  ADMIN: [
    'workspace:read',
    'conversations:read',
    'conversations:write',
    'chatbots:write',
    'members:manage',
    'audit:read',
    'webhooks:manage',
  ],
  EDITOR: ['workspace:read', 'conversations:read', 'conversations:write', 'chatbots:write'],
  AGENT: ['workspace:read', 'conversations:read', 'conversations:write'],
  VIEWER: ['workspace:read'],
};

const ASSIGNABLE: Record<WorkspaceRole, WorkspaceRole[]> = {
  OWNER: ['OWNER', 'ADMIN', 'EDITOR', 'AGENT', 'VIEWER'],
  ADMIN: ['ADMIN', 'EDITOR', 'AGENT', 'VIEWER'],
  EDITOR: [],
  AGENT: [],
  VIEWER: [],
};

export function sampleWorkspace(
  overrides: {
    id?: string;
    name?: string;
    personal?: boolean;
    role?: WorkspaceRole;
    memberCount?: number;
    seatLimit?: number;
    requireTwoFactor?: boolean;
  } = {},
) {
  const role = overrides.role ?? 'OWNER';
  return {
    __typename: 'Workspace' as const,
    id: 'w-team',
    name: 'Acme Team',
    personal: false,
    role,
    permissions: PERMISSIONS[role],
    assignableRoles: ASSIGNABLE[role],
    memberCount: 2,
    seatLimit: 5,
    requireTwoFactor: false,
    ...overrides,
  };
}

export const personalWorkspace = sampleWorkspace({ id: sampleUser.id, name: 'Ada', personal: true, memberCount: 1, seatLimit: 1 });

export function sampleMember(overrides: { userId?: string; email?: string; name?: string; role?: WorkspaceRole } = {}) {
  return {
    __typename: 'WorkspaceMember' as const,
    userId: sampleUser.id,
    email: sampleUser.email,
    name: sampleUser.name,
    role: 'OWNER' as WorkspaceRole,
    joinedAt: '2025-02-01T10:00:00.000Z',
    ...overrides,
  };
}

export function sampleInvitation(overrides: { id?: string; email?: string; role?: WorkspaceRole } = {}) {
  return {
    __typename: 'WorkspaceInvitation' as const,
    id: 'i1',
    email: 'grace@example.com',
    role: 'AGENT' as WorkspaceRole,
    invitedBy: sampleUser.email,
    createdAt: '2025-03-01T10:00:00.000Z',
    expiresAt: '2025-03-08T10:00:00.000Z',
    ...overrides,
  };
}

/** The switcher's answer: the personal workspace and `current`, acting in `current` when the header names it. */
export function workspacesAnswer(current = sampleWorkspace(), others = [personalWorkspace]): Handler {
  const all = [...others, current];
  return ({ headers }) => {
    const asked = headers['x-workspace-id'];
    const acting = asked ? all.find((w) => w.id === asked) : (all.find((w) => w.personal) ?? current);
    if (!acting) return { data: null, errors: [{ message: 'Workspace not found', extensions: { code: 'NOT_FOUND' } }] };
    return { data: { workspaces: all, currentWorkspace: acting } };
  };
}

/** Opens `path` signed in, acting in `workspace` (stored as the switcher's choice), answering with `handlers` on top. */
export function openAsMember(path: string, workspace = sampleWorkspace(), handlers: Record<string, Handler> = {}) {
  localStorage.setItem('token', 'good');
  if (!workspace.personal) localStorage.setItem('workspace', workspace.id);
  const mock = mockLink({
    ...billingAnswers,
    Me: () => ({ data: { me: sampleUser } }),
    Chatbots: () => ({ data: { chatbots: [] } }),
    Workspaces: workspacesAnswer(workspace),
    // The header's Inbox badge, for members who read conversations.
    InboxWaitingCount: () => ({ data: { inboxWaitingCount: 0 } }),
    ...handlers,
  });
  return { ...mock, ...renderApp(path, mock.link) };
}

/** One card of a workspace page, found by its title, to query inside. */
export async function section(title: string) {
  return within(await screen.findByRole('region', { name: title }));
}
