import { useEffect, useRef, useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Dialog } from '../../../components/ui/dialog';

export const SECRET_ONCE_MESSAGE = "Copy it now: you won't see it again.";
export const COPY_SECRET_FAILED_MESSAGE = 'Could not copy. Select the secret and copy it yourself.';
const COPIED_FEEDBACK_MS = 2000;

/** A signing secret, shown this one time, with a copy button. */
export function SecretDialog({ title, url, secret, onClose }: { title: string; url: string; secret: string; onClose: () => void }) {
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy() {
    setError(null);
    try {
      // Absent on a page that is not a secure context (plain http on another host name).
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(secret);
      setCopied(true);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setCopied(false), COPIED_FEEDBACK_MS);
    } catch {
      setCopied(false);
      setError(COPY_SECRET_FAILED_MESSAGE);
    }
  }

  return (
    <Dialog
      title={title}
      description={
        <>
          Deliveries to <span className="font-medium break-all text-gray-800">{url}</span> are signed with this secret (Standard Webhooks).
        </>
      }
      onClose={onClose}
    >
      <div className="space-y-4">
        <div className="flex items-stretch gap-2">
          <code
            aria-label="Signing secret"
            className="min-w-0 flex-1 rounded-lg bg-gray-900 px-3 py-2.5 font-mono text-[13px] leading-5 break-all text-gray-100 select-all"
          >
            {secret}
          </code>
          <Button variant="secondary" onClick={() => void copy()} className="h-auto">
            {copied ? 'Copied' : 'Copy'}
          </Button>
        </div>
        <span role="status" className="sr-only">
          {copied ? 'Secret copied to the clipboard' : ''}
        </span>
        {error ? <Alert>{error}</Alert> : null}
        <Alert tone="info">{SECRET_ONCE_MESSAGE}</Alert>
        <div className="flex justify-end">
          <Button onClick={onClose}>Done</Button>
        </div>
      </div>
    </Dialog>
  );
}
