import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { useConnectMetaChannel } from '../hooks/use-channels';
import type { Connection } from './channels-card';
import { ConnectedChannel } from './connected-channel';

export const META_CHANNELS = ['whatsapp', 'messenger', 'instagram'] as const;
type MetaChannelName = (typeof META_CHANNELS)[number];

/** What each of Meta's channels asks the owner for, in Meta's own words. */
const RULES: Record<MetaChannelName, { label: string; accountLabel: string; tokenLabel: string; recipient: string; help: string }> = {
  whatsapp: {
    label: 'WhatsApp',
    accountLabel: 'Phone number id',
    tokenLabel: 'System user access token',
    recipient: 'A WhatsApp number (digits)',
    help: "In Meta's developer console, open your app's WhatsApp › API Setup: copy the phone number id and the WhatsApp Business account id, and create a system user token with whatsapp_business_messaging.",
  },
  messenger: {
    label: 'Messenger',
    accountLabel: 'Facebook page id',
    tokenLabel: 'Page access token',
    recipient: 'A page-scoped user id',
    help: "In Meta's developer console, add Messenger to your app, then copy your page's id and a page access token with pages_messaging.",
  },
  instagram: {
    label: 'Instagram',
    accountLabel: 'Instagram account id',
    tokenLabel: 'Access token',
    recipient: 'An Instagram-scoped user id',
    help: "In Meta's developer console, add Instagram to your app, then copy the professional account's id and a token with instagram_manage_messages.",
  },
};

/**
 * The webhook's URL and verify token, shown once after connecting, for Meta's console. Parley subscribed the account to the app's
 * webhooks itself; the callback URL and verify token are the app's own setting, which only its owner makes.
 */
function WebhookSetup({ label, webhookUrl, verifyToken }: { label: string; webhookUrl: string; verifyToken: string }) {
  return (
    <Alert tone="success">
      <p className="font-medium">
        Parley subscribed this account to your app's webhooks. The callback URL and verify token are your app's own setting: paste these in
        your app's {label} webhook settings in Meta's console and subscribe the app to messages.
      </p>
      <dl className="mt-2 grid gap-1 text-sm">
        <dt className="font-medium">Callback URL</dt>
        <dd className="font-mono break-all">{webhookUrl}</dd>
        <dt className="font-medium">Verify token (shown only now)</dt>
        <dd className="font-mono break-all">{verifyToken}</dd>
      </dl>
    </Alert>
  );
}

type Setup = { webhookUrl: string; verifyToken: string };

function ConnectMeta({
  chatbotId,
  channel,
  onConnected,
}: {
  chatbotId: string;
  channel: MetaChannelName;
  onConnected: (s: Setup) => void;
}) {
  const rules = RULES[channel];
  const empty = { accountId: '', businessAccountId: '', token: '', appSecret: '' };
  const [form, setForm] = useState(empty);
  const connect = useConnectMetaChannel(chatbotId);
  const field = (name: keyof typeof empty) => ({
    value: form[name],
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value }),
  });
  const ready =
    form.accountId.trim() && form.token.trim() && form.appSecret.trim() && (channel !== 'whatsapp' || form.businessAccountId.trim());

  async function onConnect(event: FormEvent) {
    event.preventDefault();
    if (!ready) return;
    const saved = await connect.act({
      channel,
      token: form.token.trim(),
      appSecret: form.appSecret.trim(),
      accountId: form.accountId.trim(),
      businessAccountId: channel === 'whatsapp' ? form.businessAccountId.trim() : undefined,
    });
    if (saved) {
      setForm(empty);
      onConnected({ webhookUrl: saved.webhookUrl ?? '', verifyToken: saved.verifyToken ?? '' });
    }
  }
  return (
    <form className="space-y-3" onSubmit={onConnect}>
      <p className="text-sm text-gray-600">{rules.help} The token and the app secret are stored encrypted and never shown again.</p>
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField label={rules.accountLabel} inputMode="numeric" maxLength={30} autoComplete="off" {...field('accountId')} />
        {channel === 'whatsapp' ? (
          <TextField
            label="WhatsApp Business account id"
            inputMode="numeric"
            maxLength={30}
            autoComplete="off"
            {...field('businessAccountId')}
          />
        ) : null}
        <TextField label={rules.tokenLabel} type="password" autoComplete="off" maxLength={1024} {...field('token')} />
        <TextField label={`${rules.label} app secret`} type="password" autoComplete="off" maxLength={64} {...field('appSecret')} />
      </div>
      <Button type="submit" busy={connect.busy} busyLabel="Connecting…" disabled={!ready}>
        Connect {rules.label}
      </Button>
      {connect.error ? <Alert>{connect.error}</Alert> : null}
    </form>
  );
}

/** `setupShown`: the callback URL is in the one-time setup box above, so it is not repeated here. */
function MetaConnection({ connection, channel, setupShown }: { connection: Connection; channel: MetaChannelName; setupShown: boolean }) {
  const rules = RULES[channel];
  return (
    <ConnectedChannel
      connection={connection}
      label={rules.label}
      name={connection.botName || connection.accountId}
      test={{
        label: `Send a ${rules.label} test message to`,
        placeholder: connection.lastChatId ? `${connection.lastChatId} (the last who wrote)` : rules.recipient,
        inputMode: 'numeric',
        maxLength: 30,
      }}
      disconnectText="Parley removes this account's subscription to your app's webhooks, forgets the token and the app secret, and refuses the webhook's calls. The callback URL stays in your app's settings in Meta's console, where it is yours to change. The conversations stay in History."
    >
      {connection.webhookUrl && !setupShown ? (
        <p className="text-sm text-gray-600">
          Callback URL: <span className="font-mono break-all">{connection.webhookUrl}</span>
        </p>
      ) : null}
    </ConnectedChannel>
  );
}

/** One of Meta's channels in the Channels card: the connect form, or the connection with its test message and deliveries. */
export function MetaChannel({ chatbotId, channel, connection }: { chatbotId: string; channel: MetaChannelName; connection?: Connection }) {
  const { label } = RULES[channel];
  // Kept here, above both forms: the verify token is answered once, and the connection appears at once after it.
  const [setup, setSetup] = useState<Setup | null>(null);
  return (
    <section aria-label={label} className="space-y-3 border-t border-gray-100 pt-6">
      <h3 className="text-sm font-semibold text-gray-900">{label}</h3>
      {connection && setup ? <WebhookSetup label={label} {...setup} /> : null}
      {connection ? (
        <MetaConnection connection={connection} channel={channel} setupShown={setup !== null} />
      ) : (
        <ConnectMeta chatbotId={chatbotId} channel={channel} onConnected={setSetup} />
      )}
    </section>
  );
}
