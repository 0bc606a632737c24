// The audit log: entries recorded by the gateway (RecordAuditEvent), read by owners and admins only,
// newest first, filtered, in pages that neither skip nor repeat an entry.
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code } from '@parley/common/rpc-errors.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRpcError, startAuth, type AuthHarness } from './harness.ts';
import { actor, signUp, team, WORKSPACE_ENV } from './workspaces-fixtures.ts';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth(WORKSPACE_ENV, { workers: false });
});
afterAll(async () => {
  await h?.close();
});

describe('RecordAuditEvent', () => {
  it("records a member's action with its details, and the system's", async () => {
    const { owner, workspaceId } = await team(h);
    await h.workspaces.recordAuditEvent({
      actor: actor(owner, workspaceId),
      action: 'billing.checkout_started',
      target: 'pro',
      detailsJson: '{"plan":"pro"}',
    });
    await h.workspaces.recordAuditEvent({
      actor: { userId: '', workspaceId, clientIp: '' },
      action: 'billing.plan_changed',
      target: 'pro',
      detailsJson: '',
    });
    const { events } = await h.workspaces.listAuditEvents({
      actor: actor(owner, workspaceId),
      action: 'billing.',
      actorUserId: '',
      limit: 0,
      cursor: '',
    });
    expect(events.map((e) => [e.action, e.actorUserId, e.actorEmail, e.target, JSON.parse(e.detailsJson)])).toEqual([
      ['billing.plan_changed', '', '', 'pro', {}],
      ['billing.checkout_started', owner.id, owner.email, 'pro', { plan: 'pro' }],
    ]);
    expect(events[1].clientIp).toBe('198.51.100.7');
  });

  it('refuses a bad action, target or details, and a stranger', async () => {
    const { owner, workspaceId } = await team(h);
    const record = (action: string, target = 'x', detailsJson = '') =>
      h.workspaces.recordAuditEvent({ actor: actor(owner, workspaceId), action, target, detailsJson });
    await expectRpcError(record('Checkout'), Code.InvalidArgument, 'action must be a dotted verb such as "billing.checkout_started"');
    await expectRpcError(
      record('billing.x', 'x'.repeat(300)),
      Code.InvalidArgument,
      'target must be at most 256 characters, without control characters',
    );
    await expectRpcError(record('billing.x', 'x', '[1]'), Code.InvalidArgument, 'details_json must be a JSON object');
    await expectRpcError(record('billing.x', 'x', '{'), Code.InvalidArgument, 'details_json must be a JSON object');
    const stranger = await signUp(h);
    await expectRpcError(
      h.workspaces.recordAuditEvent({ actor: actor(stranger, workspaceId), action: 'billing.x', target: '', detailsJson: '' }),
      Code.NotFound,
      'Workspace not found',
    );
    await expectRpcError(
      h.workspaces.recordAuditEvent({
        actor: { userId: '', workspaceId: '7f1c8f7e-0000-4000-8000-000000000000', clientIp: '' },
        action: 'billing.x',
        target: '',
        detailsJson: '',
      }),
      Code.NotFound,
      'Workspace not found',
    );
  });
});

describe('ListAuditEvents', () => {
  it('is for owners and admins only', async () => {
    const { workspaceId, members } = await team(h, ['admin', 'editor']);
    const list = (who: (typeof members)[number]) =>
      h.workspaces.listAuditEvents({ actor: actor(who, workspaceId), action: '', actorUserId: '', limit: 0, cursor: '' });
    expect((await list(members[0])).events.length).toBeGreaterThan(0);
    await expectRpcError(list(members[1]), Code.PermissionDenied, 'Only owners and admins can read the audit log');
  });

  it('pages newest first without skipping or repeating, and filters by action, actor and time', async () => {
    const { owner, workspaceId, members } = await team(h, ['admin']);
    const [admin] = members;
    // Entries of one millisecond, so that the order among them is the id's.
    const at = new Date('2026-06-01T12:00:00.000Z');
    await h.db.auditEvent.createMany({
      data: Array.from({ length: 7 }, (_, i) => ({
        workspaceId,
        actorUserId: i % 2 ? admin.id : owner.id,
        actorEmail: i % 2 ? admin.email : owner.email,
        action: i % 2 ? 'billing.portal_opened' : 'member.role_changed',
        target: `t${i}`,
        details: {},
        clientIp: '',
        createdAt: i < 5 ? at : new Date(at.getTime() + i * 1000),
      })),
    });
    const all = await h.db.auditEvent.count({ where: { workspaceId } });
    const seen: string[] = [];
    let cursor = '';
    let pages = 0;
    do {
      const page = await h.workspaces.listAuditEvents({ actor: actor(owner, workspaceId), action: '', actorUserId: '', limit: 3, cursor });
      expect(page.events.length).toBeLessThanOrEqual(3);
      seen.push(...page.events.map((e) => e.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toHaveLength(all);
    expect(new Set(seen).size).toBe(all);
    expect(pages).toBe(Math.ceil(all / 3));
    const ordered = await h.db.auditEvent.findMany({
      where: { workspaceId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: { id: true },
    });
    expect(seen).toEqual(ordered.map((e) => e.id));

    const filtered = await h.workspaces.listAuditEvents({
      actor: actor(owner, workspaceId),
      action: 'billing.',
      actorUserId: admin.id,
      from: timestampFromDate(at),
      to: timestampFromDate(new Date(at.getTime() + 6000)),
      limit: 0,
      cursor: '',
    });
    // t5 is the newest; t1 and t3 share a millisecond, ordered by id.
    expect(filtered.events.map((e) => e.target)[0]).toBe('t5');
    expect(filtered.events.map((e) => e.target).sort()).toEqual(['t1', 't3', 't5']);
    expect(filtered.events.every((e) => timestampDate(e.createdAt!) < new Date(at.getTime() + 6000))).toBe(true);
    expect(filtered.nextCursor).toBe('');
  });

  it('refuses a bad cursor, actor filter or range', async () => {
    const { owner, workspaceId } = await team(h);
    const list = (extra: object) =>
      h.workspaces.listAuditEvents({ actor: actor(owner, workspaceId), action: '', actorUserId: '', limit: 0, cursor: '', ...extra });
    await expectRpcError(
      list({ cursor: 'garbage' }),
      Code.InvalidArgument,
      'The page cursor is not valid; start again from the first page',
    );
    await expectRpcError(list({ actorUserId: 'bob' }), Code.InvalidArgument, 'The actor filter must be a user id');
    await expectRpcError(list({ limit: -1 }), Code.InvalidArgument, 'limit must not be negative');
    const now = new Date();
    await expectRpcError(
      list({ from: timestampFromDate(now), to: timestampFromDate(now) }),
      Code.InvalidArgument,
      'The time range must end after it starts',
    );
    // Over 100 is read as 100.
    expect((await list({ limit: 1000 })).events.length).toBeGreaterThan(0);
  });
});
