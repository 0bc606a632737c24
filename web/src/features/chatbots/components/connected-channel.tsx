import { useState, type FormEvent, type HTMLAttributes, type ReactNode } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { TextField } from '../../../components/ui/text-field';
import { formatDate } from '../../../lib/format';
import { useDisconnectChannel, useSendChannelTestMessage, type useChannelConnections } from '../hooks/use-channels';
import { Deliveries } from './channel-deliveries';

type Connection = ReturnType<typeof useChannelConnections>['connections'][number];

export interface ConnectedChannelProps {
  connection: Connection;
  /** The channel's name as the product says it ("Telegram", "Slack", "Email"). */
  label: string;
  /** Who the connection answers as (the bot's name, the account, the inbound address). */
  name: ReactNode;
  /** What the last four characters are of ("token", "signing key"). */
  secretLabel?: string;
  /** What the owner needs beside the state (a webhook URL to paste, an address to forward to). */
  children?: ReactNode;
  /** The test message's field. */
  test: { label: string; placeholder: string; maxLength: number; inputMode?: HTMLAttributes<HTMLInputElement>['inputMode']; type?: string };
  /** What disconnecting does, in the confirmation. */
  disconnectText: ReactNode;
}

/**
 * A connected messaging channel (docs/product.md, Channels), the same in every channel's card: who it
 * answers as, the secret's last four and when it was connected, Connected or Failing with the
 * provider's last words, what the owner has to paste at the provider, a test message, the recent
 * deliveries, and Disconnect behind a confirmation.
 */
export function ConnectedChannel({
  connection,
  label,
  name,
  secretLabel = 'token',
  children,
  test,
  disconnectText,
}: ConnectedChannelProps) {
  const [to, setTo] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [sentNote, setSentNote] = useState<{ text: string; sent: boolean } | null>(null);
  const send = useSendChannelTestMessage();
  const disconnect = useDisconnectChannel();

  async function onTest(event: FormEvent) {
    event.preventDefault();
    setSentNote(null);
    const delivery = await send.act(connection.id, to.trim());
    if (delivery)
      setSentNote(
        delivery.status === 'failed'
          ? { text: `${label} did not take it: ${delivery.lastError ?? 'unknown error'}`, sent: false }
          : { text: 'Test message sent.', sent: true },
      );
  }

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-gray-700">
          <span className="font-medium text-gray-900">{name}</span> · {secretLabel}{' '}
          <span className="font-mono">•••• {connection.tokenLastFour}</span>, connected on {formatDate(connection.createdAt)}
        </p>
        <Badge tone={connection.status === 'connected' ? 'success' : 'danger'}>
          {connection.status === 'connected' ? 'Connected' : 'Failing'}
        </Badge>
      </div>
      {connection.status !== 'connected' && connection.lastError ? (
        <Alert>
          {label} said: {connection.lastError}
        </Alert>
      ) : null}
      {children}
      <form className="flex flex-wrap items-end gap-2" onSubmit={onTest}>
        <TextField
          className="min-w-[12rem] flex-1"
          label={test.label}
          placeholder={test.placeholder}
          inputMode={test.inputMode}
          type={test.type}
          value={to}
          maxLength={test.maxLength}
          onChange={(e) => setTo(e.target.value)}
        />
        <Button type="submit" variant="secondary" busy={send.busy} busyLabel="Sending…">
          Send a test message
        </Button>
        <Button type="button" variant="secondary" onClick={() => setConfirming(true)}>
          Disconnect
        </Button>
      </form>
      {send.error ? <Alert>{send.error}</Alert> : null}
      {sentNote ? <Alert tone={sentNote.sent ? 'success' : undefined}>{sentNote.text}</Alert> : null}
      <div>
        <p className="mb-1 text-sm font-medium text-gray-900">Recent deliveries</p>
        <Deliveries connectionId={connection.id} />
      </div>
      {confirming ? (
        <ConfirmDialog
          title={`Disconnect ${label}?`}
          confirmLabel="Disconnect"
          busyLabel="Disconnecting…"
          busy={disconnect.busy}
          error={disconnect.error}
          onConfirm={async () => {
            if ((await disconnect.act(connection.id)) !== null) setConfirming(false);
          }}
          onClose={() => {
            disconnect.reset();
            setConfirming(false);
          }}
        >
          {disconnectText}
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
