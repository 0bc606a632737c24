import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { useConnectChannel, type useChannelConnections } from '../hooks/use-channels';
import { ConnectedChannel } from './connected-channel';
import { SkippedMails } from './skipped-mails';

type Connection = ReturnType<typeof useChannelConnections>['connections'][number];

/** The form to enter the Mailgun webhook signing key; it leaves the page's memory once sent and is never shown again. */
function ConnectEmail({ chatbotId }: { chatbotId: string }) {
  const [signingKey, setSigningKey] = useState('');
  const connect = useConnectChannel(chatbotId);
  async function onConnect(event: FormEvent) {
    event.preventDefault();
    if (!signingKey.trim()) return;
    await connect.act('email', '', signingKey.trim());
    setSigningKey('');
  }
  return (
    <form className="space-y-3" onSubmit={onConnect}>
      <p className="text-sm text-gray-600">
        Parley gives the chatbot its own inbound address: forward your support mail to it and the chatbot answers each mail in its thread.
        Paste your Mailgun HTTP webhook signing key (Sending › Webhooks), which signs every mail Mailgun forwards. It is stored encrypted
        and never shown again.
      </p>
      <div className="flex flex-wrap items-end gap-2">
        <TextField
          className="min-w-[16rem] flex-1"
          label="Mailgun webhook signing key"
          type="password"
          autoComplete="off"
          value={signingKey}
          maxLength={140}
          onChange={(e) => setSigningKey(e.target.value)}
        />
        <Button type="submit" busy={connect.busy} busyLabel="Connecting…" disabled={!signingKey.trim()}>
          Connect email
        </Button>
      </div>
      {connect.error ? <Alert>{connect.error}</Alert> : null}
    </form>
  );
}

/** A connected inbound address: where to forward mail, the route to create in Mailgun, the mails skipped, a test email, the deliveries and Disconnect. */
function EmailConnection({ connection }: { connection: Connection }) {
  return (
    <ConnectedChannel
      connection={connection}
      label="Email"
      name={connection.accountId ?? connection.botName}
      secretLabel="signing key"
      test={{
        label: 'Send a test email to',
        placeholder: connection.lastChatId ? 'An email address (empty: the last contact)' : 'name@example.com',
        type: 'email',
        maxLength: 254,
      }}
      disconnectText="Parley forgets the signing key and refuses this webhook URL from now on: mail to the inbound address is no longer answered. Remove the route in Mailgun too. The conversations stay in History."
    >
      <dl className="grid gap-1 rounded-md bg-gray-50 px-3 py-2 text-sm">
        <dt className="font-medium text-gray-700">Forward your mail to this inbound address</dt>
        <dd className="font-mono break-all text-gray-900" aria-label="Inbound address">
          {connection.accountId}
        </dd>
        <dt className="mt-2 font-medium text-gray-700">In Mailgun, create a route for it that forwards to this webhook URL</dt>
        <dd className="font-mono break-all text-gray-900" aria-label="Mailgun webhook URL">
          {connection.webhookUrl}
        </dd>
      </dl>
      <SkippedMails connectionId={connection.id} />
    </ConnectedChannel>
  );
}

/** The chatbot's email channel (docs/adr/0063-email-channel.md): an inbound address, Mailgun's signed webhook, answers by mail in the thread. */
export function EmailChannel({ chatbotId, connection }: { chatbotId: string; connection: Connection | undefined }) {
  return (
    <section aria-label="Email" className="space-y-3 border-t border-gray-100 pt-6">
      <h3 className="text-sm font-semibold text-gray-900">Email</h3>
      {connection ? <EmailConnection connection={connection} /> : <ConnectEmail chatbotId={chatbotId} />}
    </section>
  );
}
