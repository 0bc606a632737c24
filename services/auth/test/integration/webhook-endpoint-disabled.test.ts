// A webhook endpoint the chatbot service disabled (WebhookEndpointDisabled, through the real queue):
// every owner of the workspace gets a mail naming the endpoint and the last failure; admins and other
// members get none, and an unknown workspace mails nobody.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebhookEndpointDisabledSchema } from '@parley/proto/parley/events/v1/webhook_event_pb.js';
import { readOutbox } from '@parley/common/mail-outbox.ts';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import { jobSettled } from '@parley/common/testing/jobs.ts';
import { startAuth, type AuthHarness } from './harness.ts';
import { actor, team, WORKSPACE_ENV } from './workspaces-fixtures.ts';

let h: AuthHarness;
let producer: Producer<typeof WebhookEndpointDisabledSchema>;

beforeAll(async () => {
  h = await startAuth(WORKSPACE_ENV);
  producer = createProducer(h.redis, QUEUES.webhookEndpointDisabled, WebhookEndpointDisabledSchema, { prefix: h.prefix });
});

afterAll(async () => {
  await producer?.close();
  await h?.close();
});

async function disabled(ownerId: string, jobId: string) {
  const settled = jobSettled(h.parts.webhookEndpointDisabledWorker!, jobId);
  await producer.publish(
    create(WebhookEndpointDisabledSchema, {
      endpointId: '0b7e2d7e-2b43-4b8e-a0c5-1c2f3e4d5a6b',
      ownerId,
      url: 'https://hooks.example.com/parley',
      disabledAt: timestampFromDate(new Date()),
      lastError: 'HTTP 503',
    }),
    jobId,
  );
  return settled;
}

it("mails the workspace's owners, and only them", async () => {
  const { owner, workspaceId, members } = await team(h, ['admin', 'owner', 'viewer']);
  const [admin, coOwner, viewer] = members;
  await h.workspaces.changeMemberRole({ actor: actor(owner, workspaceId), memberUserId: coOwner.id, role: 'owner' });
  expect((await disabled(workspaceId, `hook-${workspaceId}`)).state).toBe('completed');

  const mails = (await readOutbox(h.outboxDir, { limit: 1000 })).filter((m) => m.subject.includes('webhook endpoint'));
  expect(mails.flatMap((m) => m.to).sort()).toEqual([owner.email, coOwner.email].sort());
  expect(mails[0].subject).toBe('A webhook endpoint of your Parley workspace was disabled');
  expect(mails[0].text).toContain('https://hooks.example.com/parley');
  expect(mails[0].text).toContain('"Acme"');
  expect(mails[0].text).toContain('last failure: HTTP 503');
  for (const person of [admin, viewer]) expect(mails.flatMap((m) => m.to)).not.toContain(person.email);
});

it('mails nobody for a workspace that no longer exists', async () => {
  const before = (await readOutbox(h.outboxDir, { limit: 1000 })).length;
  expect((await disabled('7d9f1f9e-1111-4111-8111-111111111111', 'hook-gone')).state).toBe('completed');
  expect((await readOutbox(h.outboxDir, { limit: 1000 })).length).toBe(before);
});
