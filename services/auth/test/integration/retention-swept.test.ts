// What a retention sweep deleted (RetentionSwept, through the real queue, docs/adr/0048-retention-windows.md):
// one `workspace.retention_swept` entry in the workspace's audit log with the counts, by the system;
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
    details: { service: 'chat', conversations: 3, messages: 11, leads: 2 },
  });

  // A retry of the same sweep, twice at once: no second entry.
  const again = await Promise.all([
    auditRetentionSwept(h.db, swept(workspaceId, sweepId)),
    auditRetentionSwept(h.db, swept(workspaceId, sweepId)),
  ]);
  expect(again).toEqual([false, false]);
  expect(await entries(workspaceId)).toHaveLength(1);
});
