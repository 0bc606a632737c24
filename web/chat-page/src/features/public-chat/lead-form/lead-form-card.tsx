import { useEffect, useId, useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { cn } from '../../../lib/cn';
import type { Visitor } from '../embed-messages';
import { canSkip, fieldLabels, LEAD_FIELDS, type LeadField, type LeadFormConfig, type LeadValues } from './lead-form-config';
import { LEAD_FAILED_MESSAGE, LeadError } from './lead-api';

const INPUT_TYPES: Record<LeadField, { type: string; autoComplete: string; inputMode?: 'email' | 'tel' }> = {
  name: { type: 'text', autoComplete: 'name' },
  email: { type: 'email', autoComplete: 'email', inputMode: 'email' },
  phone: { type: 'tel', autoComplete: 'tel', inputMode: 'tel' },
};

const fieldClasses =
  'mt-1 block h-10 w-full rounded-lg border border-gray-300 bg-white px-3 text-[15px] text-gray-900 shadow-xs ' +
  'placeholder:text-gray-400 focus:border-brand-500 focus:ring-3 focus:ring-brand-500/20 focus:outline-none';

interface LeadFormCardProps {
  form: LeadFormConfig;
  /** What the host page told of its visitor (Parley.identify): the name and email start filled in. */
  visitor: Visitor | null;
  onSubmit: (values: LeadValues) => Promise<void>;
  onSkip: () => void;
}

/**
 * The lead form, inline in the conversation (docs/product.md, Leads): the fields the owner asks for
 * ("(optional)" on the others), their consent line beside a checkbox, Send, and Skip while nothing
 * is required. A refusal shows under the form in the server's words; the values stay.
 */
export function LeadFormCard({ form, visitor, onSubmit, onSkip }: LeadFormCardProps) {
  const id = useId();
  const [values, setValues] = useState<LeadValues>(() => ({
    name: visitor?.name ?? '',
    email: visitor?.email ?? '',
    phone: '',
    consent: false,
  }));
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const fields = LEAD_FIELDS.filter((field) => form[field] !== 'off');

  // The host page may identify its visitor after the form showed: fill what the visitor left empty.
  useEffect(() => {
    setValues((current) => ({
      ...current,
      name: current.name || visitor?.name || '',
      email: current.email || visitor?.email || '',
    }));
  }, [visitor]);

  async function handleSubmit(event: FormEvent) {
    event.preventDefault();
    // The server checks every rule (required fields, the email, the consent box) in the words shown.
    setSending(true);
    setError(null);
    try {
      await onSubmit(values);
    } catch (failure) {
      setError(failure instanceof LeadError ? failure.message : LEAD_FAILED_MESSAGE);
      setSending(false);
    }
  }

  return (
    <form
      onSubmit={handleSubmit}
      noValidate
      aria-labelledby={`${id}-title`}
      className="ml-[2.625rem] max-w-md rounded-2xl border border-gray-200 bg-white p-4 shadow-xs sm:mr-16"
    >
      <p id={`${id}-title`} className="text-[15px] font-medium text-gray-900">
        Leave your details and we will get back to you.
      </p>
      <div className="mt-3 space-y-3">
        {fields.map((field) => (
          <div key={field}>
            <label htmlFor={`${id}-${field}`} className="text-sm font-medium text-gray-800">
              {fieldLabels[field]}
              {form[field] === 'optional' ? <span className="font-normal text-gray-500"> (optional)</span> : null}
            </label>
            <input
              id={`${id}-${field}`}
              name={field}
              {...INPUT_TYPES[field]}
              required={form[field] === 'required'}
              aria-invalid={error !== null || undefined}
              aria-describedby={error ? `${id}-error` : undefined}
              maxLength={200}
              value={values[field]}
              onChange={(event) => setValues((current) => ({ ...current, [field]: event.target.value }))}
              className={fieldClasses}
            />
          </div>
        ))}
        {form.consentText ? (
          <div className="flex items-start gap-2.5">
            <input
              id={`${id}-consent`}
              type="checkbox"
              checked={values.consent}
              onChange={(event) => setValues((current) => ({ ...current, consent: event.target.checked }))}
              className="mt-0.5 size-4 shrink-0 rounded border-gray-300 accent-brand-600"
            />
            <label htmlFor={`${id}-consent`} className="text-sm break-words text-gray-700">
              {form.consentText}
            </label>
          </div>
        ) : null}
      </div>
      {error ? (
        <p id={`${id}-error`} role="alert" className="mt-3 text-sm font-medium text-red-700">
          {error}
        </p>
      ) : null}
      <div className="mt-4 flex flex-wrap items-center justify-end gap-2">
        {canSkip(form) ? (
          <Button variant="ghost" size="sm" onClick={onSkip} disabled={sending}>
            Skip
          </Button>
        ) : null}
        <Button type="submit" size="sm" busy={sending} className={cn('text-[var(--color-on-brand,#fff)]')}>
          Send
        </Button>
      </div>
    </form>
  );
}

/** What replaces the form once it was sent. */
export function LeadSentNote() {
  return (
    <p role="status" className="ml-[2.625rem] text-sm text-gray-600">
      Thanks! Your details were sent.
    </p>
  );
}
