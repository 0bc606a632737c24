import { Badge } from '../../../components/ui/badge';
import type { WebhookDeliveryStatus } from '../../../gql/graphql';
import { DELIVERY_STATUS_LABELS } from '../webhook-labels';

const TONES = { PENDING: 'warning', SUCCEEDED: 'success', FAILED: 'danger' } as const;

export function DeliveryStatusBadge({ status }: { status: WebhookDeliveryStatus }) {
  return <Badge tone={TONES[status]}>{DELIVERY_STATUS_LABELS[status]}</Badge>;
}
