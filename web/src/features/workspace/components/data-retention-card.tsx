import { useState, type ChangeEvent, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { SelectField } from '../../../components/ui/select-field';
import { shortens, useRetention, type Preview, type Windows } from '../hooks/use-retention';
import { WorkspaceSection } from './workspace-section';

const CHOICES = [
  { value: '', label: 'Forever' },
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '180', label: '6 months' },
  { value: '365', label: '1 year' },
  { value: '730', label: '2 years' },
];

const choiceOf = (days: number | null) => (days === null ? '' : String(days));
const daysOf = (choice: string) => (choice === '' ? null : Number(choice));
/** The saved window among the choices, even one set outside the page (e.g. 45 days). */
const choicesWith = (days: number | null) =>
  days === null || CHOICES.some((c) => c.value === String(days)) ? CHOICES : [...CHOICES, { value: String(days), label: `${days} days` }];

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const listed = (parts: string[]) => (parts.length < 2 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`);
export const deletionSummary = (p: Preview) => {
  const parts = [
    `${plural(p.conversations, 'conversation', 'conversations')} (${plural(p.messages, 'message', 'messages')})`,
    plural(p.leads, 'lead', 'leads'),
  ];
  if (p.usageRecords > 0) parts.push(plural(p.usageRecords, 'usage record', 'usage records'));
  if (p.webhookDeliveries > 0) parts.push(plural(p.webhookDeliveries, 'webhook delivery', 'webhook deliveries'));
  if (p.analyticsDays + p.questionGroups > 0)
    parts.push(
      `${plural(p.analyticsDays, 'chatbot day', 'chatbot days')} of analytics (${plural(p.questionGroups, 'question group', 'question groups')})`,
    );
  return `Saving deletes ${listed(parts)} within the hour. This cannot be undone.`;
};

/** The windows of the form, each a select. */
const FIELDS = [
  { key: 'conversationDays', label: 'Keep conversations', name: 'retentionConversations' },
  { key: 'leadDays', label: 'Keep leads', name: 'retentionLeads' },
  { key: 'usageDetailDays', label: 'Keep usage detail', name: 'retentionUsageDetail' },
  { key: 'webhookDeliveryDays', label: 'Keep webhook deliveries', name: 'retentionWebhookDeliveries' },
  { key: 'analyticsDays', label: 'Keep analytics', name: 'retentionAnalytics' },
] as const satisfies readonly { key: keyof Windows; label: string; name: string }[];

type Form = Record<keyof Windows, string>;
const formOf = (w: Windows): Form => Object.fromEntries(FIELDS.map((f) => [f.key, choiceOf(w[f.key])])) as Form;
const windowsOf = (form: Form): Windows => Object.fromEntries(FIELDS.map((f) => [f.key, daysOf(form[f.key])])) as unknown as Windows;
const deletes = (p: Preview) => p.conversations + p.leads + p.usageRecords + p.webhookDeliveries + p.analyticsDays + p.questionGroups > 0;

/** The Data retention card: how long conversations and leads are kept (owners and admins); a shorter window says what it deletes first. */
export function DataRetentionCard() {
  const retention = useRetention();
  const saved = retention.windows;
  return (
    <WorkspaceSection
      title="Data retention"
      description="How long conversations, leads, usage detail, webhook deliveries and analytics are kept. What is older is deleted for good, from exports too; backups age out on the operator's schedule. Balances, invoices and usage totals are always kept."
    >
      {saved ? (
        <DataRetentionForm key={FIELDS.map((f) => saved[f.key]).join('-')} saved={saved} retention={retention} />
      ) : retention.loading ? (
        <p className="text-sm text-gray-500">Loading…</p>
      ) : null}
    </WorkspaceSection>
  );
}

function DataRetentionForm({ saved, retention }: { saved: Windows; retention: ReturnType<typeof useRetention> }) {
  const [form, setForm] = useState<Form>(() => formOf(saved));
  const [pending, setPending] = useState<Preview | null>(null);
  const windows = windowsOf(form);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!pending && FIELDS.some((f) => shortens(saved[f.key], windows[f.key]))) {
      const counts = await retention.preview(windows);
      if (!counts) return;
      if (deletes(counts)) return setPending(counts);
    }
    setPending(null);
    await retention.save(windows);
  }

  const change = (field: keyof Windows) => (e: ChangeEvent<HTMLSelectElement>) => {
    setPending(null);
    setForm((current) => ({ ...current, [field]: e.target.value }));
  };

  return (
    <form onSubmit={handleSubmit} className="space-y-4">
      {retention.error ? <Alert>{retention.error}</Alert> : retention.success ? <Alert tone="success">{retention.success}</Alert> : null}
      <div className="grid gap-4 sm:grid-cols-2">
        {FIELDS.map((f) => (
          <SelectField
            key={f.key}
            label={f.label}
            name={f.name}
            options={choicesWith(saved[f.key])}
            value={form[f.key]}
            onChange={change(f.key)}
          />
        ))}
      </div>
      {pending ? <Alert>{deletionSummary(pending)}</Alert> : null}
      <div className="flex justify-end">
        <Button type="submit" variant={pending ? 'danger' : 'primary'} busy={retention.busy} busyLabel="Saving...">
          {pending ? 'Delete and save' : 'Save'}
        </Button>
      </div>
    </form>
  );
}
