// lead.created for the owner's webhooks (docs/adr/0034-humans-in-the-loop.md), raised at a lead's
// first submission, whether the web's form left it (submit-lead.ts) or a channel user's email
// (channel-lead.ts).
import { webhookEvent } from '@parley/common/webhook-events.ts';
import type { WebhookPublisher } from '@parley/common/webhook-publisher.ts';

export interface CreatedLead {
  id: string;
  chatbotId: string;
  ownerId: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  consented: boolean;
  source: string;
  createdAt: Date;
}

/** lead.created for the owner's webhooks, at a lead's first submission (event id `lead:<id>`, so a retried delivery is one event). */
export function publishLeadCreated(webhooks: Pick<WebhookPublisher, 'publish'> | undefined, lead: CreatedLead, sessionId: string): void {
  if (!webhooks) return;
  void webhooks.publish([
    webhookEvent('lead.created', {
      id: `lead:${lead.id}`,
      ownerId: lead.ownerId,
      occurredAt: lead.createdAt,
      data: {
        chatbotId: lead.chatbotId,
        // Webhooks name a conversation by the public chat's session id (webhook-events.ts).
        conversationId: sessionId,
        leadId: lead.id,
        name: lead.name ?? '',
        email: lead.email ?? '',
        phone: lead.phone ?? '',
        consented: lead.consented,
        source: lead.source === 'handoff_timeout' ? 'handoff_timeout' : 'form',
        createdAt: lead.createdAt.toISOString(),
      },
    }),
  ]);
}
