import { useEffect, useRef, useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { strokeIconProps } from '../../../components/ui/icon-props';
import { embedSnippet } from '../embed-settings';

/** How long "Copied" stays on the button. */
export const COPIED_FEEDBACK_MS = 2000;
export const COPY_FAILED_MESSAGE = 'Could not copy. Select the snippet and copy it yourself.';

/** The script tag to paste before </body>, from this origin (the one the owner uses is the product's). */
export function EmbedSnippetCard({ uniqueId }: { uniqueId: string }) {
  const snippet = embedSnippet(window.location.origin, uniqueId);
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy() {
    setError(null);
    try {
      // Absent on a page that is not a secure context (plain http on another host name).
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(snippet);
      setCopied(true);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setCopied(false), COPIED_FEEDBACK_MS);
    } catch {
      setCopied(false);
      setError(COPY_FAILED_MESSAGE);
    }
  }

  return (
    <Card>
      <CardHeader title="Add to your website" description="Paste this tag before </body> on every page where the chat should appear." />
      <CardBody className="space-y-4">
        <div className="overflow-hidden rounded-xl bg-gray-900 ring-1 ring-gray-900/10">
          <div className="flex items-center justify-between border-b border-white/10 py-1.5 pr-1.5 pl-4">
            <span className="text-xs font-medium text-gray-400">HTML</span>
            <button
              type="button"
              onClick={() => void copy()}
              className="inline-flex h-8 items-center gap-1.5 rounded-md px-2.5 text-sm font-medium text-gray-200 transition-colors hover:bg-white/10 hover:text-white focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-400"
            >
              {copied ? (
                <>
                  <svg {...strokeIconProps} className="size-4 text-green-400">
                    <path d="m5 12.5 4.5 4.5L19 7.5" />
                  </svg>
                  Copied
                </>
              ) : (
                <>
                  <svg {...strokeIconProps} className="size-4">
                    <rect x="8" y="8" width="12" height="12" rx="2" />
                    <path d="M16 8V6a2 2 0 0 0-2-2H6a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h2" />
                  </svg>
                  Copy
                </>
              )}
            </button>
          </div>
          <pre className="px-4 py-3.5 text-[13px] leading-6 break-all whitespace-pre-wrap text-gray-100">
            <code aria-label="Embed snippet">{snippet}</code>
          </pre>
        </div>
        <span role="status" className="sr-only">
          {copied ? 'Snippet copied to the clipboard' : ''}
        </span>
        {error ? <Alert>{error}</Alert> : null}
        <p className="text-sm text-gray-600">
          A chat button appears in the corner and opens your chatbot in a panel; visitors keep their conversation as they move between
          pages. From your page's own scripts, <code className="rounded bg-gray-100 px-1 py-0.5 text-[13px]">Parley.open()</code>,{' '}
          <code className="rounded bg-gray-100 px-1 py-0.5 text-[13px]">Parley.close()</code> and{' '}
          <code className="rounded bg-gray-100 px-1 py-0.5 text-[13px]">Parley.identify({'{ id, name }'})</code> open, close and tell the
          chat who a signed-in visitor is; you see the name in History.
        </p>
      </CardBody>
    </Card>
  );
}
