import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { Spinner } from '../../../components/ui/spinner';
import { TextField } from '../../../components/ui/text-field';
import { formatDate } from '../../../lib/format';
import { useProviderKeys, useRemoveProviderKey, useSetProviderKey } from '../hooks/use-provider-keys';

/** The providers a workspace may bring its own key for, in the order shown. */
export const PROVIDERS = [
  { id: 'openai', name: 'OpenAI' },
  { id: 'anthropic', name: 'Anthropic' },
  { id: 'gemini', name: 'Google Gemini' },
] as const;

export const PROVIDER_KEYS_DESCRIPTION =
  "Your chatbots answer on your own key for that provider's models, at no credit. Keys are checked with the provider, stored encrypted and never shown again.";

type Provider = (typeof PROVIDERS)[number];

/** One provider: its saved key's last four characters and date with Remove, or a password field and Save. */
function ProviderKeyRow({ provider, saved }: { provider: Provider; saved?: { lastFour: string; createdAt: string } }) {
  const [key, setKey] = useState('');
  const [confirming, setConfirming] = useState(false);
  const save = useSetProviderKey();
  const remove = useRemoveProviderKey();

  async function onSave(event: FormEvent) {
    event.preventDefault();
    if (!key.trim()) return;
    await save.act(provider.id, key.trim());
    // The key leaves the page's memory once it is sent, saved or not.
    setKey('');
  }

  async function onRemove() {
    if ((await remove.act(provider.id)) !== null) setConfirming(false);
  }

  return (
    <li className="py-4 first:pt-0 last:pb-0">
      {/* The provider is named once: by the saved key's line, or by the field's label. */}
      {saved ? (
        <div className="flex flex-wrap items-center justify-between gap-2">
          <div>
            <p className="text-sm font-medium text-gray-900">{provider.name}</p>
            <p className="mt-0.5 text-sm text-gray-600">
              <span className="font-mono">•••• {saved.lastFour}</span>, saved on {formatDate(saved.createdAt)}
            </p>
          </div>
          <Button size="sm" variant="secondary" onClick={() => setConfirming(true)}>
            Remove
          </Button>
        </div>
      ) : (
        <form className="flex flex-wrap items-end gap-2" onSubmit={onSave}>
          <TextField
            className="min-w-[16rem] flex-1"
            label={`${provider.name} API key`}
            type="password"
            autoComplete="off"
            value={key}
            maxLength={500}
            onChange={(e) => setKey(e.target.value)}
          />
          <Button type="submit" busy={save.busy} busyLabel="Checking…" disabled={!key.trim()}>
            Save
          </Button>
        </form>
      )}
      {save.error ? (
        <div className="mt-2">
          <Alert>{save.error}</Alert>
        </div>
      ) : null}
      {confirming ? (
        <ConfirmDialog
          title={`Remove your ${provider.name} key?`}
          confirmLabel="Remove key"
          busyLabel="Removing…"
          busy={remove.busy}
          error={remove.error}
          onConfirm={onRemove}
          onClose={() => {
            remove.reset();
            setConfirming(false);
          }}
        >
          Your chatbots will answer on Parley&apos;s key again at once, billed in credit.
        </ConfirmDialog>
      ) : null}
    </li>
  );
}

/** The workspace's own provider keys (docs/product.md, Provider keys), for its owners and admins. */
export function ProviderKeysCard() {
  const { keys, loading, failed } = useProviderKeys();
  return (
    <Card className="min-w-0 lg:col-span-2">
      <CardHeader title="Provider keys" description={PROVIDER_KEYS_DESCRIPTION} />
      <CardBody>
        {loading ? (
          <div className="flex justify-center py-6 text-brand-600">
            <Spinner className="size-6" label="Loading provider keys" />
          </div>
        ) : failed ? (
          <Alert>Could not load the provider keys. Please try again.</Alert>
        ) : (
          <ul className="divide-y divide-gray-100">
            {PROVIDERS.map((provider) => (
              <ProviderKeyRow key={provider.id} provider={provider} saved={keys.find((k) => k.provider === provider.id)} />
            ))}
          </ul>
        )}
      </CardBody>
    </Card>
  );
}
