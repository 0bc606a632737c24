// A visitor waits for a person (HandoffRequested, docs/adr/0034-humans-in-the-loop.md): every member
// of the workspace whose role works conversations (conversations:write) and whose switch is on gets a
// mail linking to the conversation in the Inbox. Each (conversation, member) is recorded before its
// mail is sent, so a retried or redelivered job mails no one twice; a mail that cannot be sent takes
// its record back and fails the job, which is retried for those not yet mailed.
import type { Logger } from '@parley/common/logger.ts';
import { can, isRole } from '@parley/common/roles.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { isUuid } from '@parley/common/ids.ts';
import type { Mailer } from '../mail/mailer.ts';
import { handoffRequestedMail } from '../mail/templates.ts';

export interface HandoffMailDeps {
  db: PrismaClient;
  mailer: Mailer;
  logger: Logger;
  publicUrl: string;
}

export interface HandoffRequestedInput {
  ownerId: string;
  conversationId: string;
  visitorName: string;
  lastMessage: string;
}

/** Returns how many members were mailed by this run. */
export async function mailHandoffRequested(deps: HandoffMailDeps, input: HandoffRequestedInput): Promise<number> {
  // Ids the chat service did not write name no workspace or conversation of ours.
  if (!isUuid(input.ownerId) || !isUuid(input.conversationId)) return 0;
  const workspaceId = input.ownerId.toLowerCase();
  const conversationId = input.conversationId.toLowerCase();
  const workspace = await deps.db.workspace.findUnique({
    where: { id: workspaceId },
    select: {
      name: true,
      memberships: { where: { notifyHandoff: true }, select: { role: true, user: { select: { id: true, email: true } } } },
    },
  });
  if (!workspace) return 0;
  const agents = workspace.memberships.filter((m) => isRole(m.role) && can(m.role, 'conversations:write'));
  const content = handoffRequestedMail({
    publicUrl: deps.publicUrl,
    workspaceName: workspace.name,
    workspaceId,
    conversationId,
    visitorName: input.visitorName,
    lastMessage: input.lastMessage,
  });
  let mailed = 0;
  for (const { user } of agents) {
    const { count } = await deps.db.handoffNotice.createMany({
      data: [{ conversationId, userId: user.id, workspaceId }],
      skipDuplicates: true,
    });
    if (count === 0) continue;
    try {
      await deps.mailer.send({ ...content, to: user.email });
    } catch (err) {
      await deps.db.handoffNotice.deleteMany({ where: { conversationId, userId: user.id } });
      throw err;
    }
    mailed += 1;
  }
  deps.logger.info({ workspaceId, conversationId, mailed, agents: agents.length }, 'handoff requested: agents mailed');
  return mailed;
}
