import type { AuditLogQuery } from '../../../gql/graphql';
import { formatDateTime } from '../../../lib/format';
import { actionLabel, detailsSummary } from '../audit-log-labels';

type AuditEvent = AuditLogQuery['auditLog']['events'][number];

const COLUMNS = ['Time', 'Actor', 'Action', 'Target', 'Details', 'IP address'] as const;

/** The audit log's entries, newest first. */
export function AuditLogTable({ events }: { events: AuditEvent[] }) {
  return (
    // Focusable, so the table can be scrolled sideways with the keyboard on a phone.
    <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="Audit log entries">
      <table className="min-w-full text-sm">
        <thead className="bg-gray-50 text-xs font-medium tracking-wide text-gray-500 uppercase">
          <tr>
            {COLUMNS.map((column) => (
              <th key={column} scope="col" className="px-4 py-3 text-left whitespace-nowrap first:pl-6 last:pr-6">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-gray-100">
          {events.map((event) => (
            <tr key={event.id} className="align-top hover:bg-gray-50">
              <td className="py-3 pr-4 pl-6 whitespace-nowrap text-gray-600">{formatDateTime(event.createdAt)}</td>
              <td className="max-w-[14rem] truncate px-4 py-3 text-gray-900" title={event.actorEmail ?? undefined}>
                {event.actorEmail ?? <span className="text-gray-500">System</span>}
              </td>
              <td className="px-4 py-3 whitespace-nowrap">
                <span className="font-medium text-gray-900">{actionLabel(event.action)}</span>
                <span className="block font-mono text-xs text-gray-500">{event.action}</span>
              </td>
              <td className="max-w-[14rem] truncate px-4 py-3 text-gray-700" title={event.target}>
                {event.target || '—'}
              </td>
              <td className="max-w-[24rem] min-w-[16rem] px-4 py-3 wrap-anywhere text-gray-600">{detailsSummary(event.details) || '—'}</td>
              <td className="py-3 pr-6 pl-4 whitespace-nowrap text-gray-600">{event.clientIp ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
