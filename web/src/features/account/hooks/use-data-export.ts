import { useState } from 'react';
import { downloadTextFile } from '../../../lib/download-file';
import { readToken } from '../../../lib/token-storage';
import { DataExportError, DATA_EXPORT_FAILED_MESSAGE, fetchDataExport } from '../api/data-export-api';
import { dataExportFileName } from '../data-export-file-name';

/** "Download my data": everything Parley holds about the owner, saved as one JSON file. */
export function useDataExport() {
  const [downloading, setDownloading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function downloadData(): Promise<void> {
    setDownloading(true);
    setError(null);
    try {
      const json = await fetchDataExport(readToken());
      downloadTextFile(dataExportFileName(new Date()), json, 'application/json');
    } catch (failure) {
      setError(failure instanceof DataExportError ? failure.message : DATA_EXPORT_FAILED_MESSAGE);
    } finally {
      setDownloading(false);
    }
  }

  return { downloadData, downloading, error };
}
