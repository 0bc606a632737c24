// The chatbot service disabled a webhook endpoint that failed for a day (WebhookEndpointDisabled,
// docs/adr/0032-webhooks.md): every owner of its workspace gets a mail. A workspace that no longer
// exists has no one to tell. A mail that cannot be sent fails the job, which is retried.
import type { Logger } from '@parley/common/logger.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Mailer } from '../mail/mailer.ts';
import { webhookEndpointDisabledMail } from '../mail/templates.ts';
import { isUuid } from '@parley/common/ids.ts';

export interface EndpointDisabledMailDeps {
  db: PrismaClient;
  mailer: Mailer;
  logger: Logger;
  publicUrl: string;
}

/** Returns how many owners were mailed. */
export async function mailEndpointDisabled(
  deps: EndpointDisabledMailDeps,
  input: { ownerId: string; endpointId: string; url: string; lastError: string },
): Promise<number> {
  if (!isUuid(input.ownerId)) return 0;
  const workspace = await deps.db.workspace.findUnique({
    where: { id: input.ownerId },
    select: { name: true, memberships: { where: { role: 'owner' }, select: { user: { select: { email: true } } } } },
  });
  if (!workspace) return 0;
  const content = webhookEndpointDisabledMail({
    publicUrl: deps.publicUrl,
    workspaceName: workspace.name,
    url: input.url,
    lastError: input.lastError,
  });
  for (const { user } of workspace.memberships) await deps.mailer.send({ ...content, to: user.email });
  deps.logger.info(
    { workspaceId: input.ownerId, endpointId: input.endpointId, owners: workspace.memberships.length },
    'webhook endpoint disabled: owners mailed',
  );
  return workspace.memberships.length;
}
