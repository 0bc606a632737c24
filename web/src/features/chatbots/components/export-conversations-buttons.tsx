import { Button } from '../../../components/ui/button';
import { strokeIconProps } from '../../../components/ui/icon-props';
import type { ExportFormat } from '../api/conversation-export-api';

function DownloadIcon({ className = 'size-4' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M12 4v11M7 10l5 5 5-5M5 20h14" />
    </svg>
  );
}

const formats: ReadonlyArray<{ format: ExportFormat; label: string }> = [
  { format: 'csv', label: 'Download CSV' },
  { format: 'jsonl', label: 'Download JSONL' },
];

interface ExportConversationsButtonsProps {
  downloading: ExportFormat | null;
  onDownload: (format: ExportFormat) => void;
}

/** Every conversation with every message, as a spreadsheet (CSV) or one JSON object per line (JSONL). */
export function ExportConversationsButtons({ downloading, onDownload }: ExportConversationsButtonsProps) {
  return (
    <div className="flex shrink-0 flex-wrap items-center gap-2">
      {formats.map(({ format, label }) => (
        <Button
          key={format}
          variant="secondary"
          size="sm"
          busy={downloading === format}
          busyLabel="Preparing..."
          disabled={downloading !== null}
          onClick={() => onDownload(format)}
        >
          <DownloadIcon />
          {label}
        </Button>
      ))}
    </div>
  );
}
