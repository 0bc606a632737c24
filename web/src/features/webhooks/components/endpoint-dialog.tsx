import { useId, useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Dialog } from '../../../components/ui/dialog';
import { TextField } from '../../../components/ui/text-field';
import { useCreateWebhookEndpoint, useUpdateWebhookEndpoint } from '../hooks/use-webhook-actions';

export const URL_REQUIRED_MESSAGE = 'Enter the URL Parley should send events to.';
export const EVENTS_REQUIRED_MESSAGE = 'Choose at least one event.';

interface EndpointDialogProps {
  eventTypes: ReadonlyArray<{ type: string; description: string }>;
  /** The endpoint to edit; without one, a new endpoint is added. */
  endpoint?: { id: string; url: string; events: readonly string[] };
  /** A new endpoint was added, with its secret (shown once). */
  onCreated?: (url: string, secret: string) => void;
  onClose: () => void;
}

/** "Add endpoint" (the secret comes back once) or "Edit endpoint": an https URL and the events it receives. */
export function EndpointDialog({ eventTypes, endpoint, onCreated, onClose }: EndpointDialogProps) {
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [events, setEvents] = useState<string[]>(endpoint ? [...endpoint.events] : []);
  const [problem, setProblem] = useState<string | null>(null);
  const creation = useCreateWebhookEndpoint();
  const change = useUpdateWebhookEndpoint();
  const busy = endpoint ? change.updating : creation.creating;
  const error = endpoint ? change.error : creation.error;
  const legendId = useId();

  function toggle(type: string, checked: boolean) {
    setEvents((current) => (checked ? [...current, type] : current.filter((t) => t !== type)));
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = url.trim();
    if (!trimmed) return setProblem(URL_REQUIRED_MESSAGE);
    if (events.length === 0) return setProblem(EVENTS_REQUIRED_MESSAGE);
    setProblem(null);
    if (endpoint) {
      if (await change.update(endpoint.id, { url: trimmed, events })) onClose();
      return;
    }
    const secret = await creation.create({ url: trimmed, events });
    if (secret) onCreated?.(trimmed, secret);
  }

  const shown = problem ?? error;
  return (
    <Dialog
      title={endpoint ? 'Edit endpoint' : 'Add endpoint'}
      description="Parley POSTs each event you choose to this URL, signed, and retries when it fails."
      onClose={onClose}
    >
      <form className="space-y-4" onSubmit={(e) => void submit(e)} noValidate>
        <TextField
          label="Endpoint URL"
          name="url"
          type="url"
          inputMode="url"
          autoComplete="off"
          placeholder="https://example.com/webhooks/parley"
          hint="An https:// address on the public internet."
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
        <fieldset aria-labelledby={legendId}>
          <div className="mb-1.5 flex items-center justify-between gap-2">
            <legend id={legendId} className="text-sm font-medium text-gray-800">
              Events
            </legend>
            <button
              type="button"
              className="rounded text-sm font-medium text-brand-700 hover:text-brand-800"
              onClick={() => setEvents(events.length === eventTypes.length ? [] : eventTypes.map((t) => t.type))}
            >
              {events.length === eventTypes.length ? 'Clear all' : 'Select all'}
            </button>
          </div>
          <ul className="max-h-[40vh] space-y-1 overflow-y-auto rounded-lg border border-gray-200 p-1 sm:max-h-72">
            {eventTypes.map((t) => {
              const id = `${legendId}-${t.type}`;
              return (
                <li key={t.type} className="flex items-start gap-3 rounded-md px-2 py-2 hover:bg-gray-50">
                  <input
                    id={id}
                    type="checkbox"
                    checked={events.includes(t.type)}
                    aria-describedby={`${id}-description`}
                    onChange={(e) => toggle(t.type, e.target.checked)}
                    className="mt-0.5 size-4 shrink-0 rounded border-gray-300 accent-brand-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500"
                  />
                  <div className="min-w-0 text-sm">
                    <label htmlFor={id} className="block font-mono text-[13px] font-medium text-gray-900">
                      {t.type}
                    </label>
                    <p id={`${id}-description`} className="text-gray-600">
                      {t.description}
                    </p>
                  </div>
                </li>
              );
            })}
          </ul>
        </fieldset>
        {shown ? <Alert>{shown}</Alert> : null}
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" busy={busy} busyLabel={endpoint ? 'Saving...' : 'Adding...'}>
            {endpoint ? 'Save' : 'Add endpoint'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
