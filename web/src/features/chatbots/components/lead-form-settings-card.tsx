import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { SelectField } from '../../../components/ui/select-field';
import { TextField } from '../../../components/ui/text-field';
import type { ChatbotLeadSettingsFragment, LeadFieldMode, LeadTrigger } from '../../../gql/graphql';
import { cn } from '../../../lib/cn';
import { useUpdateChatbotLeadSettings } from '../hooks/use-update-chatbot-lead-settings';
import {
  formIsOn,
  LEAD_FIELD_OPTIONS,
  LEAD_TRIGGER_OPTIONS,
  leadFormInput,
  leadFormSettings,
  MAX_AFTER_MESSAGES,
  MAX_CONSENT_CHARS,
  MIN_AFTER_MESSAGES,
  type LeadFormSettings,
} from '../lead-settings';

const FIELDS = [
  { key: 'name', label: 'Ask for name' },
  { key: 'email', label: 'Ask for email' },
  { key: 'phone', label: 'Ask for phone' },
] as const;

/**
 * The Lead form card: which contact fields the chat asks for, when the form shows, and the owner's
 * consent line. Every plan; the chatbot service checks the values and its messages show as they come.
 */
export function LeadFormSettingsCard({ chatbot }: { chatbot: ChatbotLeadSettingsFragment }) {
  const { save, loading, error, success } = useUpdateChatbotLeadSettings(chatbot.id);
  const [form, setForm] = useState<LeadFormSettings>(() => leadFormSettings(chatbot.leadForm));
  const change = (patch: Partial<LeadFormSettings>) => setForm((current) => ({ ...current, ...patch }));
  const on = formIsOn(form);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const saved = await save({ leadForm: leadFormInput(form) });
    if (saved) setForm(leadFormSettings(saved.leadForm));
  }

  return (
    <Card>
      <CardHeader title="Lead form" description="Ask visitors for their contact details in the chat. Leads are listed on the Leads page." />
      <CardBody>
        <form onSubmit={handleSubmit} className="space-y-5" noValidate>
          {error ? <Alert>{error}</Alert> : null}
          {success ? <Alert tone="success">{success}</Alert> : null}

          <div className="grid gap-4 sm:grid-cols-3">
            {FIELDS.map(({ key, label }) => (
              <SelectField
                key={key}
                label={label}
                name={`lead-${key}`}
                value={form[key]}
                options={LEAD_FIELD_OPTIONS}
                onChange={(e) => change({ [key]: e.target.value as LeadFieldMode })}
              />
            ))}
          </div>
          {!on ? <p className="text-sm text-gray-500">Every field is off: the chat shows no form.</p> : null}

          <div className="grid gap-4 sm:grid-cols-2">
            <SelectField
              label="Show the form"
              name="lead-trigger"
              value={form.trigger}
              options={LEAD_TRIGGER_OPTIONS}
              disabled={!on}
              onChange={(e) => change({ trigger: e.target.value as LeadTrigger })}
            />
            {form.trigger === 'after_messages' ? (
              <TextField
                label="After how many messages"
                name="lead-after-messages"
                type="number"
                inputMode="numeric"
                min={MIN_AFTER_MESSAGES}
                max={MAX_AFTER_MESSAGES}
                step={1}
                disabled={!on}
                hint={`The visitor's messages, ${MIN_AFTER_MESSAGES} to ${MAX_AFTER_MESSAGES}.`}
                value={form.afterMessages}
                onChange={(e) => change({ afterMessages: e.target.value })}
              />
            ) : null}
          </div>

          <div>
            <TextField
              label="Consent line"
              name="lead-consent"
              disabled={!on}
              maxLength={MAX_CONSENT_CHARS + 100}
              placeholder="e.g. I agree that Acme may contact me about my question."
              hint="Shown beside a checkbox the visitor must tick. Leave empty for none."
              value={form.consentText}
              onChange={(e) => change({ consentText: e.target.value })}
            />
            <p
              className={cn(
                'mt-1 text-right text-xs tabular-nums',
                form.consentText.length > MAX_CONSENT_CHARS ? 'font-medium text-red-700' : 'text-gray-500',
              )}
            >
              {form.consentText.length} / {MAX_CONSENT_CHARS}
            </p>
          </div>

          <div className="flex justify-end border-t border-gray-100 pt-5">
            <Button type="submit" busy={loading} busyLabel="Saving...">
              Save Lead Form
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
