import { Spinner } from '../../../components/ui/spinner';
import { formatDateTime } from '../../../lib/format';
import { useSkippedMessages } from '../hooks/use-channels';

/** Why a mail was taken and never answered, as the owner reads it (docs/product.md, Email). */
export const SKIP_REASONS: Record<string, string> = {
  auto_reply: 'Auto-reply',
  bounce: 'Bounce',
  loop: 'Mail loop',
  own_address: 'From the inbound address itself',
  rate: 'Over 30 mails an hour from this sender',
  empty: 'Empty mail',
};

/** The inbound address's latest mails that were never answered (no model call, nothing billed): when, from whom, why. */
export function SkippedMails({ connectionId }: { connectionId: string }) {
  const { skipped, loading } = useSkippedMessages(connectionId);
  return (
    <div>
      <p className="mb-1 text-sm font-medium text-gray-900">Skipped mails</p>
      {loading ? (
        <Spinner className="size-4" label="Loading skipped mails" />
      ) : skipped.length === 0 ? (
        <p className="text-sm text-gray-500">No mail skipped.</p>
      ) : (
        <>
          <p className="mb-1 text-sm text-gray-600">Never answered and never billed.</p>
          <ul className="divide-y divide-gray-100 text-sm" aria-label="Skipped mails">
            {skipped.map((s, i) => (
              <li key={`${s.receivedAt}-${i}`} className="flex flex-wrap items-center justify-between gap-2 py-1.5">
                <span className="text-gray-700">
                  <span className="font-mono">{s.contact || 'Unknown sender'}</span> — {SKIP_REASONS[s.reason] ?? s.reason}
                </span>
                <span className="text-gray-500">{formatDateTime(s.receivedAt)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
