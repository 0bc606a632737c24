import { useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import type { IssuedSecret } from '../hooks/use-api-key-actions';
import { CopyButton } from './copy-button';
import { Modal } from './modal';

export const SECRET_ONCE_TEXT = "Copy it now: you won't see this secret again. We store only a hash of it.";

/**
 * The one time a secret is shown, just after it was issued. It lives in this dialog's props only
 * (never in the page's cache or the URL), so closing the dialog or reloading the page forgets it.
 */
export function SecretReveal({ issued, onDone }: { issued: IssuedSecret; onDone: () => void }) {
  const [acknowledged, setAcknowledged] = useState(false);
  const title = issued.kind === 'created' ? 'Your new API key' : 'Your new secret';
  return (
    <Modal title={title} description={`${issued.apiKey.name}`}>
      <div className="space-y-4">
        <Alert tone="info">{SECRET_ONCE_TEXT}</Alert>
        <div>
          <label htmlFor="issued-secret" className="mb-1.5 block text-sm font-medium text-gray-800">
            Secret
          </label>
          <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
            <input
              id="issued-secret"
              readOnly
              value={issued.secret}
              data-autofocus
              onFocus={(event) => event.currentTarget.select()}
              className="block h-11 w-full min-w-0 rounded-lg border border-gray-300 bg-gray-50 px-3 font-mono text-xs text-gray-900 focus:border-brand-500 focus:ring-3 focus:ring-brand-500/20 focus:outline-none"
            />
            <CopyButton text={issued.secret} />
          </div>
        </div>
        <label className="flex items-start gap-2 text-sm text-gray-700">
          <input
            type="checkbox"
            className="mt-0.5 size-4 rounded border-gray-300 text-brand-600"
            checked={acknowledged}
            onChange={(event) => setAcknowledged(event.target.checked)}
          />
          I have stored the secret somewhere safe.
        </label>
        <div className="flex justify-end">
          <Button onClick={onDone} disabled={!acknowledged}>
            Done
          </Button>
        </div>
      </div>
    </Modal>
  );
}
