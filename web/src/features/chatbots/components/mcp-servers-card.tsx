import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { Spinner } from '../../../components/ui/spinner';
import { TextField } from '../../../components/ui/text-field';
import { formatDateTime } from '../../../lib/format';
import type { McpPickedTool, McpServerView } from '../api/mcp-servers-api';
import { useMcpServers } from '../hooks/use-mcp-servers';
import { checkboxClasses } from './embed-appearance-card';

export const MCP_SERVERS_DESCRIPTION =
  'Connect a remote MCP server (Streamable HTTP) and pick the tools your bot may use to answer visitors. Parley reaches it only at a public address, reads at most what you allow, and never runs a tool that needs the visitor to confirm without them.';

type Servers = ReturnType<typeof useMcpServers>;

/** The result fields a picked tool's answer may be read for, comma-separated (kept as typed while editing). */
function FieldsInput({ label, initial, onChange }: { label: string; initial: string; onChange: (text: string) => void }) {
  const [text, setText] = useState(initial);
  return (
    <TextField
      label={label}
      hint="Dotted paths, comma-separated, e.g. order.status; empty: the tool's text"
      value={text}
      maxLength={2000}
      autoComplete="off"
      onChange={(e) => {
        setText(e.target.value);
        onChange(e.target.value);
      }}
    />
  );
}

/** The tools a server listed, each with "Use" and "Visitor confirms first" (on by default for a tool not marked read-only). */
function ToolPicker({ server, servers }: { server: McpServerView; servers: Servers }) {
  const [picked, setPicked] = useState<McpPickedTool[]>(server.picked);
  const [saved, setSaved] = useState(false);
  const byName = new Map(picked.map((p) => [p.name, p]));
  const changed = JSON.stringify(picked) !== JSON.stringify(server.picked);

  function toggle(name: string, readOnly: boolean) {
    setSaved(false);
    setPicked(byName.has(name) ? picked.filter((p) => p.name !== name) : [...picked, { name, confirm: !readOnly, responseFields: [] }]);
  }
  function toggleConfirm(name: string) {
    setSaved(false);
    setPicked(picked.map((p) => (p.name === name ? { ...p, confirm: !p.confirm } : p)));
  }
  function setFields(name: string, text: string) {
    setSaved(false);
    const responseFields = text
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean);
    setPicked(picked.map((p) => (p.name === name ? { ...p, responseFields } : p)));
  }
  async function onSave(event: FormEvent) {
    event.preventDefault();
    if (await servers.saveTools(server.id, picked)) setSaved(true);
  }

  if (server.tools.length === 0) return <p className="text-sm text-gray-500">The server lists no tools.</p>;
  return (
    <form className="space-y-3" onSubmit={onSave}>
      <fieldset>
        <legend className="mb-2 text-sm font-medium text-gray-800">Tools the bot may use</legend>
        <ul className="space-y-2">
          {server.tools.map((tool) => {
            const choice = byName.get(tool.name);
            return (
              <li key={tool.name} className="rounded-lg border border-gray-200 px-3 py-2.5 text-sm">
                <label className="flex items-start gap-2.5">
                  <input
                    type="checkbox"
                    className={checkboxClasses}
                    checked={Boolean(choice)}
                    onChange={() => toggle(tool.name, tool.readOnly)}
                  />
                  <span className="min-w-0">
                    <span className="block font-mono text-xs font-semibold text-gray-900">{tool.name}</span>
                    <span className="block break-words text-gray-600">{tool.description || 'No description'}</span>
                  </span>
                </label>
                {choice ? (
                  <div className="mt-2 ml-6.5 space-y-2">
                    <label className="flex items-center gap-2 text-gray-700">
                      <input
                        type="checkbox"
                        className={checkboxClasses}
                        checked={choice.confirm}
                        onChange={() => toggleConfirm(tool.name)}
                      />
                      Visitor confirms first
                    </label>
                    <FieldsInput
                      label={`Fields the bot may read from ${tool.name}`}
                      initial={choice.responseFields.join(', ')}
                      onChange={(text) => setFields(tool.name, text)}
                    />
                  </div>
                ) : null}
              </li>
            );
          })}
        </ul>
      </fieldset>
      {picked.some((p) => p.confirm) ? (
        <p className="text-xs text-gray-500">
          A tool the visitor confirms first runs only after the visitor presses Confirm on the card the bot shows them, with the inputs
          shown there; Cancel tells the bot it was not run.
        </p>
      ) : null}
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" busy={servers.busy === `tools:${server.id}`} busyLabel="Saving…" disabled={!changed}>
          Save tools
        </Button>
        {saved && !changed ? <span className="text-sm text-green-700">Saved.</span> : null}
      </div>
      {servers.errorAt(`tools:${server.id}`) ? <Alert>{servers.errorAt(`tools:${server.id}`)}</Alert> : null}
    </form>
  );
}

