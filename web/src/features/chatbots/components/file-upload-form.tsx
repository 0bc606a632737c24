import { useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { FileDropZone } from '../../../components/ui/file-drop-zone';
import { ProgressBar } from '../../../components/ui/progress-bar';
import { KNOWLEDGE_FILE_ACCEPT, useUploadKnowledgeFile } from '../hooks/use-upload-knowledge-file';

/** Uploads one document as soon as it is dropped or picked; the bar shows how much has been sent. */
export function FileUploadForm({ chatbotId }: { chatbotId: string }) {
  const { uploadFile, uploading, progress, error, success } = useUploadKnowledgeFile(chatbotId);
  const [fileName, setFileName] = useState<string | null>(null);

  function handleFile(file: File) {
    setFileName(file.name);
    void uploadFile(file);
  }

  return (
    <div className="space-y-4">
      {error ? <Alert>{error}</Alert> : null}
      {success ? <Alert tone="success">{success}</Alert> : null}
      <FileDropZone
        accept={KNOWLEDGE_FILE_ACCEPT}
        onFile={handleFile}
        disabled={uploading}
        hint={
          <>
            PDF, Word (.docx), text, Markdown or HTML, up to 20 MB.
            <br />
            Scanned PDFs need a text layer; password-protected files cannot be read.
          </>
        }
      />
      {uploading && progress !== null ? (
        <div className="rounded-xl border border-gray-200 px-4 py-3">
          <p className="mb-2 truncate text-sm font-medium text-gray-800">Uploading {fileName}</p>
          <ProgressBar percent={progress} label={`Uploading ${fileName ?? 'file'}`} />
        </div>
      ) : null}
    </div>
  );
}
