import { useEffect, useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { useChannelConnections, useConnectChannel } from '../hooks/use-channels';
import { ConnectedChannel } from './connected-channel';
import { slackInstallAvailable, SlackInstallError, startSlackInstall } from '../api/slack-install-api';

/** "Add to Slack", shown only where the operator configured a Slack app: sends the browser to Slack's authorize page. */
function AddToSlack({ chatbotId }: { chatbotId: string }) {
  const [available, setAvailable] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    slackInstallAvailable(chatbotId).then(
      (yes) => live && setAvailable(yes),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [chatbotId]);
  if (!available) return null;
  async function onAdd() {
    setBusy(true);
    setError(null);
    try {
      window.location.assign(await startSlackInstall(chatbotId));
    } catch (err) {
      setError(err instanceof SlackInstallError ? err.message : 'Something went wrong. Please try again.');
      setBusy(false);
    }
  }
  return (
    <div className="space-y-2 border-b border-gray-100 pb-3">
      <p className="text-sm text-gray-600">
        Install Parley&apos;s Slack app in your workspace: Slack asks you to allow it, then brings you back here.
      </p>
      <Button type="button" onClick={onAdd} busy={busy} busyLabel="Opening Slack…">
        Add to Slack
      </Button>
      {error ? <Alert>{error}</Alert> : null}
      <p className="text-sm text-gray-500">Or use a Slack app of your own:</p>
    </div>
  );
}

type Connection = ReturnType<typeof useChannelConnections>['connections'][number];

/** The form to paste a Slack app's bot token and signing secret; both leave the page's memory once sent. */
function ConnectSlack({ chatbotId }: { chatbotId: string }) {
  const [token, setToken] = useState('');
  const [signingSecret, setSigningSecret] = useState('');
  const connect = useConnectChannel(chatbotId);
  async function onConnect(event: FormEvent) {
    event.preventDefault();
    if (!token.trim() || !signingSecret.trim()) return;
    await connect.act('slack', token.trim(), signingSecret.trim());
    setToken('');
    setSigningSecret('');
  }
  return (
    <form className="space-y-3" onSubmit={onConnect}>
      <AddToSlack chatbotId={chatbotId} />
      <p className="text-sm text-gray-600">
        Create a Slack app with the <span className="font-mono">chat:write</span>, <span className="font-mono">app_mentions:read</span> and{' '}
        <span className="font-mono">im:history</span> scopes, install it, and paste its Bot User OAuth Token and Signing Secret. Both are
        checked, stored encrypted and never shown again.
      </p>
      <div className="flex flex-wrap items-end gap-2">
        <TextField
          className="min-w-[14rem] flex-1"
          label="Slack bot token"
          type="password"
          autoComplete="off"
          placeholder="xoxb-…"
          value={token}
          maxLength={260}
          onChange={(e) => setToken(e.target.value)}
        />
        <TextField
          className="min-w-[14rem] flex-1"
          label="Slack signing secret"
          type="password"
          autoComplete="off"
          value={signingSecret}
          maxLength={128}
          onChange={(e) => setSigningSecret(e.target.value)}
        />
        <Button type="submit" busy={connect.busy} busyLabel="Connecting…" disabled={!token.trim() || !signingSecret.trim()}>
          Connect Slack
        </Button>
      </div>
      {connect.error ? <Alert>{connect.error}</Alert> : null}
    </form>
  );
}

/**
 * A connected Slack app: its state, the Request URL to give Slack, a test message, the deliveries and Disconnect.
 * Added to Slack, the app is the operator's, whose one Request URL they set once: the owner has nothing to set.
 */
function SlackConnection({ connection }: { connection: Connection }) {
  const test = {
    label: 'Send a test message to Slack channel id',
    placeholder: connection.lastChatId ? `${connection.lastChatId} (the last conversation)` : 'A channel id, such as C0123ABCD',
    maxLength: 60,
  };
  if (connection.addedToSlack)
    return (
      <ConnectedChannel
        connection={connection}
        label="Slack"
        name={connection.botName}
        test={test}
        disconnectText="Parley removes the app from this Slack workspace (its bot token stops working), forgets the token and stops answering there. The conversations stay in History."
      >
        <p className="text-sm text-gray-700">
          Added to Slack: mention the bot in a channel it was invited to, or write to it directly, and the chatbot answers in the thread.
        </p>
      </ConnectedChannel>
    );
  return (
    <ConnectedChannel
      connection={connection}
      label="Slack"
      name={connection.botName}
      test={test}
      disconnectText="Parley forgets the token and signing secret and refuses this Request URL from now on. Your Slack app is your own: remove the Request URL from it, or the app from the workspace, in Slack. The conversations stay in History."
    >
      <div className="space-y-1">
        <p className="text-sm text-gray-700">
          In your Slack app, turn on Event Subscriptions with this Request URL and subscribe the bot to{' '}
          <span className="font-mono">app_mention</span> and <span className="font-mono">message.im</span>:
        </p>
        <p className="rounded-md bg-gray-50 px-3 py-2 font-mono text-sm break-all text-gray-900" aria-label="Slack Request URL">
          {connection.webhookUrl}
        </p>
      </div>
    </ConnectedChannel>
  );
}

/** The chatbot's Slack channel: connected with a Slack app's bot token and signing secret (docs/adr/0057-slack-channel.md). */
export function SlackChannel({ chatbotId, connection }: { chatbotId: string; connection: Connection | undefined }) {
  return (
    <section aria-label="Slack" className="space-y-3 border-t border-gray-100 pt-6">
      <h3 className="text-sm font-semibold text-gray-900">Slack</h3>
      {connection ? <SlackConnection connection={connection} /> : <ConnectSlack chatbotId={chatbotId} />}
    </section>
  );
}
