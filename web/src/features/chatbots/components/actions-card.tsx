import { useEffect, useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { SelectField } from '../../../components/ui/select-field';
import { Spinner } from '../../../components/ui/spinner';
import { TextField } from '../../../components/ui/text-field';
import { TextareaField } from '../../../components/ui/textarea-field';
import { formatDateTime } from '../../../lib/format';
import { useCan } from '../../../lib/workspace/use-can';
import {
  ACTION_INPUT_SOURCES,
  ACTION_INPUT_TYPES,
  ACTION_METHODS,
  listActionCalls,
  testAction,
  type ActionCallView,
  type ActionDefinitionInput,
  type ActionPair,
  type ActionTestOutcome,
  type ActionView,
} from '../api/actions-api';
import { actionsMessageOf, useActions } from '../hooks/use-actions';
import { checkboxClasses } from './embed-appearance-card';

export const ACTIONS_DESCRIPTION =
  'Let your bot call your own HTTPS API for a visitor, e.g. to look up or cancel an order. Parley fills in the inputs the bot collects, sends your secrets only in headers or query values, and reads back only the fields you allow.';

type Actions = ReturnType<typeof useActions>;

const SOURCE_LABELS: Record<(typeof ACTION_INPUT_SOURCES)[number], string> = {
  model: 'The bot asks for it',
  userId: "The verified visitor's user id",
  email: "The verified visitor's email",
};

/** One input as edited: its allowed values as typed, comma-separated. */
interface InputDraft {
  name: string;
  type: string;
  description: string;
  required: boolean;
  enumText: string;
  source: string;
}

/** One secret as edited: an empty value keeps the stored one (whose last four `hint` shows). */
interface SecretDraft {
  name: string;
  value: string;
  hint: string;
}

interface Draft {
  name: string;
  whenToUse: string;
  inputs: InputDraft[];
  method: string;
  url: string;
  query: ActionPair[];
  headers: ActionPair[];
  body: string;
  secrets: SecretDraft[];
  responseFieldsText: string;
  timeoutText: string;
  maxKbText: string;
  confirm: boolean;
  identifiedOnly: boolean;
}

const commaList = (text: string) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

function draftOf(action: ActionView | null): Draft {
  if (!action)
    return {
      name: '',
      whenToUse: '',
      inputs: [],
      method: 'GET',
      url: '',
      query: [],
      headers: [],
      body: '',
      secrets: [],
      responseFieldsText: '',
      timeoutText: '',
      maxKbText: '',
      confirm: false,
      identifiedOnly: false,
    };
  return {
    name: action.name,
    whenToUse: action.whenToUse,
    inputs: action.inputs.map((i) => ({ ...i, enumText: i.enum.join(', ') })),
    method: action.method,
    url: action.url,
    query: action.query,
    headers: action.headers,
    body: action.body,
    secrets: action.secrets.map((s) => ({ name: s.name, value: '', hint: s.hint })),
    responseFieldsText: action.responseFields.join(', '),
    timeoutText: action.timeoutMs ? String(action.timeoutMs) : '',
    maxKbText: action.maxResponseBytes ? String(Math.round(action.maxResponseBytes / 1024)) : '',
    confirm: action.confirm,
    identifiedOnly: action.identifiedOnly,
  };
}

/** What is sent: empty bounds leave the service's defaults; the service checks every rule. */
function definitionOf(d: Draft): ActionDefinitionInput {
  const whole = (text: string) => (text.trim() && Number.isFinite(Number(text)) ? Math.round(Number(text)) : 0);
  return {
    name: d.name.trim(),
    whenToUse: d.whenToUse.trim(),
    inputs: d.inputs.map((i) => ({
      name: i.name.trim(),
      type: i.type,
      description: i.description.trim(),
      required: i.required,
      enum: commaList(i.enumText),
      source: i.source,
    })),
    method: d.method,
    url: d.url.trim(),
    query: d.query.map((q) => ({ name: q.name.trim(), value: q.value })),
    headers: d.headers.map((h) => ({ name: h.name.trim(), value: h.value })),
    body: d.method === 'GET' ? '' : d.body.trim(),
    secrets: d.secrets.map((s) => ({ name: s.name.trim(), value: s.value })),
    responseFields: commaList(d.responseFieldsText),
    timeoutMs: whole(d.timeoutText),
    maxResponseBytes: whole(d.maxKbText) * 1024,
    confirm: d.confirm,
    identifiedOnly: d.identifiedOnly,
  };
}

/** Name/value rows (query values, headers) with Add and Remove. */
function PairsEditor({
  legend,
  hint,
  rows,
  onChange,
}: {
  legend: string;
  hint: string;
  rows: ActionPair[];
  onChange: (rows: ActionPair[]) => void;
}) {
  const set = (index: number, patch: Partial<ActionPair>) => onChange(rows.map((r, i) => (i === index ? { ...r, ...patch } : r)));
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium text-gray-800">{legend}</legend>
      <p className="text-xs text-gray-500">{hint}</p>
      {rows.map((row, index) => (
        <div key={index} className="grid items-end gap-2 sm:grid-cols-[12rem_1fr_auto]">
          <TextField
            label={`${legend} ${index + 1} name`}
            value={row.name}
            maxLength={64}
            autoComplete="off"
            onChange={(e) => set(index, { name: e.target.value })}
          />
          <TextField
            label={`${legend} ${index + 1} value`}
            value={row.value}
            maxLength={2000}
            autoComplete="off"
            onChange={(e) => set(index, { value: e.target.value })}
          />
          <Button type="button" variant="ghost" onClick={() => onChange(rows.filter((_, i) => i !== index))}>
            Remove
          </Button>
        </div>
      ))}
      <Button type="button" variant="secondary" size="sm" onClick={() => onChange([...rows, { name: '', value: '' }])}>
        Add {legend.toLowerCase().replace(/s$/, '')}
      </Button>
    </fieldset>
  );
}

