import { Badge } from '../../../components/ui/badge';
import { Spinner } from '../../../components/ui/spinner';
import { formatDateTime } from '../../../lib/format';
import { useChannelDeliveries } from '../hooks/use-channels';

const DELIVERY_KINDS: Record<string, string> = { answer: 'Answer', test: 'Test message', agent: 'Agent reply', notice: 'Notice' };

/** delivered and read: WhatsApp's status callbacks about a sent message; sending: a stored message's send under way. */
const DELIVERY_STATUSES: Record<string, { tone: 'success' | 'danger' | 'neutral'; label: string }> = {
  sent: { tone: 'success', label: 'Sent' },
  delivered: { tone: 'success', label: 'Delivered' },
  read: { tone: 'success', label: 'Read' },
  failed: { tone: 'danger', label: 'Failed' },
  sending: { tone: 'neutral', label: 'Sending' },
};

/** The connection's latest deliveries: what Parley sent on the channel and how it went. */
export function Deliveries({ connectionId }: { connectionId: string }) {
  const { deliveries, loading } = useChannelDeliveries(connectionId);
  if (loading) return <Spinner className="size-4" label="Loading deliveries" />;
  if (deliveries.length === 0) return <p className="text-sm text-gray-500">Nothing sent yet.</p>;
  return (
    <ul className="divide-y divide-gray-100 text-sm" aria-label="Recent deliveries">
      {deliveries.slice(0, 10).map((d) => (
        <li key={d.id} className="flex flex-wrap items-center justify-between gap-2 py-1.5">
          <span className="text-gray-700">
            {DELIVERY_KINDS[d.kind] ?? d.kind} to chat <span className="font-mono">{d.chatId}</span>
            {d.lastError ? <span className="text-red-700"> — {d.lastError}</span> : null}
          </span>
          <span className="flex items-center gap-2">
            <Badge tone={DELIVERY_STATUSES[d.status]?.tone ?? 'danger'}>{DELIVERY_STATUSES[d.status]?.label ?? 'Failed'}</Badge>
            <span className="text-gray-500">{formatDateTime(d.createdAt)}</span>
          </span>
        </li>
      ))}
    </ul>
  );
}
