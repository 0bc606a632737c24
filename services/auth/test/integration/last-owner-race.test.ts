// The rule that a workspace always keeps an owner, when its two owners act at the same moment: each
// change takes the workspace's lock (deleting an account, the locks of all the person's workspaces), so
// the second decides on the state the first left.
import { Code } from '@parley/common/rpc-errors.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuth, type AuthHarness } from './harness.ts';
import { actor, team, WORKSPACE_ENV, type Person } from './workspaces-fixtures.ts';
import { LAST_OWNER_DEMOTED, OWNER_ROLE_BY_OWNERS } from '../../src/workspaces/change-member-role.ts';
import { lastOwnerLeaving } from '../../src/workspaces/remove-member.ts';
import { soleOwnerOf } from '../../src/accounts/delete-account.ts';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth(WORKSPACE_ENV, { workers: false });
});
afterAll(async () => {
  await h?.close();
});

const ROUNDS = 4;

/** A workspace with two owners, `a` (who created it) and `b`. */
async function twoOwners(): Promise<{ a: Person; b: Person; workspaceId: string }> {
  const { owner, workspaceId, members } = await team(h, ['admin']);
  await h.workspaces.changeMemberRole({ actor: actor(owner, workspaceId), memberUserId: members[0].id, role: 'owner' });
  return { a: owner, b: members[0], workspaceId };
}

const owners = async (workspaceId: string) =>
  (await h.db.membership.findMany({ where: { workspaceId, role: 'owner' }, select: { userId: true } })).map((m) => m.userId);

/** The RPC code and message of each rejected outcome. */
const refusals = (results: PromiseSettledResult<unknown>[]) =>
  results
    .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    .map((r) => ({ code: (r.reason as { code?: Code }).code, message: (r.reason as Error).message }));

const fulfilled = (results: PromiseSettledResult<unknown>[]) => results.filter((r) => r.status === 'fulfilled').length;

