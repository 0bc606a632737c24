import type { UsageReportQuery } from '../../../gql/graphql';
import { Card, CardHeader } from '../../../components/ui/card';
import { formatCount, formatDateTime, formatDollars } from '../../../lib/format';
import { NOT_AVAILABLE, YOUR_KEY } from '../usage-csv';

type UsageReport = UsageReportQuery['usage'];

const COLUMNS = ['Date', 'Chatbot', 'Model', 'Input Tokens', 'Output Tokens', 'Total Tokens', 'Cost'] as const;
// Counts and money line up on the right, text on the left.
const NUMERIC_FROM = 3;

/** The Request History table: newest first, one row per listed usage record. */
export function RequestHistoryTable({ report }: { report: UsageReport }) {
  const listed = report.recentRequests.length;
  const total = report.overallUsage.totalRequests;
  return (
    <Card>
      <CardHeader
        title="Request History"
        description={
          listed < total
            ? `Showing the latest ${formatCount(listed)} of ${formatCount(total)} requests`
            : `${formatCount(listed)} ${listed === 1 ? 'request' : 'requests'}, newest first`
        }
      />
      <div className="max-h-[32rem] overflow-auto">
        <table className="min-w-full text-sm">
          <thead className="sticky top-0 z-10 bg-gray-50 text-xs font-medium tracking-wide text-gray-500 uppercase">
            <tr>
              {COLUMNS.map((column, index) => (
                <th
                  key={column}
                  scope="col"
                  className={`px-4 py-3 whitespace-nowrap first:pl-6 last:pr-6 ${index >= NUMERIC_FROM ? 'text-right' : 'text-left'}`}
                >
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-gray-100">
            {report.recentRequests.map((request) => (
              <tr key={request.requestId} className="hover:bg-gray-50">
                <td className="py-3 pr-4 pl-6 whitespace-nowrap text-gray-600">{formatDateTime(request.timestamp)}</td>
                <td className="max-w-[14rem] truncate px-4 py-3 font-medium text-gray-900" title={request.chatbot?.name}>
                  {request.chatbot?.name ?? <span className="font-normal text-gray-500">{NOT_AVAILABLE}</span>}
                </td>
                <td className="px-4 py-3 whitespace-nowrap text-gray-600">
                  {request.model?.displayName ?? <span className="text-gray-500">{NOT_AVAILABLE}</span>}
                  {request.ownKey && (
                    <span className="ml-2 rounded-full bg-indigo-50 px-2 py-0.5 text-xs font-medium text-indigo-700">{YOUR_KEY}</span>
                  )}
                </td>
                <td className="px-4 py-3 text-right text-gray-600 tabular-nums">{formatCount(request.promptTokens)}</td>
                <td className="px-4 py-3 text-right text-gray-600 tabular-nums">{formatCount(request.completionTokens)}</td>
                <td className="px-4 py-3 text-right text-gray-900 tabular-nums">{formatCount(request.totalTokens)}</td>
                <td className="py-3 pr-6 pl-4 text-right font-medium text-gray-900 tabular-nums">{formatDollars(request.totalCost, 5)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
