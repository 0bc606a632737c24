import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { Spinner } from '../../../components/ui/spinner';
import { TextField } from '../../../components/ui/text-field';
import { useChannelConnections, useConnectChannel } from '../hooks/use-channels';
import { ConnectedChannel } from './connected-channel';
import { EmailChannel } from './email-channel';
import { SmsChannel } from './sms-channel';
import { SlackChannel } from './slack-channel';
import { META_CHANNELS, MetaChannel } from './meta-channel';

export const CHANNELS_DESCRIPTION =
  'Answer where your customers already write. Parley answers with the same knowledge, limits and credit as the widget, and the conversations appear in History.';

export type Connection = ReturnType<typeof useChannelConnections>['connections'][number];

/** A connected Telegram bot: its state, the token's last four, a test message, the deliveries and Disconnect. */
function TelegramConnection({ connection }: { connection: Connection }) {
  return (
    <ConnectedChannel
      connection={connection}
      label="Telegram"
      name={`@${connection.botName}`}
      test={{
        label: 'Send a test message to chat id',
        placeholder: connection.lastChatId ? `${connection.lastChatId} (the last chat)` : 'A Telegram chat id',
        inputMode: 'numeric',
        maxLength: 21,
      }}
      disconnectText="Parley removes its webhook from the bot and forgets the token. The conversations stay in History."
    />
  );
}

/** The form to paste a BotFather token; the token leaves the page's memory once sent. */
function ConnectTelegram({ chatbotId }: { chatbotId: string }) {
  const [token, setToken] = useState('');
  const connect = useConnectChannel(chatbotId);
  async function onConnect(event: FormEvent) {
    event.preventDefault();
    if (!token.trim()) return;
    await connect.act('telegram', token.trim());
    setToken('');
  }
  return (
    <form className="space-y-3" onSubmit={onConnect}>
      <p className="text-sm text-gray-600">
        Create a bot with @BotFather in Telegram and paste its token. It is checked with Telegram, stored encrypted and never shown again.
      </p>
      <div className="flex flex-wrap items-end gap-2">
        <TextField
          className="min-w-[16rem] flex-1"
          label="Telegram bot token"
          type="password"
          autoComplete="off"
          value={token}
          maxLength={200}
          onChange={(e) => setToken(e.target.value)}
        />
        <Button type="submit" busy={connect.busy} busyLabel="Connecting…" disabled={!token.trim()}>
          Connect Telegram
        </Button>
      </div>
      {connect.error ? <Alert>{connect.error}</Alert> : null}
    </form>
  );
}

/** The chatbot's messaging channels (docs/product.md, Channels): Telegram, connected with a bot token; Slack; WhatsApp, Messenger and Instagram with a Meta app; email through Mailgun; SMS through Twilio. */
export function ChannelsCard({ chatbotId }: { chatbotId: string }) {
  const { connections, loading, failed } = useChannelConnections(chatbotId);
  const telegram = connections.find((c) => c.channel === 'telegram');
  return (
    <Card>
      <CardHeader title="Channels" description={CHANNELS_DESCRIPTION} />
      <CardBody>
        {loading ? (
          <div className="flex justify-center py-6 text-brand-600">
            <Spinner className="size-6" label="Loading channels" />
          </div>
        ) : failed ? (
          <Alert>Could not load the channels. Please try again.</Alert>
        ) : (
          <div className="space-y-6">
            <section aria-label="Telegram" className="space-y-3">
              <h3 className="text-sm font-semibold text-gray-900">Telegram</h3>
              {telegram ? <TelegramConnection connection={telegram} /> : <ConnectTelegram chatbotId={chatbotId} />}
            </section>
            <SlackChannel chatbotId={chatbotId} connection={connections.find((c) => c.channel === 'slack')} />
            {META_CHANNELS.map((channel) => (
              <MetaChannel
                key={channel}
                chatbotId={chatbotId}
                channel={channel}
                connection={connections.find((c) => c.channel === channel)}
              />
            ))}
            <EmailChannel chatbotId={chatbotId} connection={connections.find((c) => c.channel === 'email')} />
            <SmsChannel chatbotId={chatbotId} connection={connections.find((c) => c.channel === 'sms')} />
          </div>
        )}
      </CardBody>
    </Card>
  );
}
