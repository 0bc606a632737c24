import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import type { ApiKeyRollOverlap } from '../../../gql/graphql';
import { maskedSecret, ROLL_OVERLAP_OPTIONS, type ApiKey } from '../api-keys';
import { useRollApiKey, type IssuedSecret } from '../hooks/use-api-key-actions';
import { Modal } from './modal';

/** Issues a new secret for a key; the current one keeps working for the overlap chosen. */
export function RollApiKeyDialog({
  apiKey,
  onCancel,
  onRolled,
}: {
  apiKey: ApiKey;
  onCancel: () => void;
  onRolled: (issued: IssuedSecret) => void;
}) {
  const roll = useRollApiKey();
  const [overlap, setOverlap] = useState<ApiKeyRollOverlap>('ONE_DAY');

  async function submit(event: FormEvent) {
    event.preventDefault();
    const issued = await roll.act(apiKey.id, overlap);
    if (issued) onRolled(issued);
  }

  return (
    <Modal
      title={`Roll “${apiKey.name}”`}
      description={`A new secret replaces ${maskedSecret(apiKey)}. The key keeps its name, scopes and history.`}
      onClose={onCancel}
    >
      <form onSubmit={(event) => void submit(event)} className="space-y-4">
        {roll.error ? <Alert>{roll.error}</Alert> : null}
        <fieldset>
          <legend className="mb-2 text-sm font-medium text-gray-800">How long may the current secret keep working?</legend>
          <ul className="space-y-2">
            {ROLL_OVERLAP_OPTIONS.map((option) => (
              <li key={option.value}>
                <label className="flex items-start gap-2.5 rounded-lg border border-gray-200 px-3 py-2.5 text-sm hover:bg-gray-50">
                  <input
                    type="radio"
                    name="overlap"
                    className="mt-0.5"
                    value={option.value}
                    checked={overlap === option.value}
                    onChange={() => setOverlap(option.value)}
                  />
                  <span>
                    <span className="block font-medium text-gray-900">{option.label}</span>
                    <span className="block text-gray-600">{option.hint}</span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <div className="sticky bottom-0 -mx-5 -mb-4 flex flex-col-reverse gap-2 border-t border-gray-100 bg-white px-5 pt-4 pb-4 sm:-mx-6 sm:flex-row sm:justify-end sm:px-6">
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" busy={roll.busy} busyLabel="Rolling...">
            Roll key
          </Button>
        </div>
      </form>
    </Modal>
  );
}
