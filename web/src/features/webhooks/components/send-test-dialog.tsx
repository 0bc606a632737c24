import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Dialog } from '../../../components/ui/dialog';
import { SelectField } from '../../../components/ui/select-field';
import { useSendTestWebhook } from '../hooks/use-webhook-actions';

interface SendTestDialogProps {
  endpoint: { id: string; url: string; events: readonly string[] };
  eventTypes: ReadonlyArray<{ type: string; description: string }>;
  onSent: () => void;
  onClose: () => void;
}

/** Sends the catalogue's example of a chosen type to the endpoint, subscribed or not. */
export function SendTestDialog({ endpoint, eventTypes, onSent, onClose }: SendTestDialogProps) {
  const [type, setType] = useState(endpoint.events[0] ?? eventTypes[0]?.type ?? '');
  const { send, sending, error } = useSendTestWebhook();
  const description = eventTypes.find((t) => t.type === type)?.description;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (await send(endpoint.id, type)) onSent();
  }

  return (
    <Dialog
      title="Send test event"
      description={
        <>
          An example event, marked as a test, goes to <span className="font-medium break-all text-gray-800">{endpoint.url}</span>.
        </>
      }
      onClose={onClose}
    >
      <form className="space-y-4" onSubmit={(e) => void submit(e)}>
        <SelectField
          label="Event type"
          name="eventType"
          value={type}
          options={eventTypes.map((t) => ({ value: t.type, label: t.type }))}
          onChange={(e) => setType(e.target.value)}
        />
        {description ? <p className="text-sm text-gray-600">{description}</p> : null}
        {error ? <Alert>{error}</Alert> : null}
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" busy={sending} busyLabel="Sending...">
            Send test event
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