/** The inputs the bot fills in (or the verified visitor's identity does), each a row of its own. */
function InputsEditor({ inputs, onChange }: { inputs: InputDraft[]; onChange: (inputs: InputDraft[]) => void }) {
  const set = (index: number, patch: Partial<InputDraft>) => onChange(inputs.map((r, i) => (i === index ? { ...r, ...patch } : r)));
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium text-gray-800">Inputs</legend>
      <p className="text-xs text-gray-500">
        What the bot collects from the conversation; use one in the URL or a template as {'{name}'}. An input from the visitor&apos;s
        identity is taken from the verified visitor only, never from what the bot says.
      </p>
      {inputs.map((input, index) => (
        <div key={index} className="space-y-2 rounded-lg border border-gray-200 p-3">
          <div className="grid gap-2 sm:grid-cols-3">
            <TextField
              label={`Input ${index + 1} name`}
              hint="e.g. order_id"
              value={input.name}
              maxLength={48}
              autoComplete="off"
              onChange={(e) => set(index, { name: e.target.value })}
            />
            <SelectField
              label={`Input ${index + 1} type`}
              value={input.type}
              options={ACTION_INPUT_TYPES.map((t) => ({ value: t, label: t }))}
              onChange={(e) => set(index, { type: e.target.value })}
            />
            <SelectField
              label={`Input ${index + 1} comes from`}
              value={input.source}
              options={ACTION_INPUT_SOURCES.map((s) => ({ value: s, label: SOURCE_LABELS[s] }))}
              onChange={(e) => set(index, { source: e.target.value, ...(e.target.value !== 'model' ? { type: 'string' } : {}) })}
            />
          </div>
          <div className="grid gap-2 sm:grid-cols-2">
            <TextField
              label={`Input ${index + 1} description`}
              value={input.description}
              maxLength={300}
              onChange={(e) => set(index, { description: e.target.value })}
            />
            <TextField
              label={`Input ${index + 1} allowed values`}
              hint="Comma-separated; empty: any"
              value={input.enumText}
              maxLength={2000}
              autoComplete="off"
              onChange={(e) => set(index, { enumText: e.target.value })}
            />
          </div>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <label className="flex items-center gap-2 text-sm text-gray-700">
              <input
                type="checkbox"
                className={checkboxClasses}
                checked={input.required}
                onChange={(e) => set(index, { required: e.target.checked })}
              />
              Required
            </label>
            <Button type="button" variant="ghost" size="sm" onClick={() => onChange(inputs.filter((_, i) => i !== index))}>
              Remove input
            </Button>
          </div>
        </div>
      ))}
      <Button
        type="button"
        variant="secondary"
        size="sm"
        onClick={() => onChange([...inputs, { name: '', type: 'string', description: '', required: false, enumText: '', source: 'model' }])}
      >
        Add input
      </Button>
    </fieldset>
  );
}