/** A connected server: its address, secret's last four, last error, tools, Refresh and Disconnect. */
function ConnectedServer({ server, servers }: { server: McpServerView; servers: Servers }) {
  const [confirming, setConfirming] = useState(false);
  const refreshing = servers.busy === `refresh:${server.id}`;
  return (
    <section aria-label={`MCP server ${server.name}`} className="space-y-3 rounded-xl border border-gray-200 p-4">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <h3 className="font-mono text-sm font-semibold text-gray-900">{server.name}</h3>
          <p className="break-all text-sm text-gray-600">{server.url}</p>
          <p className="text-xs text-gray-500">
            {server.secretHint ? (
              <>
                {server.secretHeader} <span className="font-mono">{server.secretHint}</span> ·{' '}
              </>
            ) : null}
            {server.listedAt ? `tools listed ${formatDateTime(server.listedAt)}` : null}
          </p>
        </div>
        <Badge tone={server.picked.length ? 'success' : 'neutral'}>
          {server.picked.length === 1 ? '1 tool in use' : `${server.picked.length} tools in use`}
        </Badge>
      </div>
      {server.lastError ? <Alert tone="info">Last error: {server.lastError}</Alert> : null}
      <ToolPicker key={server.tools.map((t) => t.name).join(' ')} server={server} servers={servers} />
      <div className="flex flex-wrap gap-2 border-t border-gray-100 pt-3">
        <Button type="button" variant="secondary" busy={refreshing} busyLabel="Listing…" onClick={() => void servers.refresh(server.id)}>
          List tools again
        </Button>
        <Button type="button" variant="secondary" onClick={() => setConfirming(true)}>
          Disconnect
        </Button>
      </div>
      {servers.errorAt(`refresh:${server.id}`) ? <Alert>{servers.errorAt(`refresh:${server.id}`)}</Alert> : null}
      {confirming ? (
        <ConfirmDialog
          title={`Disconnect ${server.name}?`}
          confirmLabel="Disconnect"
          busyLabel="Disconnecting…"
          busy={servers.busy === `disconnect:${server.id}`}
          error={servers.errorAt(`disconnect:${server.id}`)}
          onConfirm={async () => {
            if (await servers.disconnect(server.id)) setConfirming(false);
          }}
          onClose={() => setConfirming(false)}
        >
          The bot stops using its tools at once, and Parley forgets the secret. The call log goes with it.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** The form to connect a server: a short name (its tools' prefix), its address and an optional secret header. */
function ConnectServer({ servers }: { servers: Servers }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [secretHeader, setSecretHeader] = useState('Authorization');
  const [secret, setSecret] = useState('');
  async function onConnect(event: FormEvent) {
    event.preventDefault();
    if (await servers.connect({ name: name.trim(), url: url.trim(), secretHeader: secret ? secretHeader.trim() : '', secret })) {
      setName('');
      setUrl('');
      setSecret('');
    }
  }
  return (
    <form className="space-y-3" onSubmit={onConnect} aria-label="Connect an MCP server">
      <h3 className="text-sm font-semibold text-gray-900">Connect a server</h3>
      <div className="grid gap-3 sm:grid-cols-[12rem_1fr]">
        <TextField
          label="Name"
          hint="Lower case, e.g. shop"
          value={name}
          maxLength={24}
          autoComplete="off"
          onChange={(e) => setName(e.target.value)}
        />
        <TextField
          label="Server URL"
          hint="Its Streamable HTTP endpoint"
          placeholder="https://mcp.example.com/mcp"
          type="url"
          value={url}
          maxLength={2000}
          onChange={(e) => setUrl(e.target.value)}
        />
        <TextField
          label="Secret header"
          hint="Authorization sends Bearer <secret>"
          value={secretHeader}
          maxLength={64}
          autoComplete="off"
          onChange={(e) => setSecretHeader(e.target.value)}
        />
        <TextField
          label="Secret (optional)"
          hint="Stored encrypted, never shown again"
          type="password"
          autoComplete="off"
          value={secret}
          maxLength={4000}
          onChange={(e) => setSecret(e.target.value)}
        />
      </div>
      <Button type="submit" busy={servers.busy === 'connect'} busyLabel="Connecting…" disabled={!name.trim() || !url.trim()}>
        Connect server
      </Button>
      {servers.errorAt('connect') ? <Alert>{servers.errorAt('connect')}</Alert> : null}
    </form>
  );
}

/** The chatbot's remote MCP servers as tool sources (docs/product.md, MCP tools). */
export function McpServersCard({ chatbotId }: { chatbotId: string }) {
  const servers = useMcpServers(chatbotId);
  return (
    <Card>
      <CardHeader title="MCP servers" description={MCP_SERVERS_DESCRIPTION} />
      <CardBody className="space-y-4">
        {servers.loading ? (
          <div className="flex justify-center py-6 text-brand-600">
            <Spinner className="size-6" label="Loading MCP servers" />
          </div>
        ) : servers.failed ? (
          <Alert>{servers.failed}</Alert>
        ) : (
          <>
            {servers.servers.map((server) => (
              <ConnectedServer key={server.id} server={server} servers={servers} />
            ))}
            <ConnectServer servers={servers} />
          </>
        )}
      </CardBody>
    </Card>
  );
}
