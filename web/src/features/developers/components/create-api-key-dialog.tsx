import { useEffect, useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { SelectField } from '../../../components/ui/select-field';
import { TextField } from '../../../components/ui/text-field';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';
import { draftProblem, EXPIRY_OPTIONS, type ExpiryChoice, type KeyDraft } from '../api-keys';
import { useCreateApiKey, type IssuedSecret } from '../hooks/use-api-key-actions';
import { Modal } from './modal';

interface CreateApiKeyDialogProps {
  scopes: ReadonlyArray<{ name: string; description: string }>;
  onCancel: () => void;
  onCreated: (issued: IssuedSecret) => void;
}

const checkboxClasses = 'mt-0.5 size-4 shrink-0 rounded border-gray-300 text-brand-600';

/** Name, scopes, an optional list of chatbots and an optional expiry; the secret is revealed by the caller. */
export function CreateApiKeyDialog({ scopes, onCancel, onCreated }: CreateApiKeyDialogProps) {
  const chatbots = useChatbots();
  const { refresh } = chatbots;
  const create = useCreateApiKey();
  const [draft, setDraft] = useState<KeyDraft>({ name: '', scopes: [], chatbotIds: null, expiry: 'never' });
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const toggle = (list: string[], value: string) => (list.includes(value) ? list.filter((v) => v !== value) : [...list, value]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = draftProblem(draft);
    setProblem(found);
    if (found) return;
    const issued = await create.act(draft);
    if (issued) onCreated(issued);
  }

  return (
    <Modal title="Create API key" description="A key acts for the whole workspace, within the scopes you give it." onClose={onCancel}>
      <form onSubmit={(event) => void submit(event)} noValidate className="space-y-5">
        {(problem ?? create.error) ? <Alert>{problem ?? create.error}</Alert> : null}
        <TextField
          label="Name"
          hint="Where the key is used, e.g. “CI deploys” or “Zapier”."
          value={draft.name}
          maxLength={100}
          onChange={(event) => setDraft({ ...draft, name: event.target.value })}
        />

        <fieldset>
          <legend className="mb-2 text-sm font-medium text-gray-800">Scopes</legend>
          <ul className="space-y-2">
            {scopes.map((scope) => (
              <li key={scope.name}>
                <label className="flex items-start gap-2.5 rounded-lg border border-gray-200 px-3 py-2.5 text-sm hover:bg-gray-50">
                  <input
                    type="checkbox"
                    className={checkboxClasses}
                    checked={draft.scopes.includes(scope.name)}
                    onChange={() => setDraft({ ...draft, scopes: toggle(draft.scopes, scope.name) })}
                  />
                  <span className="min-w-0">
                    <span className="block font-mono text-xs font-semibold text-gray-900">{scope.name}</span>
                    <span className="block text-gray-600">{scope.description}</span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>

        <fieldset>
          <legend className="mb-2 text-sm font-medium text-gray-800">Chatbots</legend>
          <div className="flex flex-col gap-2 text-sm text-gray-700 sm:flex-row sm:gap-5">
            <label className="flex items-center gap-2">
              <input
                type="radio"
                name="chatbot-access"
                checked={draft.chatbotIds === null}
                onChange={() => setDraft({ ...draft, chatbotIds: null })}
              />
              All chatbots
            </label>
            <label className="flex items-center gap-2">
              <input
                type="radio"
                name="chatbot-access"
                checked={draft.chatbotIds !== null}
                onChange={() => setDraft({ ...draft, chatbotIds: [] })}
              />
              Only some chatbots
            </label>
          </div>
          {draft.chatbotIds !== null ? (
            chatbots.chatbots.length === 0 ? (
              <p className="mt-2 text-sm text-gray-500">{chatbots.loaded ? 'This workspace has no chatbots yet.' : 'Loading chatbots…'}</p>
            ) : (
              <ul
                aria-label="Chatbots the key may act on"
                className="mt-2 max-h-48 space-y-1 overflow-y-auto rounded-lg border border-gray-200 p-2"
              >
                {chatbots.chatbots.map((chatbot) => (
                  <li key={chatbot.id}>
                    <label className="flex items-center gap-2 rounded px-1 py-1 text-sm text-gray-800 hover:bg-gray-50">
                      <input
                        type="checkbox"
                        className="size-4 rounded border-gray-300 text-brand-600"
                        checked={draft.chatbotIds?.includes(chatbot.id) ?? false}
                        onChange={() => setDraft({ ...draft, chatbotIds: toggle(draft.chatbotIds ?? [], chatbot.id) })}
                      />
                      <span className="truncate">{chatbot.name}</span>
                    </label>
                  </li>
                ))}
              </ul>
            )
          ) : null}
        </fieldset>

        <SelectField
          label="Expires"
          options={EXPIRY_OPTIONS}
          value={draft.expiry}
          onChange={(event) => setDraft({ ...draft, expiry: event.target.value as ExpiryChoice })}
        />

        <div className="sticky bottom-0 -mx-5 -mb-4 flex flex-col-reverse gap-2 border-t border-gray-100 bg-white px-5 pt-4 pb-4 sm:-mx-6 sm:flex-row sm:justify-end sm:px-6">
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" busy={create.busy} busyLabel="Creating...">
            Create key
          </Button>
        </div>
      </form>
    </Modal>
  );
}
