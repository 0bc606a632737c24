// What a retention sweep deleted (RetentionSwept, through the real queue, docs/adr/0048-retention-windows.md):
// one `workspace.retention_swept` entry in the workspace's audit log with the counts, by the system,
// per sweep and kind (conversations, usage detail, webhook deliveries, analytics);
// the same sweep id published again, or audited twice at once, still leaves one entry.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RetentionSweptSchema } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import { jobSettled } from '@parley/common/testing/jobs.ts';
import { auditRetentionSwept, RETENTION_SWEPT } from '../../src/workspaces/retention-swept.job.ts';
import { startAuth, type AuthHarness } from './harness.ts';
import { team, WORKSPACE_ENV } from './workspaces-fixtures.ts';

let h: AuthHarness;
let producer: Producer<typeof RetentionSweptSchema>;

beforeAll(async () => {
  h = await startAuth(WORKSPACE_ENV);
  producer = createProducer(h.redis, QUEUES.retentionSwept, RetentionSweptSchema, { prefix: h.prefix });
});

afterAll(async () => {
  await producer?.close();
  await h?.close();
});

const swept = (ownerId: string, sweepId: string) =>
  create(RetentionSweptSchema, {
    sweepId,
    ownerId,
    service: 'chat',
    conversations: 3n,
    messages: 11n,
    leads: 2n,
    sweptAt: timestampFromDate(new Date()),
  });

const entries = (workspaceId: string) => h.db.auditEvent.findMany({ where: { workspaceId, action: RETENTION_SWEPT } });

it("writes the sweep's counts to the workspace's audit log once, whatever the retries", async () => {
  const { workspaceId } = await team(h, ['admin']);
  const sweepId = '5d2c3b4a-1111-4111-8111-000000000001';
  const settled = jobSettled(h.parts.retentionSweptWorker!, `retention.${sweepId}`);
  await producer.publish(swept(workspaceId, sweepId), `retention.${sweepId}`);
  expect((await settled).state).toBe('completed');
  const [entry, ...more] = await entries(workspaceId);
  expect(more).toEqual([]);
  expect(entry).toMatchObject({
    actorUserId: null,
    target: sweepId,
    details: { service: 'chat', kind: 'conversations', conversations: 3, messages: 11, leads: 2 },
  });

  // A retry of the same sweep, twice at once: no second entry.
  const again = await Promise.all([
    auditRetentionSwept(h.db, swept(workspaceId, sweepId)),
    auditRetentionSwept(h.db, swept(workspaceId, sweepId)),
  ]);
  expect(again).toEqual([false, false]);
  expect(await entries(workspaceId)).toHaveLength(1);
});

it('writes one entry per sweep and kind, each with its own counts', async () => {
  const { workspaceId } = await team(h, ['admin']);
  const base = { ownerId: workspaceId, sweptAt: timestampFromDate(new Date()) };
  const events = [
    create(RetentionSweptSchema, {
      ...base,
      sweepId: '5d2c3b4a-2222-4111-8111-000000000001',
      service: 'billing',
      kind: 'usage_detail',
      usageRecords: 1200n,
    }),
    create(RetentionSweptSchema, {
      ...base,
      sweepId: '5d2c3b4a-2222-4111-8111-000000000002',
      service: 'chatbot',
      kind: 'webhook_deliveries',
      webhookDeliveries: 40n,
    }),
    create(RetentionSweptSchema, {
      ...base,
      sweepId: '5d2c3b4a-2222-4111-8111-000000000003',
      service: 'chat',
      kind: 'analytics',
      analyticsDays: 90n,
      questionGroups: 7n,
    }),
  ];
  for (const e of events) {
    const settled = jobSettled(h.parts.retentionSweptWorker!, `retention.${e.sweepId}`);
    await producer.publish(e, `retention.${e.sweepId}`);
    expect((await settled).state).toBe('completed');
  }
  const details = (await entries(workspaceId))
    .map((e) => e.details)
    .sort((x, y) => String((x as { kind: string }).kind).localeCompare((y as { kind: string }).kind));
  expect(details).toEqual([
    { service: 'chat', kind: 'analytics', analyticsDays: 90, questionGroups: 7 },
    { service: 'billing', kind: 'usage_detail', usageRecords: 1200 },
    { service: 'chatbot', kind: 'webhook_deliveries', webhookDeliveries: 40 },
  ]);
});