/** Secrets by name: a value is sent once and never shown again; an empty one keeps what is stored. */
function SecretsEditor({ secrets, onChange }: { secrets: SecretDraft[]; onChange: (secrets: SecretDraft[]) => void }) {
  const set = (index: number, patch: Partial<SecretDraft>) => onChange(secrets.map((r, i) => (i === index ? { ...r, ...patch } : r)));
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium text-gray-800">Secrets</legend>
      <p className="text-xs text-gray-500">
        Stored encrypted and never shown again; use one in a header or query value as {'{secret.API_KEY}'}.
      </p>
      {secrets.map((secret, index) => (
        <div key={index} className="grid items-end gap-2 sm:grid-cols-[12rem_1fr_auto]">
          <TextField
            label={`Secret ${index + 1} name`}
            hint="Upper case, e.g. API_KEY"
            value={secret.name}
            maxLength={32}
            autoComplete="off"
            onChange={(e) => set(index, { name: e.target.value })}
          />
          <TextField
            label={`Secret ${index + 1} value`}
            hint={secret.hint ? `Stored: ends in ${secret.hint}. Leave empty to keep it.` : 'Sent once, never shown again'}
            type="password"
            autoComplete="off"
            value={secret.value}
            maxLength={4000}
            onChange={(e) => set(index, { value: e.target.value })}
          />
          <Button type="button" variant="ghost" onClick={() => onChange(secrets.filter((_, i) => i !== index))}>
            Remove
          </Button>
        </div>
      ))}
      <Button type="button" variant="secondary" size="sm" onClick={() => onChange([...secrets, { name: '', value: '', hint: '' }])}>
        Add secret
      </Button>
    </fieldset>
  );
}

