import { useState } from 'react';
import { downloadBlob } from '../../../lib/download-file';
import { readToken } from '../../../lib/token-storage';
import { fetchLeadExport, LEAD_EXPORT_FAILED_MESSAGE, LEAD_EXPORT_FILE, LeadExportError } from '../api/lead-export-api';
import type { LeadsFilter } from '../leads-filter';

/** The Leads page's Export CSV: the filtered leads as a file. */
export function useLeadExport() {
  const [downloading, setDownloading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function download(filter: LeadsFilter): Promise<void> {
    if (downloading) return;
    setDownloading(true);
    setError(null);
    try {
      downloadBlob(LEAD_EXPORT_FILE, await fetchLeadExport(filter, readToken()));
    } catch (failure) {
      setError(failure instanceof LeadExportError ? failure.message : LEAD_EXPORT_FAILED_MESSAGE);
    } finally {
      setDownloading(false);
    }
  }

  return { download, downloading, error };
}
