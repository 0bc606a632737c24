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
export const deletionSummary = (p: Preview) =>
  `Saving deletes ${plural(p.conversations, 'conversation', 'conversations')} (${plural(p.messages, 'message', 'messages')}) and ${plural(p.leads, 'lead', 'leads')} within the hour. This cannot be undone.`;

/** The Data retention card: how long conversations and leads are kept (owners and admins); a shorter window says what it deletes first. */
export function DataRetentionCard() {
  const retention = useRetention();
  const saved = retention.windows;
  return (
    <WorkspaceSection
      title="Data retention"
      description="How long conversations and leads are kept. What is older is deleted for good, from exports too; backups age out on the operator's schedule."
    >
      {saved ? (
        <DataRetentionForm key={`${saved.conversationDays}-${saved.leadDays}`} saved={saved} retention={retention} />
      ) : retention.loading ? (
        <p className="text-sm text-gray-500">Loading…</p>
      ) : null}
    </WorkspaceSection>
  );
}

function DataRetentionForm({ saved, retention }: { saved: Windows; retention: ReturnType<typeof useRetention> }) {
  const [form, setForm] = useState({ conversations: choiceOf(saved.conversationDays), leads: choiceOf(saved.leadDays) });
  const [pending, setPending] = useState<Preview | null>(null);
  const windows: Windows = { conversationDays: daysOf(form.conversations), leadDays: daysOf(form.leads) };

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!pending && (shortens(saved.conversationDays, windows.conversationDays) || shortens(saved.leadDays, windows.leadDays))) {
      const counts = await retention.preview(windows);
      if (!counts) return;
      if (counts.conversations + counts.leads > 0) return setPending(counts);
    }
    setPending(null);
    await retention.save(windows);
  }

  const change = (field: 'conversations' | 'leads') => (e: ChangeEvent<HTMLSelectElement>) => {
    setPending(null);
    setForm((current) => ({ ...current, [field]: e.target.value }));
  };

  return (
    <form onSubmit={handleSubmit} className="space-y-4">
      {retention.error ? <Alert>{retention.error}</Alert> : retention.success ? <Alert tone="success">{retention.success}</Alert> : null}
      <SelectField
        label="Keep conversations"
        name="retentionConversations"
        options={choicesWith(saved.conversationDays)}
        value={form.conversations}
        onChange={change('conversations')}
      />
      <SelectField
        label="Keep leads"
        name="retentionLeads"
        options={choicesWith(saved.leadDays)}
        value={form.leads}
        onChange={change('leads')}
      />
      {pending ? <Alert>{deletionSummary(pending)}</Alert> : null}
      <div className="flex justify-end">
        <Button type="submit" variant={pending ? 'danger' : 'primary'} busy={retention.busy} busyLabel="Saving...">
          {pending ? 'Delete and save' : 'Save'}
        </Button>
      </div>
    </form>
  );
}
