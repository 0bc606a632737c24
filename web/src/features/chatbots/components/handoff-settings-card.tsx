import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { Switch } from '../../../components/ui/switch';
import { TextField } from '../../../components/ui/text-field';
import type { ChatbotLeadSettingsFragment } from '../../../gql/graphql';
import { useUpdateChatbotLeadSettings } from '../hooks/use-update-chatbot-lead-settings';
import { handoffInput, handoffSettings, MAX_HANDOFF_SECONDS, MIN_HANDOFF_SECONDS, type HandoffSettings } from '../lead-settings';

/**
 * The Handoff to a person card: whether visitors may ask for a person from the workspace's live
 * inbox, and how long they wait before the bot resumes. Pro only: other plans see it disabled with
 * the way to Pro (the server refuses it too).
 */
export function HandoffSettingsCard({ chatbot, pro }: { chatbot: ChatbotLeadSettingsFragment; pro: boolean }) {
  const { save, loading, error, success } = useUpdateChatbotLeadSettings(chatbot.id);
  const [form, setForm] = useState<HandoffSettings>(() => handoffSettings(chatbot.handoff));
  const hintId = useId();

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const saved = await save({ handoff: handoffInput(form) });
    if (saved) setForm(handoffSettings(saved.handoff));
  }

  return (
    <Card>
      <CardHeader
        title={
          <span className="flex flex-wrap items-center gap-2">Handoff to a person {pro ? null : <Badge tone="brand">PRO</Badge>}</span>
        }
        description="Visitors can ask for a person, and your team answers from the Inbox."
      />
      <CardBody>
        <form onSubmit={handleSubmit} className="space-y-5" noValidate aria-describedby={pro ? undefined : hintId}>
          {error ? <Alert>{error}</Alert> : null}
          {success ? <Alert tone="success">{success}</Alert> : null}
          {pro ? null : (
            <p id={hintId} className="rounded-lg bg-brand-50 px-4 py-3 text-sm text-brand-900">
              Handoff to a person is part of Pro.{' '}
              <Link to="/pricing" className="font-medium text-brand-700 hover:text-brand-800 hover:underline">
                Upgrade to Pro
              </Link>
            </p>
          )}
          <Switch
            label="Let visitors talk to a person"
            description="The chat offers “Talk to a person”; the bot stays silent while your team answers."
            checked={form.enabled}
            disabled={!pro}
            onChange={(enabled) => setForm((current) => ({ ...current, enabled }))}
          />
          <TextField
            className="sm:max-w-xs"
            label="Wait for a person (minutes)"
            name="handoff-timeout"
            type="number"
            inputMode="decimal"
            min={MIN_HANDOFF_SECONDS / 60}
            max={MAX_HANDOFF_SECONDS / 60}
            step={0.5}
            disabled={!pro}
            hint="If nobody answers in time, the bot resumes and asks the visitor for an email (0.5 to 60 minutes)."
            value={form.timeoutMinutes}
            onChange={(e) => setForm((current) => ({ ...current, timeoutMinutes: e.target.value }))}
          />
          <div className="flex justify-end border-t border-gray-100 pt-5">
            <Button type="submit" disabled={!pro} busy={loading} busyLabel="Saving...">
              Save Handoff
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
