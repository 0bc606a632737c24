import { Button } from '../../../components/ui/button';
import { downloadTextFile } from '../../../lib/download-file';
import type { UsageReportQuery } from '../../../gql/graphql';
import { usageCsv, usageCsvFileName } from '../usage-csv';
import { DownloadIcon } from './usage-icons';

type UsageRequest = UsageReportQuery['usage']['recentRequests'][number];

// A byte-order mark, so spreadsheet programs read the file as UTF-8 (chatbot names need not be ASCII).
const UTF8_BOM = '\uFEFF';

/** Export CSV (docs/product.md, Usage): the listed usage records as usage_data_{date}.csv; disabled with nothing to export. */
export function ExportCsvButton({ requests }: { requests: ReadonlyArray<UsageRequest> | undefined }) {
  function exportCsv() {
    const csv = usageCsv(requests ?? []);
    if (csv === null) return;
    downloadTextFile(usageCsvFileName(new Date()), UTF8_BOM + csv, 'text/csv;charset=utf-8');
  }

  return (
    <Button variant="secondary" onClick={exportCsv} disabled={!requests || requests.length === 0}>
      <DownloadIcon />
      Export CSV
    </Button>
  );
}
