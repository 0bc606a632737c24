import { useState } from 'react';
import { downloadBlob } from '../../../lib/download-file';
import { readToken } from '../../../lib/token-storage';
import { ConversationExportError, EXPORT_FAILED_MESSAGE, fetchConversationExport, type ExportFormat } from '../api/conversation-export-api';

/** The History tab's downloads: every conversation of the chatbot as CSV or JSON Lines. */
export function useConversationExport(chatbotId: string, chatbotName: string) {
  const [downloading, setDownloading] = useState<ExportFormat | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function download(format: ExportFormat): Promise<void> {
    if (downloading) return;
    setDownloading(format);
    setError(null);
    try {
      const { blob, fileName } = await fetchConversationExport(chatbotId, chatbotName, format, readToken());
      downloadBlob(fileName, blob);
    } catch (failure) {
      setError(failure instanceof ConversationExportError ? failure.message : EXPORT_FAILED_MESSAGE);
    } finally {
      setDownloading(null);
    }
  }

  return { download, downloading, error };
}
