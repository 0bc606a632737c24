import { useId, useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card } from '../../../components/ui/card';
import { Switch } from '../../../components/ui/switch';
import type { WebhookEndpointsQuery } from '../../../gql/graphql';
import { formatDateTime } from '../../../lib/format';
import { useDeleteWebhookEndpoint, useRollWebhookSecret, useSetWebhookEnabled } from '../hooks/use-webhook-actions';
import { httpStatusLabel } from '../webhook-labels';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { DeliveryLog } from './delivery-log';
import { DeliveryStatusBadge } from './delivery-status-badge';
import { EndpointDialog } from './endpoint-dialog';
import { SecretDialog } from './secret-dialog';
import { SendTestDialog } from './send-test-dialog';

type Endpoint = WebhookEndpointsQuery['webhookEndpoints'][number];
type EventType = WebhookEndpointsQuery['webhookEventTypes'][number];

/** One endpoint: its URL and events, on or off, its last delivery, and what can be done with it. */
export function EndpointCard({ endpoint, eventTypes }: { endpoint: Endpoint; eventTypes: EventType[] }) {
  const titleId = useId();
  const [logOpen, setLogOpen] = useState(false);
  const [dialog, setDialog] = useState<'edit' | 'test' | 'roll' | 'delete' | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const toggle = useSetWebhookEnabled();
  const roll = useRollWebhookSecret();
  const removal = useDeleteWebhookEndpoint();
  const last = endpoint.lastDelivery;

  async function rollSecret() {
    const rolled = await roll.roll(endpoint.id);
    if (rolled) {
      setDialog(null);
      setSecret(rolled);
    }
  }

  return (
    <Card role="region" aria-labelledby={titleId} className="overflow-hidden">
      <div className="flex flex-col gap-4 px-6 py-5 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0 space-y-2">
          <h2 id={titleId} className="font-mono text-sm font-semibold break-all text-gray-900">
            {endpoint.url}
          </h2>
          <ul className="flex flex-wrap gap-1.5" aria-label="Events">
            {endpoint.events.map((type) => (
              <li key={type}>
                <Badge>{type}</Badge>
              </li>
            ))}
          </ul>
          <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-gray-600">
            <span>Last delivery:</span>
            {last ? (
              <>
                <DeliveryStatusBadge status={last.status} />
                <span className="tabular-nums">{httpStatusLabel(last.responseStatus)}</span>
                <span className="whitespace-nowrap">
                  <span aria-hidden="true">· </span>
                  {formatDateTime(last.lastAttemptAt ?? last.createdAt)}
                </span>
              </>
            ) : (
              <span className="text-gray-500">none yet</span>
            )}
          </p>
        </div>
        <div className="shrink-0 sm:w-44">
          <Switch
            label="Enabled"
            description={endpoint.enabled ? 'Events are sent' : 'Paused'}
            checked={endpoint.enabled}
            disabled={toggle.saving}
            onChange={(enabled) => void toggle.setEnabled(endpoint.id, enabled)}
          />
        </div>
      </div>
      {endpoint.disabledReason ? (
        <Alert tone="info" className="mx-6 mb-4">
          Parley disabled this endpoint: {endpoint.disabledReason}. Enable it again when it answers; missed events can be redelivered from
          the log.
        </Alert>
      ) : null}
      {toggle.error ? <Alert className="mx-6 mb-4">{toggle.error}</Alert> : null}
      <div className="flex flex-wrap gap-2 border-t border-gray-100 px-6 py-3">
        <Button variant="secondary" size="sm" aria-expanded={logOpen} onClick={() => setLogOpen((o) => !o)}>
          {logOpen ? 'Hide delivery log' : 'Delivery log'}
        </Button>
        <Button variant="secondary" size="sm" onClick={() => setDialog('test')}>
          Send test event
        </Button>
        <Button variant="ghost" size="sm" onClick={() => setDialog('edit')}>
          Edit
        </Button>
        <Button variant="ghost" size="sm" onClick={() => setDialog('roll')}>
          Roll secret
        </Button>
        <Button variant="ghost" size="sm" className="text-red-700 hover:bg-red-50 hover:text-red-800" onClick={() => setDialog('delete')}>
          Delete
        </Button>
      </div>
      {logOpen ? <DeliveryLog endpointId={endpoint.id} /> : null}

      {dialog === 'edit' ? <EndpointDialog eventTypes={eventTypes} endpoint={endpoint} onClose={() => setDialog(null)} /> : null}
      {dialog === 'test' ? (
        <SendTestDialog
          endpoint={endpoint}
          eventTypes={eventTypes}
          onClose={() => setDialog(null)}
          onSent={() => {
            setDialog(null);
            setLogOpen(true);
          }}
        />
      ) : null}
      {dialog === 'roll' ? (
        <ConfirmDialog
          title="Roll the signing secret?"
          confirmLabel="Roll secret"
          busyLabel="Rolling..."
          busy={roll.rolling}
          error={roll.error}
          onConfirm={() => void rollSecret()}
          onClose={() => {
            roll.reset();
            setDialog(null);
          }}
        >
          The current secret stops signing at once: deliveries from now on are signed with the new one, shown once.
        </ConfirmDialog>
      ) : null}
      {dialog === 'delete' ? (
        <ConfirmDialog
          title="Delete this endpoint?"
          confirmLabel="Delete endpoint"
          busyLabel="Deleting..."
          busy={removal.deleting}
          error={removal.error}
          onConfirm={() => void removal.remove(endpoint.id)}
          onClose={() => {
            removal.reset();
            setDialog(null);
          }}
        >
          <span className="break-all">{endpoint.url}</span> stops receiving events, and its delivery log is deleted.
        </ConfirmDialog>
      ) : null}
      {secret ? <SecretDialog title="New signing secret" url={endpoint.url} secret={secret} onClose={() => setSecret(null)} /> : null}
    </Card>
  );
}