describe('two owners acting at once', () => {
  it('demoting each other: exactly one demotion happens, and one owner remains', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { a, b, workspaceId } = await twoOwners();
      const results = await Promise.allSettled([
        h.workspaces.changeMemberRole({ actor: actor(a, workspaceId), memberUserId: b.id, role: 'admin' }),
        h.workspaces.changeMemberRole({ actor: actor(b, workspaceId), memberUserId: a.id, role: 'admin' }),
      ]);
      expect(fulfilled(results)).toBe(1);
      // The second, deciding after the first under the lock, finds itself an admin already, and an
      // admin cannot take the owner role.
      expect(refusals(results)).toEqual([{ code: Code.PermissionDenied, message: expect.stringContaining(OWNER_ROLE_BY_OWNERS) }]);
      const remaining = await owners(workspaceId);
      expect(remaining).toHaveLength(1);
      expect(remaining[0]).toBe(results[0].status === 'fulfilled' ? a.id : b.id);
      expect(
        await h.db.auditEvent.count({ where: { workspaceId, action: 'member.role_changed', details: { path: ['to'], equals: 'admin' } } }),
      ).toBe(1);
    }
  });

  it('each demoting themselves: exactly one steps down', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { a, b, workspaceId } = await twoOwners();
      const results = await Promise.allSettled([
        h.workspaces.changeMemberRole({ actor: actor(a, workspaceId), memberUserId: a.id, role: 'editor' }),
        h.workspaces.changeMemberRole({ actor: actor(b, workspaceId), memberUserId: b.id, role: 'editor' }),
      ]);
      expect(fulfilled(results)).toBe(1);
      expect(refusals(results)).toEqual([{ code: Code.FailedPrecondition, message: expect.stringContaining(LAST_OWNER_DEMOTED) }]);
      expect(await owners(workspaceId)).toEqual([results[0].status === 'fulfilled' ? b.id : a.id]);
    }
  });

  it('both leaving: exactly one leaves, and the other stays the owner', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { a, b, workspaceId } = await twoOwners();
      const results = await Promise.allSettled([
        h.workspaces.removeMember({ actor: actor(a, workspaceId), memberUserId: a.id }),
        h.workspaces.removeMember({ actor: actor(b, workspaceId), memberUserId: b.id }),
      ]);
      expect(fulfilled(results)).toBe(1);
      expect(refusals(results)).toEqual([{ code: Code.FailedPrecondition, message: expect.stringContaining(lastOwnerLeaving('Acme')) }]);
      const stayed = results[0].status === 'fulfilled' ? b.id : a.id;
      expect(await owners(workspaceId)).toEqual([stayed]);
      expect(await h.db.membership.count({ where: { workspaceId } })).toBe(1);
    }
  });

  it('one stepping down while the other leaves: exactly one of them happens', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { a, b, workspaceId } = await twoOwners();
      const results = await Promise.allSettled([
        h.workspaces.changeMemberRole({ actor: actor(a, workspaceId), memberUserId: a.id, role: 'admin' }),
        h.workspaces.removeMember({ actor: actor(b, workspaceId), memberUserId: b.id }),
      ]);
      expect(fulfilled(results)).toBe(1);
      const [refusal] = refusals(results);
      expect(refusal.code).toBe(Code.FailedPrecondition);
      if (results[0].status === 'fulfilled') {
        expect(refusal.message).toContain(lastOwnerLeaving('Acme'));
        expect(await owners(workspaceId)).toEqual([b.id]);
      } else {
        expect(refusal.message).toContain(LAST_OWNER_DEMOTED);
        expect(await owners(workspaceId)).toEqual([a.id]);
      }
    }
  });

  it('one demoting the other while the other leaves: the one who stays is still the owner', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { a, b, workspaceId } = await twoOwners();
      const results = await Promise.allSettled([
        h.workspaces.changeMemberRole({ actor: actor(a, workspaceId), memberUserId: b.id, role: 'admin' }),
        h.workspaces.removeMember({ actor: actor(b, workspaceId), memberUserId: b.id }),
      ]);
      // Demoted first, b leaves as an admin (both happen); gone first, b is no member to demote.
      if (results[0].status === 'rejected') {
        expect(refusals(results)).toEqual([{ code: Code.NotFound, message: expect.stringContaining('Member not found') }]);
      } else {
        expect(fulfilled(results)).toBe(2);
      }
      expect(await owners(workspaceId)).toEqual([a.id]);
      expect(await h.db.membership.count({ where: { workspaceId } })).toBe(1);
    }
  });

  it('one deleting their account while the other steps down: exactly one of them happens', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { a, b, workspaceId } = await twoOwners();
      const results = await Promise.allSettled([
        h.client.deleteAccount({ userId: a.id, password: a.password, clientIp: '198.51.100.7' }),
        h.workspaces.changeMemberRole({ actor: actor(b, workspaceId), memberUserId: b.id, role: 'admin' }),
      ]);
      expect(fulfilled(results)).toBe(1);
      const [refusal] = refusals(results);
      expect(refusal.code).toBe(Code.FailedPrecondition);
      if (results[0].status === 'fulfilled') {
        expect(refusal.message).toContain(LAST_OWNER_DEMOTED);
        expect(await owners(workspaceId)).toEqual([b.id]);
      } else {
        expect(refusal.message).toContain(soleOwnerOf('Acme'));
        expect(await owners(workspaceId)).toEqual([a.id]);
      }
    }
  });

  it('transferring to each other: one owner remains', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { a, b, workspaceId } = await twoOwners();
      const results = await Promise.allSettled([
        h.workspaces.transferOwnership({ actor: actor(a, workspaceId), memberUserId: b.id }),
        h.workspaces.transferOwnership({ actor: actor(b, workspaceId), memberUserId: a.id }),
      ]);
      expect(fulfilled(results)).toBe(2);
      // The second transfer hands ownership back: its actor ends an admin, the other the owner.
      expect(await owners(workspaceId)).toHaveLength(1);
    }
  });
});
