// knowledge.entry.ready and knowledge.entry.failed (docs/adr/0032-webhooks.md): when a file or web
// page entry's processing ends, its owner's subscribed endpoints hear of it. Read and published
// only when the owner subscribes to the type; a failure is logged, never the ingestion's.
import type { Logger } from '@parley/common/logger.ts';
import { webhookEvent } from '@parley/common/webhook-events.ts';
import type { WebhookPublisher } from '@parley/common/webhook-publisher.ts';
import type { PrismaClient } from './generated/prisma/client.ts';

export function entryFinishedWebhooks(deps: { db: PrismaClient; webhooks: WebhookPublisher; logger: Logger }) {
  return async (input: { chatbotId: string; entryId: string; outcome: 'ready' | 'failed'; error: string }): Promise<void> => {
    try {
      const entry = await deps.db.textEntry.findUnique({
        where: { id: input.entryId },
        select: { title: true, sourceType: true, updatedAt: true, chatbot: { select: { ownerId: true } } },
      });
      if (!entry) return;
      const source = entry.sourceType === 'file' ? 'file' : 'url';
      const common = {
        id: `knowledge.entry.${input.outcome}:${input.entryId}:${entry.updatedAt.getTime()}`,
        ownerId: entry.chatbot.ownerId,
        occurredAt: entry.updatedAt,
      };
      await deps.webhooks.publish([
        input.outcome === 'ready'
          ? webhookEvent('knowledge.entry.ready', {
              ...common,
              data: { chatbotId: input.chatbotId, entryId: input.entryId, title: entry.title, source },
            })
          : webhookEvent('knowledge.entry.failed', {
              ...common,
              data: { chatbotId: input.chatbotId, entryId: input.entryId, title: entry.title, source, error: input.error },
            }),
      ]);
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message, entryId: input.entryId }, 'knowledge webhook event not published');
    }
  };
}
