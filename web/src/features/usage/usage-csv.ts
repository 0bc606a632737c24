import type { UsageReportQuery } from '../../gql/graphql';
import { toCsv } from '../../lib/csv';
import { formatDecimal } from '../../lib/format';

type UsageRequest = UsageReportQuery['usage']['recentRequests'][number];

/** The export's columns, in order (docs/product.md, Usage). */
export const USAGE_CSV_HEADER = ['Date', 'Chatbot', 'Model', 'Prompt Tokens', 'Completion Tokens', 'Total Tokens', 'Cost ($)'] as const;

/** Shown for a usage record whose chatbot was deleted or whose model is unknown. */
export const NOT_AVAILABLE = 'N/A';

/** Said of an answer given on the workspace's own provider key (its cost is the own-key fee). */
export const YOUR_KEY = 'your key';

/** The model's name as the page and the export show it: with "(your key)" for an own-key answer. */
export function modelLabel(request: Pick<UsageRequest, 'model' | 'ownKey'>): string {
  const name = request.model?.displayName ?? NOT_AVAILABLE;
  return request.ownKey ? `${name} (${YOUR_KEY})` : name;
}

/**
 * The usage records as a CSV document (docs/product.md, Usage), or null when there is nothing to export. Dates are
 * ISO 8601 instants (UTC), so the file reads the same in every time zone and spreadsheet.
 */
export function usageCsv(requests: ReadonlyArray<UsageRequest>): string | null {
  if (requests.length === 0) return null;
  return toCsv([
    USAGE_CSV_HEADER,
    ...requests.map((request) => [
      request.timestamp,
      request.chatbot?.name ?? NOT_AVAILABLE,
      modelLabel(request),
      request.promptTokens,
      request.completionTokens,
      request.totalTokens,
      formatDecimal(request.totalCost, 5),
    ]),
  ]);
}

/** usage_data_{YYYY-MM-DD}.csv, dated with today's local calendar day. */
export function usageCsvFileName(today: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `usage_data_${today.getFullYear()}-${pad(today.getMonth() + 1)}-${pad(today.getDate())}.csv`;
}
