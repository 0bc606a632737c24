import { Fragment, useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Spinner } from '../../../components/ui/spinner';
import { formatDateTime } from '../../../lib/format';
import { useRedeliverWebhook } from '../hooks/use-webhook-actions';
import { useWebhookDeliveries } from '../hooks/use-webhook-deliveries';
import { formatDuration, httpStatusLabel } from '../webhook-labels';
import { DeliveryStatusBadge } from './delivery-status-badge';

const COLUMNS = ['Event', 'Status', 'HTTP', 'Duration', 'Attempts', 'Time', ''] as const;
const cell = 'px-3 py-3 whitespace-nowrap first:pl-6 last:pr-6';

/** An endpoint's deliveries, newest first: what each answer was, its attempts and excerpt on demand, and Redeliver. */
export function DeliveryLog({ endpointId }: { endpointId: string }) {
  const log = useWebhookDeliveries(endpointId);
  const { redeliver, redelivering, error: redeliverError } = useRedeliverWebhook();
  const [expanded, setExpanded] = useState<string | null>(null);
  const [redeliveringId, setRedeliveringId] = useState<string | null>(null);

  async function again(deliveryId: string) {
    setRedeliveringId(deliveryId);
    await redeliver(endpointId, deliveryId);
    setRedeliveringId(null);
  }

  return (
    <div className="border-t border-gray-100">
      <div className="flex items-center justify-between gap-3 px-6 py-3">
        <h3 className="text-sm font-semibold text-gray-900">Delivery log</h3>
        <Button variant="ghost" size="sm" onClick={() => void log.refresh()}>
          Refresh
        </Button>
      </div>
      {log.error ? <Alert className="mx-6 mb-4">{log.error}</Alert> : null}
      {redeliverError ? <Alert className="mx-6 mb-4">{redeliverError}</Alert> : null}
      {log.loading ? (
        <div className="flex justify-center py-8 text-brand-600">
          <Spinner className="size-6" label="Loading the delivery log" />
        </div>
      ) : log.deliveries.length === 0 ? (
        <p className="px-6 pb-6 text-sm text-gray-600">No deliveries yet. Send a test event to try the endpoint.</p>
      ) : (
        <>
          {/* On a phone, one delivery under another; from the small breakpoint on, a table. */}
          <ul className="divide-y divide-gray-100 border-t border-gray-100 sm:hidden" aria-label="Deliveries">
            {log.deliveries.map((d) => {
              const open = expanded === d.id;
              return (
                <li key={d.id} className="space-y-3 px-6 py-4">
                  <div className="flex items-start justify-between gap-3">
                    <p className="min-w-0 font-mono text-[13px] break-all text-gray-900">
                      {d.eventType}
                      {d.test ? <span className="ml-2 font-sans text-xs text-gray-500">test</span> : null}
                    </p>
                    <DeliveryStatusBadge status={d.status} />
                  </div>
                  <dl className="grid grid-cols-3 gap-x-3 gap-y-1 text-sm">
                    <div>
                      <dt className="text-xs text-gray-500">HTTP</dt>
                      <dd className="text-gray-800 tabular-nums">{httpStatusLabel(d.responseStatus)}</dd>
                    </div>
                    <div>
                      <dt className="text-xs text-gray-500">Duration</dt>
                      <dd className="text-gray-800 tabular-nums">{formatDuration(d.durationMs)}</dd>
                    </div>
                    <div>
                      <dt className="text-xs text-gray-500">Attempts</dt>
                      <dd className="text-gray-800 tabular-nums">{d.attempts}</dd>
                    </div>
                    <div className="col-span-3">
                      <dt className="sr-only">Time</dt>
                      <dd className="text-gray-600">{formatDateTime(d.lastAttemptAt ?? d.createdAt)}</dd>
                    </div>
                  </dl>
                  {open ? <DeliveryDetails delivery={d} /> : null}
                  <div className="flex gap-2">
                    <Button variant="secondary" size="sm" aria-expanded={open} onClick={() => setExpanded(open ? null : d.id)}>
                      {open ? 'Hide response' : 'Response'}
                    </Button>
                    <Button
                      variant="secondary"
                      size="sm"
                      busy={redelivering && redeliveringId === d.id}
                      busyLabel="Redelivering..."
                      disabled={redelivering}
                      onClick={() => void again(d.id)}
                    >
                      Redeliver
                    </Button>
                  </div>
                </li>
              );
            })}
          </ul>
          {/* Focusable, so the table can be scrolled sideways with the keyboard on a phone; positioned, so the
              hidden "Actions" heading stays inside it. */}
          <div className="relative hidden overflow-x-auto sm:block" tabIndex={0} role="region" aria-label="Deliveries">
            <table className="min-w-full text-sm">
              <thead className="bg-gray-50 text-xs font-medium tracking-wide text-gray-500 uppercase">
                <tr>
                  {COLUMNS.map((column, i) => (
                    <th key={i} scope="col" className={`${cell} text-left`}>
                      {column || <span className="sr-only">Actions</span>}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody className="divide-y divide-gray-100">
                {log.deliveries.map((d) => {
                  const open = expanded === d.id;
                  const detailsId = `delivery-${d.id}`;
                  return (
                    <Fragment key={d.id}>
                      <tr className="align-middle hover:bg-gray-50">
                        <td className={cell}>
                          <span className="font-mono text-[13px] text-gray-900">{d.eventType}</span>
                          {d.test ? <span className="ml-2 text-xs text-gray-500">test</span> : null}
                        </td>
                        <td className={cell}>
                          <DeliveryStatusBadge status={d.status} />
                        </td>
                        <td className={`${cell} text-gray-700 tabular-nums`}>{httpStatusLabel(d.responseStatus)}</td>
                        <td className={`${cell} text-gray-700 tabular-nums`}>{formatDuration(d.durationMs)}</td>
                        <td className={`${cell} text-gray-700 tabular-nums`}>{d.attempts}</td>
                        <td className={`${cell} text-gray-600`}>{formatDateTime(d.lastAttemptAt ?? d.createdAt)}</td>
                        <td className={cell}>
                          <div className="flex justify-end gap-1">
                            <Button
                              variant="ghost"
                              size="sm"
                              aria-expanded={open}
                              aria-controls={detailsId}
                              onClick={() => setExpanded(open ? null : d.id)}
                            >
                              {open ? 'Hide response' : 'Response'}
                            </Button>
                            <Button
                              variant="secondary"
                              size="sm"
                              busy={redelivering && redeliveringId === d.id}
                              busyLabel="Redelivering..."
                              disabled={redelivering}
                              onClick={() => void again(d.id)}
                            >
                              Redeliver
                            </Button>
                          </div>
                        </td>
                      </tr>
                      {open ? (
                        <tr id={detailsId} className="bg-gray-50/60">
                          <td colSpan={COLUMNS.length} className="px-6 py-3">
                            <DeliveryDetails delivery={d} />
                          </td>
                        </tr>
                      ) : null}
                    </Fragment>
                  );
                })}
              </tbody>
            </table>
          </div>
          {log.hasMore ? (
            <div className="flex justify-center border-t border-gray-100 px-6 py-4">
              <Button variant="secondary" busy={log.loadingMore} busyLabel="Loading..." onClick={() => void log.loadMore()}>
                Load more
              </Button>
            </div>
          ) : null}
        </>
      )}
    </div>
  );
}

type Delivery = ReturnType<typeof useWebhookDeliveries>['deliveries'][number];

/** A delivery on demand: its last failure in words, each attempt kept (oldest first), and the start of the last answer's body. */
function DeliveryDetails({ delivery }: { delivery: Delivery }) {
  const { error, responseExcerpt: excerpt, attemptLog, attempts } = delivery;
  return (
    <div className="space-y-3">
      {error ? <p className="text-sm text-red-700">{error}</p> : null}
      {attemptLog.length > 0 ? (
        <div>
          <p className="mb-1 text-xs font-medium tracking-wide text-gray-500 uppercase">
            {attempts > attemptLog.length ? `Last ${attemptLog.length} of ${attempts} attempts` : 'Attempts'}
          </p>
          <ol className="max-w-2xl divide-y divide-gray-100 rounded-lg bg-white text-sm ring-1 ring-gray-200" aria-label="Attempts">
            {attemptLog.map((a, i) => (
              <li key={i} className="flex flex-wrap items-baseline gap-x-4 gap-y-1 px-3 py-2">
                <span className="text-gray-600">{formatDateTime(a.attemptedAt)}</span>
                <span className="text-gray-800 tabular-nums">{httpStatusLabel(a.responseStatus)}</span>
                <span className="text-gray-800 tabular-nums">{formatDuration(a.durationMs)}</span>
                <span className={a.error ? 'text-red-700' : 'text-green-700'}>{a.error ?? 'Delivered'}</span>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      <div>
        <p className="mb-1 text-xs font-medium tracking-wide text-gray-500 uppercase">Response body</p>
        <pre className="max-h-48 max-w-2xl overflow-auto rounded-lg bg-white p-3 font-mono text-xs break-all whitespace-pre-wrap text-gray-800 ring-1 ring-gray-200">
          {excerpt || '(empty)'}
        </pre>
      </div>
    </div>
  );
}
