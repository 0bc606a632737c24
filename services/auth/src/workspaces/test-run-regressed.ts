// A test run finished with regressions (TestRunRegressed,
// docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md): every owner of the workspace
// gets one mail listing the regressed questions, with a link to the chatbot's Tests section. Each
// (run, owner) is recorded before its mail is sent, so a retried or redelivered job mails no one
// twice; a mail that cannot be sent takes its record back and fails the job, which is retried.
import type { Logger } from '@parley/common/logger.ts';
import { isUuid } from '@parley/common/ids.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Mailer } from '../mail/mailer.ts';
import { testRunRegressedMail } from '../mail/templates.ts';

export interface TestRunMailDeps {
  db: PrismaClient;
  mailer: Mailer;
  logger: Logger;
  publicUrl: string;
}

export interface TestRunRegressedInput {
  runId: string;
  ownerId: string;
  chatbotId: string;
  chatbotName: string;
  questions: string[];
  regressions: number;
}

/** Returns how many owners were mailed by this call. */
export async function mailTestRunRegressed(deps: TestRunMailDeps, input: TestRunRegressedInput): Promise<number> {
  // Ids the chat service did not write name no run or workspace of ours.
  if (!isUuid(input.ownerId) || !isUuid(input.runId) || !isUuid(input.chatbotId) || input.regressions < 1) return 0;
  const workspaceId = input.ownerId.toLowerCase();
  const runId = input.runId.toLowerCase();
  const workspace = await deps.db.workspace.findUnique({
    where: { id: workspaceId },
    select: { name: true, memberships: { where: { role: 'owner' }, select: { user: { select: { id: true, email: true } } } } },
  });
  if (!workspace) return 0;
  const content = testRunRegressedMail({
    publicUrl: deps.publicUrl,
    workspaceName: workspace.name,
    workspaceId,
    chatbotId: input.chatbotId.toLowerCase(),
    chatbotName: input.chatbotName,
    questions: input.questions.slice(0, 20),
    regressions: input.regressions,
  });
  let mailed = 0;
  for (const { user } of workspace.memberships) {
    const { count } = await deps.db.testRunNotice.createMany({ data: [{ runId, userId: user.id, workspaceId }], skipDuplicates: true });
    if (count === 0) continue;
    try {
      await deps.mailer.send({ ...content, to: user.email });
    } catch (err) {
      await deps.db.testRunNotice.deleteMany({ where: { runId, userId: user.id } });
      throw err;
    }
    mailed += 1;
  }
  deps.logger.info({ workspaceId, runId, mailed }, 'test run regressed: owners mailed');
  return mailed;
}
