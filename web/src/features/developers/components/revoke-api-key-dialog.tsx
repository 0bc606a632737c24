import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { maskedSecret, type ApiKey } from '../api-keys';
import { useRevokeApiKey } from '../hooks/use-api-key-actions';
import { Modal } from './modal';

/** Asks before revoking: every secret of the key stops working at once, and it cannot be undone. */
export function RevokeApiKeyDialog({ apiKey, onCancel, onRevoked }: { apiKey: ApiKey; onCancel: () => void; onRevoked: () => void }) {
  const revoke = useRevokeApiKey();

  async function confirm() {
    if (await revoke.act(apiKey.id)) onRevoked();
  }

  return (
    <Modal title={`Revoke “${apiKey.name}”?`} onClose={onCancel}>
      <div className="space-y-4">
        {revoke.error ? <Alert>{revoke.error}</Alert> : null}
        <p className="text-sm text-gray-700">
          Every program using <span className="font-mono text-xs">{maskedSecret(apiKey)}</span> loses access at once. A revoked key cannot
          be used again; create a new one instead.
        </p>
        <div className="flex flex-col-reverse gap-2 border-t border-gray-100 pt-4 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
          <Button variant="danger" onClick={() => void confirm()} busy={revoke.busy} busyLabel="Revoking...">
            Revoke key
          </Button>
        </div>
      </div>
    </Modal>
  );
}