/** The form that adds an action (`action` null) or edits one. */
function ActionForm({ action, actions, onDone }: { action: ActionView | null; actions: Actions; onDone: () => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(action));
  // "Visitor confirms first" follows the method (on unless GET) until the owner sets it.
  const [confirmSet, setConfirmSet] = useState(action !== null);
  const at = `save:${action?.id ?? 'new'}`;
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));

  async function onSave(event: FormEvent) {
    event.preventDefault();
    if (await actions.save(action?.id ?? null, definitionOf(draft))) onDone();
  }

  return (
    <form
      className="space-y-4 rounded-xl border border-brand-200 bg-brand-50/30 p-4"
      onSubmit={onSave}
      aria-label={action ? `Edit action ${action.name}` : 'Add an action'}
    >
      <h3 className="text-sm font-semibold text-gray-900">{action ? `Edit ${action.name}` : 'Add an action'}</h3>
      <div className="grid gap-3 sm:grid-cols-[16rem_1fr]">
        <TextField
          label="Name"
          hint="Lower case and underscores, e.g. cancel_order"
          value={draft.name}
          maxLength={48}
          autoComplete="off"
          onChange={(e) => set({ name: e.target.value })}
        />
        <TextField
          label="When to use"
          hint="What the bot reads to decide, e.g. When the visitor wants to cancel an order"
          value={draft.whenToUse}
          maxLength={1000}
          onChange={(e) => set({ whenToUse: e.target.value })}
        />
      </div>
      <InputsEditor inputs={draft.inputs} onChange={(inputs) => set({ inputs })} />
      <div className="grid gap-3 sm:grid-cols-[9rem_1fr]">
        <SelectField
          label="Method"
          value={draft.method}
          options={ACTION_METHODS.map((m) => ({ value: m, label: m }))}
          onChange={(e) => set({ method: e.target.value, ...(confirmSet ? {} : { confirm: e.target.value !== 'GET' }) })}
        />
        <TextField
          label="URL"
          hint="https:// address; inputs as {placeholders} in its path or query, never its host"
          placeholder="https://api.example.com/orders/{order_id}"
          value={draft.url}
          maxLength={2000}
          autoComplete="off"
          onChange={(e) => set({ url: e.target.value })}
        />
      </div>
      <PairsEditor
        legend="Query values"
        hint="Added to the URL's query; values may use {input} and {secret.NAME}."
        rows={draft.query}
        onChange={(query) => set({ query })}
      />
      <PairsEditor
        legend="Headers"
        hint="Values may use {input} and {secret.NAME}, e.g. Authorization: Bearer {secret.API_KEY}."
        rows={draft.headers}
        onChange={(headers) => set({ headers })}
      />
      {draft.method !== 'GET' ? (
        <TextareaField
          label="Body"
          hint='JSON, placeholders inside strings, e.g. {"reason": "{reason}"}; empty: no body'
          rows={3}
          value={draft.body}
          maxLength={20_000}
          onChange={(e) => set({ body: e.target.value })}
        />
      ) : null}
      <SecretsEditor secrets={draft.secrets} onChange={(secrets) => set({ secrets })} />
      <div className="grid gap-3 sm:grid-cols-[1fr_10rem_10rem]">
        <TextField
          label="Fields the bot may read"
          hint="Dotted paths, comma-separated, e.g. order.status; empty: none"
          value={draft.responseFieldsText}
          maxLength={2000}
          autoComplete="off"
          onChange={(e) => set({ responseFieldsText: e.target.value })}
        />
        <TextField
          label="Timeout (ms)"
          hint="500–30000; empty: 10000"
          inputMode="numeric"
          value={draft.timeoutText}
          maxLength={6}
          onChange={(e) => set({ timeoutText: e.target.value })}
        />
        <TextField
          label="Size cap (KB)"
          hint="1–1024; empty: 256"
          inputMode="numeric"
          value={draft.maxKbText}
          maxLength={5}
          onChange={(e) => set({ maxKbText: e.target.value })}
        />
      </div>
      <div className="space-y-2">
        <label className="flex items-center gap-2 text-sm text-gray-700">
          <input
            type="checkbox"
            className={checkboxClasses}
            checked={draft.confirm}
            onChange={(e) => {
              setConfirmSet(true);
              set({ confirm: e.target.checked });
            }}
          />
          Visitor confirms first
        </label>
        <label className="flex items-center gap-2 text-sm text-gray-700">
          <input
            type="checkbox"
            className={checkboxClasses}
            checked={draft.identifiedOnly}
            onChange={(e) => set({ identifiedOnly: e.target.checked })}
          />
          Identified visitors only
        </label>
      </div>
      {actions.errorAt(at) ? <Alert>{actions.errorAt(at)}</Alert> : null}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" busy={actions.busy === at} busyLabel="Saving…">
          {action ? 'Save action' : 'Add action'}
        </Button>
        <Button
          type="button"
          variant="secondary"
          onClick={() => {
            actions.clearError();
            onDone();
          }}
        >
          Cancel
        </Button>
      </div>
    </form>
  );
}

