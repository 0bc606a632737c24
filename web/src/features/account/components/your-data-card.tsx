import { Button } from '../../../components/ui/button';
import { useDataExport } from '../hooks/use-data-export';
import { AccountSection, FormOutcome } from './account-section';
import { DownloadIcon } from './account-icons';

export function YourDataCard() {
  const { downloadData, downloading, error } = useDataExport();
  return (
    <AccountSection title="Your data">
      <div className="space-y-4">
        <FormOutcome error={error} />
        <p className="text-sm text-gray-600">
          Download everything Parley holds about you — your account, your chatbots with their knowledge, and your usage — as one JSON file.
        </p>
        <div className="flex justify-end">
          <Button variant="secondary" onClick={() => void downloadData()} busy={downloading} busyLabel="Preparing...">
            <DownloadIcon />
            Download my data
          </Button>
        </div>
      </div>
    </AccountSection>
  );
}
