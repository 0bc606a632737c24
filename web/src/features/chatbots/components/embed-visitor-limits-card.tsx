import { useId, useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { fieldControlClasses } from '../../../components/ui/field-styles';
import type { ChatbotEmbedFragment } from '../../../gql/graphql';
import { cn } from '../../../lib/cn';
import { visitorLimitsChange, visitorLimitsFormOf, MAX_VISITOR_MESSAGES_PER_DAY, type VisitorLimitsForm } from '../embed-settings';
import { useUpdateChatbotEmbed } from '../hooks/use-update-chatbot-embed';
import { checkboxClasses } from './embed-appearance-card';

/**
 * What visitors may spend: messages per visitor per day, the chatbot's daily spend, and the
 * invisible proof-of-work check. Past a limit visitors are asked to come back tomorrow and nothing
 * is billed. The service checks the ranges.
 */
export function EmbedVisitorLimitsCard({ chatbot }: { chatbot: ChatbotEmbedFragment }) {
  const { saveEmbed, fail, loading, error, success } = useUpdateChatbotEmbed(chatbot.id);
  const [form, setForm] = useState<VisitorLimitsForm>(() => visitorLimitsFormOf(chatbot));
  const id = useId();
  const pending = visitorLimitsChange(chatbot, form);
  const dirty = Boolean(pending.change ?? pending.error);

  function change(patch: Partial<VisitorLimitsForm>) {
    setForm((current) => ({ ...current, ...patch }));
  }

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pending.error) return fail(pending.error);
    if (!pending.change) return;
    const saved = await saveEmbed({ limits: pending.change });
    if (saved) setForm(visitorLimitsFormOf(saved));
  }

  return (
    <Card>
      <CardHeader
        title="Visitor limits"
        description="Caps that keep a busy day, or a script, from draining your credit. Days are UTC days."
      />
      <CardBody>
        <form onSubmit={handleSubmit} className="space-y-5" noValidate>
          {error ? <Alert>{error}</Alert> : null}
          {success ? <Alert tone="success">{success}</Alert> : null}
          <div className="grid gap-5 sm:grid-cols-2">
            <div>
              <label htmlFor={`${id}-messages`} className="mb-1.5 block text-sm font-medium text-gray-800">
                Messages per visitor per day
              </label>
              <input
                id={`${id}-messages`}
                type="number"
                inputMode="numeric"
                min={1}
                max={MAX_VISITOR_MESSAGES_PER_DAY}
                step={1}
                placeholder="No limit"
                aria-describedby={`${id}-messages-hint`}
                value={form.visitorMessagesPerDay}
                onChange={(e) => change({ visitorMessagesPerDay: e.target.value })}
                className={cn(fieldControlClasses, 'h-11')}
              />
              <p id={`${id}-messages-hint`} className="mt-1.5 text-xs text-gray-500">
                A visitor is one network address. Empty: no limit.
              </p>
            </div>
            <div>
              <label htmlFor={`${id}-spend`} className="mb-1.5 block text-sm font-medium text-gray-800">
                Daily spend limit
              </label>
              <div className="relative">
                <span
                  aria-hidden="true"
                  className="pointer-events-none absolute inset-y-0 left-3.5 flex items-center text-sm text-gray-500"
                >
                  $
                </span>
                <input
                  id={`${id}-spend`}
                  type="text"
                  inputMode="decimal"
                  autoComplete="off"
                  placeholder="No limit"
                  aria-describedby={`${id}-spend-hint`}
                  value={form.dailySpendLimit}
                  onChange={(e) => change({ dailySpendLimit: e.target.value })}
                  className={cn(fieldControlClasses, 'h-11 pl-7 tabular-nums')}
                />
              </div>
              <p id={`${id}-spend-hint`} className="mt-1.5 text-xs text-gray-500">
                Dollars per day for all visitors together, e.g. 5.00. Empty: no limit.
              </p>
            </div>
          </div>
          <div className="flex items-start gap-3">
            <input
              id={`${id}-pow`}
              type="checkbox"
              checked={form.proofOfWork}
              aria-describedby={`${id}-pow-hint`}
              onChange={(e) => change({ proofOfWork: e.target.checked })}
              className={checkboxClasses}
            />
            <div className="text-sm">
              <label htmlFor={`${id}-pow`} className="block font-medium text-gray-800">
                Ask new visitors for an invisible proof-of-work check
              </label>
              <p id={`${id}-pow-hint`} className="text-gray-500">
                Before a new conversation's first message the visitor's browser solves a small puzzle, unseen, so scripted floods cost the
                sender time.
              </p>
            </div>
          </div>
          <div className="flex justify-end border-t border-gray-100 pt-5">
            <Button type="submit" disabled={!dirty} busy={loading} busyLabel="Saving...">
              Save Limits
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