/** The text the bot reads, indented when it is JSON. */
function readable(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The owner's Test: sample inputs, then the request as sent (secrets masked) and what the bot would read, or the error. */
function ActionTest({ chatbotId, action, onRan }: { chatbotId: string; action: ActionView; onRan: () => void }) {
  const asked = action.inputs.filter((i) => i.source === 'model');
  const [values, setValues] = useState<Record<string, string>>({});
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<ActionTestOutcome | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function onRun(event: FormEvent) {
    event.preventDefault();
    const inputs: Record<string, unknown> = {};
    for (const input of asked) {
      const text = values[input.name]?.trim() ?? '';
      if (!text) continue;
      if (input.type === 'boolean') inputs[input.name] = text === 'true';
      else if (input.type === 'number' || input.type === 'integer')
        inputs[input.name] = Number.isFinite(Number(text)) ? Number(text) : text;
      else inputs[input.name] = text;
    }
    setRunning(true);
    setError(null);
    setOutcome(null);
    try {
      setOutcome(await testAction(chatbotId, action.id, inputs));
      onRan();
    } catch (err) {
      setError(actionsMessageOf(err, 'Could not test the action. Please try again.'));
    } finally {
      setRunning(false);
    }
  }

  return (
    <form className="space-y-3 rounded-lg bg-gray-50 p-3" onSubmit={onRun} aria-label={`Test ${action.name}`}>
      {asked.length ? (
        <div className="grid gap-2 sm:grid-cols-2">
          {asked.map((input) =>
            input.type === 'boolean' ? (
              <SelectField
                key={input.name}
                label={input.name}
                value={values[input.name] ?? ''}
                options={[
                  { value: '', label: '—' },
                  { value: 'true', label: 'true' },
                  { value: 'false', label: 'false' },
                ]}
                onChange={(e) => setValues({ ...values, [input.name]: e.target.value })}
              />
            ) : (
              <TextField
                key={input.name}
                label={input.name}
                hint={
                  [input.required ? 'Required' : '', input.enum.length ? `One of ${input.enum.join(', ')}` : '']
                    .filter(Boolean)
                    .join(' · ') || undefined
                }
                value={values[input.name] ?? ''}
                maxLength={2000}
                autoComplete="off"
                onChange={(e) => setValues({ ...values, [input.name]: e.target.value })}
              />
            ),
          )}
        </div>
      ) : (
        <p className="text-sm text-gray-600">The action asks the bot for no inputs.</p>
      )}
      {action.inputs.some((i) => i.source !== 'model') ? (
        <p className="text-xs text-gray-500">Inputs from the visitor&apos;s identity are known only in a chat with a verified visitor.</p>
      ) : null}
      <Button type="submit" size="sm" busy={running} busyLabel="Running…">
        Run test
      </Button>
      {error ? <Alert>{error}</Alert> : null}
      {outcome ? <TestOutcome outcome={outcome} /> : null}
    </form>
  );
}

function TestOutcome({ outcome }: { outcome: ActionTestOutcome }) {
  const request = outcome.request;
  return (
    <div className="space-y-2 text-sm" aria-label="Test result" role="group">
      <p className="flex flex-wrap items-center gap-2">
        <Badge tone={outcome.status === 'ok' ? 'success' : 'danger'}>{outcome.status}</Badge>
        {outcome.httpStatus ? <span className="text-gray-700">HTTP {outcome.httpStatus}</span> : null}
        <span className="text-gray-500">{outcome.durationMs} ms</span>
      </p>
      {outcome.error ? <Alert>{outcome.error}</Alert> : null}
      {request.url ? (
        <div>
          <h4 className="text-xs font-semibold text-gray-700 uppercase">Request sent</h4>
          <pre className="mt-1 overflow-x-auto rounded-md bg-white p-2 font-mono text-xs whitespace-pre-wrap break-all text-gray-800 ring-1 ring-gray-200">
            {[
              `${request.method} ${request.url}`,
              ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`),
              ...(request.body ? ['', request.body] : []),
            ].join('\n')}
          </pre>
        </div>
      ) : null}
      {outcome.status === 'ok' ? (
        <div>
          <h4 className="text-xs font-semibold text-gray-700 uppercase">What the bot reads</h4>
          <pre className="mt-1 overflow-x-auto rounded-md bg-white p-2 font-mono text-xs whitespace-pre-wrap break-all text-gray-800 ring-1 ring-gray-200">
            {readable(outcome.result)}
          </pre>
          <p className="mt-1 text-xs text-gray-500">
            {outcome.fieldsRead.length ? `Fields read: ${outcome.fieldsRead.join(', ')}` : 'No fields read.'}
          </p>
        </div>
      ) : null}
    </div>
  );
}

/** The action's latest calls, from chats and tests: time, status, duration, fields read, inputs (masked as served). */
function CallLog({ chatbotId, actionId, version }: { chatbotId: string; actionId: string; version: number }) {
  const [calls, setCalls] = useState<ActionCallView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    listActionCalls(chatbotId, actionId, 10).then(
      (c) => live && (setCalls(c), setError(null)),
      (err: unknown) => live && setError(actionsMessageOf(err, 'Could not load the calls. Please try again.')),
    );
    return () => {
      live = false;
    };
  }, [chatbotId, actionId, version]);

  if (error) return <Alert>{error}</Alert>;
  if (!calls) return <Spinner className="size-5 text-brand-600" label="Loading calls" />;
  if (!calls.length) return <p className="text-sm text-gray-500">No calls yet.</p>;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-xs">
        <caption className="sr-only">Latest calls</caption>
        <thead className="text-gray-500">
          <tr>
            <th className="py-1 pr-3 font-medium">Time</th>
            <th className="py-1 pr-3 font-medium">Status</th>
            <th className="py-1 pr-3 font-medium">Duration</th>
            <th className="py-1 pr-3 font-medium">Fields read</th>
            <th className="py-1 font-medium">Inputs</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-gray-100 text-gray-700">
          {calls.map((c) => (
            <tr key={c.id} className="align-top">
              <td className="py-1.5 pr-3 whitespace-nowrap">
                {formatDateTime(c.createdAt)}
                {c.source === 'test' ? <span className="ml-1 text-gray-500">(test)</span> : null}
              </td>
              <td className="py-1.5 pr-3">
                <span className={c.status === 'ok' ? 'text-green-700' : 'text-red-700'}>{c.status}</span>
                {c.httpStatus ? ` · HTTP ${c.httpStatus}` : null}
                {c.error ? <span className="block text-gray-500">{c.error}</span> : null}
              </td>
              <td className="py-1.5 pr-3 whitespace-nowrap">{c.durationMs} ms</td>
              <td className="py-1.5 pr-3 font-mono">{c.fieldsRead.join(', ') || '—'}</td>
              <td className="py-1.5 font-mono break-all">{Object.keys(c.inputs).length ? JSON.stringify(c.inputs) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One declared action: what it calls, its badges, Edit, Test and Delete for an editor, its call log for a member who reads conversations. */
function ActionItem({
  chatbotId,
  action,
  actions,
  canEdit,
  canReadCalls,
  onEdit,
}: {
  chatbotId: string;
  action: ActionView;
  actions: Actions;
  canEdit: boolean;
  canReadCalls: boolean;
  onEdit: () => void;
}) {
  const [panel, setPanel] = useState<'test' | 'calls' | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [version, setVersion] = useState(0);
  const toggle = (p: 'test' | 'calls') => setPanel(panel === p ? null : p);
  return (
    <section aria-label={`Action ${action.name}`} className="space-y-3 rounded-xl border border-gray-200 p-4">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <h3 className="font-mono text-sm font-semibold text-gray-900">{action.name}</h3>
          <p className="text-sm text-gray-600">{action.whenToUse}</p>
          <p className="mt-1 break-all font-mono text-xs text-gray-700">
            <span className="font-semibold">{action.method}</span> {action.url}
          </p>
        </div>
        <div className="flex flex-wrap gap-1.5">
          {action.confirm ? <Badge tone="warning">Visitor confirms</Badge> : <Badge>Runs without asking</Badge>}
          {action.identifiedOnly ? <Badge tone="brand">Identified visitors only</Badge> : null}
        </div>
      </div>
      <div className="flex flex-wrap gap-2 border-t border-gray-100 pt-3">
        {canEdit ? (
          <>
            <Button type="button" variant="secondary" size="sm" onClick={onEdit}>
              Edit
            </Button>
            <Button type="button" variant="secondary" size="sm" aria-expanded={panel === 'test'} onClick={() => toggle('test')}>
              Test
            </Button>
          </>
        ) : null}
        {canReadCalls ? (
          <Button type="button" variant="secondary" size="sm" aria-expanded={panel === 'calls'} onClick={() => toggle('calls')}>
            Recent calls
          </Button>
        ) : null}
        {canEdit ? (
          <Button type="button" variant="ghost" size="sm" onClick={() => setConfirming(true)}>
            Delete
          </Button>
        ) : null}
      </div>
      {panel === 'test' ? <ActionTest chatbotId={chatbotId} action={action} onRan={() => setVersion((v) => v + 1)} /> : null}
      {panel === 'calls' ? <CallLog chatbotId={chatbotId} actionId={action.id} version={version} /> : null}
      {confirming ? (
        <ConfirmDialog
          title={`Delete ${action.name}?`}
          confirmLabel="Delete"
          busyLabel="Deleting…"
          busy={actions.busy === `delete:${action.id}`}
          error={actions.errorAt(`delete:${action.id}`)}
          onConfirm={async () => {
            if (await actions.remove(action.id)) setConfirming(false);
          }}
          onClose={() => setConfirming(false)}
        >
          The bot stops using it at once, and Parley forgets its secrets. Its call log goes with it.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** The chatbot's HTTP actions (docs/product.md, HTTP actions). */
export function ActionsCard({ chatbotId }: { chatbotId: string }) {
  const actions = useActions(chatbotId);
  const canEdit = useCan('chatbots:write');
  // The log holds what visitors gave: it is read with the conversations' permission.
  const canReadCalls = useCan('conversations:read');
  /** The action being edited, 'new' while adding one. */
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <Card>
      <CardHeader title="Actions" description={ACTIONS_DESCRIPTION} />
      <CardBody className="space-y-4">
        {actions.loading ? (
          <div className="flex justify-center py-6 text-brand-600">
            <Spinner className="size-6" label="Loading actions" />
          </div>
        ) : actions.failed ? (
          <Alert>{actions.failed}</Alert>
        ) : (
          <>
            {actions.actions.length === 0 && editing !== 'new' ? <p className="text-sm text-gray-500">No actions yet.</p> : null}
            {actions.actions.map((action) =>
              editing === action.id ? (
                <ActionForm key={action.id} action={action} actions={actions} onDone={() => setEditing(null)} />
              ) : (
                <ActionItem
                  key={action.id}
                  chatbotId={chatbotId}
                  action={action}
                  actions={actions}
                  canEdit={canEdit}
                  canReadCalls={canReadCalls}
                  onEdit={() => setEditing(action.id)}
                />
              ),
            )}
            {canEdit && editing === 'new' ? <ActionForm action={null} actions={actions} onDone={() => setEditing(null)} /> : null}
            {canEdit && editing !== 'new' ? (
              <Button type="button" onClick={() => setEditing('new')}>
                Add action
              </Button>
            ) : null}
          </>
        )}
      </CardBody>
    </Card>
  );
}
