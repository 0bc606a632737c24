import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { useConnectSms, type useChannelConnections } from '../hooks/use-channels';
import { ConnectedChannel } from './connected-channel';

type Connection = ReturnType<typeof useChannelConnections>['connections'][number];

/** The form for the Twilio account and number; the Auth Token leaves the page's memory once sent and is never shown again. */
function ConnectSms({ chatbotId }: { chatbotId: string }) {
  const [accountId, setAccountId] = useState('');
  const [token, setToken] = useState('');
  const [phoneNumber, setPhoneNumber] = useState('');
  const connect = useConnectSms(chatbotId);
  const ready = accountId.trim() && token.trim() && phoneNumber.trim();
  async function onConnect(event: FormEvent) {
    event.preventDefault();
    if (!ready) return;
    await connect.act({ accountId: accountId.trim(), token: token.trim(), phoneNumber: phoneNumber.trim() });
    setToken('');
  }
  return (
    <form className="space-y-3" onSubmit={onConnect}>
      <p className="text-sm text-gray-600">
        Answer text messages sent to one of your Twilio phone numbers. Paste the Account SID and Auth Token from the Twilio Console&apos;s
        account page and the number in E.164 form (+15550100100). They are checked with Twilio, and Parley sets the number&apos;s &ldquo;A
        message comes in&rdquo; webhook to this chatbot itself; the Auth Token is stored encrypted and never shown again.
      </p>
      <div className="grid gap-2 sm:grid-cols-3">
        <TextField
          label="Twilio Account SID"
          autoComplete="off"
          value={accountId}
          maxLength={34}
          onChange={(e) => setAccountId(e.target.value)}
        />
        <TextField
          label="Twilio Auth Token"
          type="password"
          autoComplete="off"
          value={token}
          maxLength={64}
          onChange={(e) => setToken(e.target.value)}
        />
        <TextField
          label="Twilio phone number"
          type="tel"
          autoComplete="off"
          placeholder="+15550100100"
          value={phoneNumber}
          maxLength={20}
          onChange={(e) => setPhoneNumber(e.target.value)}
        />
      </div>
      <Button type="submit" busy={connect.busy} busyLabel="Connecting…" disabled={!ready}>
        Connect SMS
      </Button>
      {connect.error ? <Alert>{connect.error}</Alert> : null}
    </form>
  );
}

/** A connected Twilio number: the webhook URL Parley set on the number (for reference), a test SMS, the deliveries and Disconnect. */
function SmsConnection({ connection }: { connection: Connection }) {
  return (
    <ConnectedChannel
      connection={connection}
      label="SMS"
      name={connection.botName}
      secretLabel="auth token"
      test={{
        label: 'Send a test SMS to',
        placeholder: connection.lastChatId ? `${connection.lastChatId} (the last number)` : '+15550100100',
        type: 'tel',
        maxLength: 20,
      }}
      disconnectText="Parley clears the number's “A message comes in” webhook in Twilio (unless it points somewhere else by now), forgets the Auth Token and refuses this webhook URL from now on: messages to the number are no longer answered. The conversations stay in History."
    >
      <dl className="grid gap-1 rounded-md bg-gray-50 px-3 py-2 text-sm">
        <dt className="font-medium text-gray-700">
          Parley set the number&apos;s &ldquo;A message comes in&rdquo; webhook in Twilio to this URL (HTTP POST), so there is nothing to
          paste.
        </dt>
        <dd className="font-mono break-all text-gray-900" aria-label="Twilio webhook URL">
          {connection.webhookUrl}
        </dd>
        <dt className="mt-2 font-medium text-gray-700">Twilio account</dt>
        <dd className="font-mono break-all text-gray-900">{connection.accountId}</dd>
      </dl>
    </ConnectedChannel>
  );
}

/** The chatbot's SMS channel (docs/adr/0070-sms-channel.md): a Twilio number, Twilio's signed webhook, answers by SMS. */
export function SmsChannel({ chatbotId, connection }: { chatbotId: string; connection: Connection | undefined }) {
  return (
    <section aria-label="SMS" className="space-y-3 border-t border-gray-100 pt-6">
      <h3 className="text-sm font-semibold text-gray-900">SMS</h3>
      {connection ? <SmsConnection connection={connection} /> : <ConnectSms chatbotId={chatbotId} />}
    </section>
  );
}
