// Whose plan and credit a person's own reads show (owners.ts currentUser, users.ts composeUser): a
// person in no workspace is shown none, and billing is not asked about the account their user id names
// (a personal workspace they gave away).
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { UserSchema } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { WorkspaceSchema } from '@parley/proto/parley/auth/v1/workspaces_pb.js';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';
import { accountOwner, currentUser } from '../members.ts';
import { composeUser } from '../users.ts';

const user = create(UserSchema, { id: 'u1', email: 'ada@example.com', name: 'Ada' });

/** Auth answering the user with `workspaceOf(header)`, and a billing that must not be called. */
function clientsWith(workspaceOf: (workspaceId: string) => string | undefined) {
  const asked: string[] = [];
  const clients = {
    auth: {
      authenticate: async ({ workspaceId }: { token: string; workspaceId: string }) => {
        asked.push(workspaceId);
        const id = workspaceOf(workspaceId);
        if (workspaceId && id !== workspaceId) throw new ConnectError('Workspace not found', Code.NotFound);
        return { user, workspace: id ? create(WorkspaceSchema, { id, name: 'Team', role: 'owner' }) : undefined };
      },
    },
    billing: {
      getAccount: async () => {
        throw new Error('billing was asked');
      },
    },
  } as unknown as Clients;
  return { clients, asked };
}

describe('a person in no workspace', () => {
  it('acts nowhere, with or without a header naming a workspace they left', async () => {
    const { clients, asked } = clientsWith(() => undefined);
    const caller = { token: 't', workspaceId: 'u1', clientIp: '127.0.0.1' };
    expect(await currentUser(clients, caller)).toEqual({ user, ownerId: null });
    // The header first, then without it: one call each.
    expect(asked).toEqual(['u1', '']);
    expect(await accountOwner(clients, { ...caller, workspaceId: '' }, user)).toBeNull();
  });

  it('is shown the free plan and no credit, without a call to billing', async () => {
    const { clients } = clientsWith(() => undefined);
    expect(await composeUser(clients, user, null)).toEqual({
      id: 'u1',
      email: 'ada@example.com',
      name: 'Ada',
      subscription: 'free',
      usage: { creditBalance: '0', lastCreditRefill: null },
    });
  });

  it('while a member is shown the workspace they act in, the oldest when the personal one is gone', async () => {
    const { clients } = clientsWith((header) => header || 'w-oldest');
    expect((await currentUser(clients, { token: 't', workspaceId: '', clientIp: '' })).ownerId).toBe('w-oldest');
    expect((await currentUser(clients, { token: 't', workspaceId: 'w-team', clientIp: '' })).ownerId).toBe('w-team');
  });
});
