// A test run with regressions (TestRunRegressed, through the real queue): every owner of the
// workspace gets one mail naming the chatbot, listing the regressed questions and linking to its
// Tests section; admins and other members get none, and a redelivered job (a new job id for the
// same run) or a second call mails no one twice.
import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestRunRegressedSchema } from '@parley/proto/parley/events/v1/quality_pb.js';
import { readOutbox } from '@parley/common/mail-outbox.ts';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import { jobSettled } from '@parley/common/testing/jobs.ts';
import { mailTestRunRegressed } from '../../src/workspaces/test-run-regressed.ts';
import { startAuth, type AuthHarness } from './harness.ts';
import { team, WORKSPACE_ENV } from './workspaces-fixtures.ts';

let h: AuthHarness;
let producer: Producer<typeof TestRunRegressedSchema>;

beforeAll(async () => {
  h = await startAuth(WORKSPACE_ENV);
  producer = createProducer(h.redis, QUEUES.testRunRegressed, TestRunRegressedSchema, { prefix: h.prefix });
});

afterAll(async () => {
  await producer?.close();
  await h?.close();
});

const mailsAbout = async (chatbotId: string) =>
  (await readOutbox(h.outboxDir, { limit: 1000 })).filter((m) => m.text.includes(`/chatbots/${chatbotId}`));

describe('TestRunRegressed', () => {
  it('mails each owner once per run, even when the job is delivered again', async () => {
    const { owner, workspaceId, members } = await team(h, ['admin', 'editor']);
    const runId = randomUUID();
    const chatbotId = randomUUID();
    const event = create(TestRunRegressedSchema, {
      runId,
      ownerId: workspaceId,
      chatbotId,
      chatbotName: 'Museum guide',
      questions: ['When does the museum open?', 'Is there a shop?'],
      regressions: 3,
    });
    for (const jobId of [`regressed-${runId}`, `regressed-${runId}-again`]) {
      const settled = jobSettled(h.parts.testRunRegressedWorker!, jobId);
      await producer.publish(event, jobId);
      expect((await settled).state).toBe('completed');
    }
    const mails = await mailsAbout(chatbotId);
    expect(mails.flatMap((m) => m.to)).toEqual([owner.email]);
    for (const member of members) expect(mails.flatMap((m) => m.to)).not.toContain(member.email);
    expect(mails[0].subject).toBe('Museum guide: 3 test cases newly failing');
    expect(mails[0].text).toContain('• When does the museum open?');
    expect(mails[0].text).toContain('• Is there a shop?');
    expect(mails[0].text).toContain('… and 1 more.');
    expect(mails[0].text).toContain(`${h.parts.deps.publicUrl}/chatbots/${chatbotId}?workspace=${workspaceId}#settings-tests`);
  });

  it('mails nobody twice when the use case runs again, and nobody for ids that name nothing', async () => {
    const { owner, workspaceId } = await team(h, []);
    const deps = { db: h.parts.deps.db, mailer: h.parts.mailer, logger: h.parts.deps.logger, publicUrl: 'http://parley.test' };
    const input = {
      runId: randomUUID(),
      ownerId: workspaceId,
      chatbotId: randomUUID(),
      chatbotName: '',
      questions: ['Hours?'],
      regressions: 1,
    };
    expect(await mailTestRunRegressed(deps, input)).toBe(1);
    expect(await mailTestRunRegressed(deps, input)).toBe(0);
    expect((await mailsAbout(input.chatbotId)).flatMap((m) => m.to)).toEqual([owner.email]);
    expect(await mailTestRunRegressed(deps, { ...input, runId: randomUUID(), ownerId: randomUUID() })).toBe(0);
    expect(await mailTestRunRegressed(deps, { ...input, runId: 'not-a-run' })).toBe(0);
    expect(await mailTestRunRegressed(deps, { ...input, runId: randomUUID(), regressions: 0 })).toBe(0);
  });
});
