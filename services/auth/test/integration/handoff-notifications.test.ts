// A visitor waiting for a person (HandoffRequested, through the real queue): every member whose role
// works conversations and whose switch is on gets one mail linking to the conversation in the Inbox;
// viewers and members who switched it off get none, and a redelivered job (a new job id for the same
// conversation) or a second run mails no one twice. The switch is each member's own, per workspace.
import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HandoffRequestedSchema } from '@parley/proto/parley/events/v1/handoff_requested_pb.js';
import { readOutbox } from '@parley/common/mail-outbox.ts';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import { jobSettled } from '@parley/common/testing/jobs.ts';
import { mailHandoffRequested } from '../../src/workspaces/handoff-requested.ts';
import { startAuth, type AuthHarness } from './harness.ts';
import { actor, team, WORKSPACE_ENV } from './workspaces-fixtures.ts';

let h: AuthHarness;
let producer: Producer<typeof HandoffRequestedSchema>;

beforeAll(async () => {
  h = await startAuth(WORKSPACE_ENV);
  producer = createProducer(h.redis, QUEUES.handoffRequested, HandoffRequestedSchema, { prefix: h.prefix });
});

afterAll(async () => {
  await producer?.close();
  await h?.close();
});

async function requested(ownerId: string, conversationId: string, jobId = conversationId) {
  const settled = jobSettled(h.parts.handoffRequestedWorker!, jobId);
  await producer.publish(
    create(HandoffRequestedSchema, {
      conversationId,
      ownerId,
      chatbotId: randomUUID(),
      requestedAt: timestampFromDate(new Date()),
      visitorName: 'Grace',
      lastMessage: 'Can I speak to someone about my order?',
    }),
    jobId,
  );
  return settled;
}

const mailsAbout = async (conversationId: string) =>
  (await readOutbox(h.outboxDir, { limit: 1000 })).filter((m) => m.text.includes(`/inbox/${conversationId}`));

describe('HandoffRequested', () => {
  it('mails each agent who chose to be told once per conversation, even when the job is delivered again', async () => {
    const { owner, workspaceId, members } = await team(h, ['admin', 'agent', 'agent', 'editor', 'viewer']);
    const [admin, agent, quietAgent, editor, viewer] = members;
    await h.workspaces.setHandoffNotifications({ actor: actor(quietAgent, workspaceId), enabled: false });
    const conversationId = randomUUID();

    expect((await requested(workspaceId, conversationId)).state).toBe('completed');
    // The same conversation again, as a redelivery under another job id would bring it.
    expect((await requested(workspaceId, conversationId, `${conversationId}-again`)).state).toBe('completed');

    const mails = await mailsAbout(conversationId);
    const mailed = mails.flatMap((m) => m.to).sort();
    expect(mailed).toEqual([owner.email, admin.email, agent.email, editor.email].sort());
    for (const person of [quietAgent, viewer]) expect(mailed).not.toContain(person.email);
    expect(mails[0].subject).toBe('A visitor is waiting for a person in Acme');
    expect(mails[0].text).toContain(`${h.parts.deps.publicUrl}/inbox/${conversationId}?workspace=${workspaceId}`);
    expect(mails[0].text).toContain('Grace asked to talk to a person');
    expect(mails[0].text).toContain('Can I speak to someone about my order?');
  });

  it('mails nobody twice when the use case runs again, and nobody for another conversation of no workspace', async () => {
    const { owner, workspaceId } = await team(h, []);
    const conversationId = randomUUID();
    const deps = { db: h.parts.deps.db, mailer: h.parts.mailer, logger: h.parts.deps.logger, publicUrl: 'http://parley.test' };
    const input = { ownerId: workspaceId, conversationId, visitorName: '', lastMessage: '' };
    expect(await mailHandoffRequested(deps, input)).toBe(1);
    expect(await mailHandoffRequested(deps, input)).toBe(0);
    expect((await mailsAbout(conversationId)).flatMap((m) => m.to)).toEqual([owner.email]);
    expect(await mailHandoffRequested(deps, { ...input, ownerId: randomUUID(), conversationId: randomUUID() })).toBe(0);
    expect(await mailHandoffRequested(deps, { ...input, ownerId: 'not-a-workspace' })).toBe(0);
  });

  it('takes back the record of a mail that could not be sent, so the retry sends it', async () => {
    const { owner, workspaceId } = await team(h, []);
    const conversationId = randomUUID();
    let fail = true;
    const mailer = {
      ...h.parts.mailer,
      send: async (m: Parameters<typeof h.parts.mailer.send>[0]) => {
        if (fail) throw new Error('SMTP down');
        return h.parts.mailer.send(m);
      },
    };
    const deps = { db: h.parts.deps.db, mailer, logger: h.parts.deps.logger, publicUrl: 'http://parley.test' };
    const input = { ownerId: workspaceId, conversationId, visitorName: '', lastMessage: '' };
    await expect(mailHandoffRequested(deps, input)).rejects.toThrow('SMTP down');
    fail = false;
    expect(await mailHandoffRequested(deps, input)).toBe(1);
    expect((await mailsAbout(conversationId)).flatMap((m) => m.to)).toEqual([owner.email]);
  });
});

describe('the switch', () => {
  it("is on by default, each member's own, and read back on the workspace", async () => {
    const { owner, workspaceId, members } = await team(h, ['viewer']);
    const [viewer] = members;
    const before = await h.client.authenticate({ token: viewer.token, workspaceId });
    expect(before.workspace?.notifyHandoff).toBe(true);

    const { workspace } = await h.workspaces.setHandoffNotifications({ actor: actor(viewer, workspaceId), enabled: false });
    expect(workspace).toMatchObject({ id: workspaceId, role: 'viewer', notifyHandoff: false });
    expect((await h.client.authenticate({ token: viewer.token, workspaceId })).workspace?.notifyHandoff).toBe(false);
    expect((await h.client.authenticate({ token: owner.token, workspaceId })).workspace?.notifyHandoff).toBe(true);
    const listed = await h.workspaces.listWorkspaces({ userId: viewer.id });
    expect(listed.workspaces.find((w) => w.id === workspaceId)?.notifyHandoff).toBe(false);
  });

  it('is refused in a workspace the person is not a member of', async () => {
    const { workspaceId } = await team(h, []);
    const { owner: stranger } = await team(h, []);
    await expect(h.workspaces.setHandoffNotifications({ actor: actor(stranger, workspaceId), enabled: false })).rejects.toThrow(
      /not found/i,
    );
  });
});
