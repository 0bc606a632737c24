import { useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { downloadTextFile } from '../../../lib/download-file';

export const RECOVERY_CODES_FILE_NAME = 'parley-recovery-codes.txt';

/** The recovery codes, shown once, with ways to keep them. */
export function RecoveryCodesPanel({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const text = `Parley recovery codes (each works once)\n\n${codes.join('\n')}\n`;

  async function copy() {
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      setCopied(true);
    } catch (err) {
      console.error('Could not copy the recovery codes', err);
    }
  }

  return (
    <div className="space-y-4">
      <Alert tone="info">
        Save these recovery codes somewhere safe. Each signs you in once if you lose your phone; they are not shown again.
      </Alert>
      <ul aria-label="Recovery codes" className="grid grid-cols-2 gap-2 rounded-xl border border-gray-200 bg-gray-50 p-4 font-mono text-sm">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="secondary" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </Button>
        <Button variant="secondary" onClick={() => downloadTextFile(RECOVERY_CODES_FILE_NAME, text, 'text/plain')}>
          Download
        </Button>
        <Button onClick={onDone}>I have saved them</Button>
      </div>
    </div>
  );
}
