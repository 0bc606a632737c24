// plan.changed for webhooks (docs/adr/0032-webhooks.md): a Stripe event that moved an owner between
// free and pro is announced once (the event's id names it), to subscribed owners only.
import { webhookEvent } from '@parley/common/webhook-events.ts';
import type { WebhookPublisher } from '@parley/common/webhook-publisher.ts';
import type { PlanChange } from './apply-stripe-event.ts';

export async function publishPlanChanged(webhooks: Pick<WebhookPublisher, 'publish'>, change: PlanChange): Promise<void> {
  await webhooks.publish([
    webhookEvent('plan.changed', {
      id: `plan.changed:${change.eventId}`,
      ownerId: change.ownerId,
      occurredAt: new Date(),
      data: { plan: change.plan, previousPlan: change.previousPlan },
    }),
  ]);
}
