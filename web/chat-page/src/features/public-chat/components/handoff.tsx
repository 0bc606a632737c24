// What the visitor sees of handoff (docs/product.md, Talking to a person): the "Talk to a person"
// button, the banner while a person is asked for or answering, a person's bubbles with their name,
// the product's notices, and the email asked for when nobody was free.
import { useId, useState, type FormEvent } from 'react';
import { chatbotInitials } from '../../../components/chatbots/chatbot-avatar';
import { Button } from '../../../components/ui/button';
import { Spinner } from '../../../components/ui/spinner';
import { strokeIconProps } from '../../../components/ui/icon-props';
import { cn } from '../../../lib/cn';
import type { HandoffState } from '../api/handoff-api';
import { LEAD_FAILED_MESSAGE, LeadError, submitEmailLead } from '../lead-form/lead-api';

export const TALK_TO_A_PERSON = 'Talk to a person';

function PersonIcon({ className = 'size-4' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <circle cx="12" cy="8" r="3.5" />
      <path d="M5 20a7 7 0 0 1 14 0" />
    </svg>
  );
}

interface TalkToPersonProps {
  onRequest: () => void;
  requesting: boolean;
  error: string | null;
  className?: string;
}

/** The visitor asks for a person. */
export function TalkToPersonButton({ onRequest, requesting, error, className }: TalkToPersonProps) {
  return (
    <div className={cn('flex flex-wrap items-center gap-x-3 gap-y-1', className)}>
      <button
        type="button"
        onClick={onRequest}
        disabled={requesting}
        className="inline-flex items-center gap-1.5 rounded-full border border-brand-200 bg-white px-3.5 py-1.5 text-sm font-medium text-brand-700 shadow-xs transition-colors hover:border-brand-300 hover:bg-brand-50 active:bg-brand-100 disabled:cursor-not-allowed disabled:opacity-60"
      >
        {requesting ? <Spinner className="size-3.5" /> : <PersonIcon />}
        {TALK_TO_A_PERSON}
      </button>
      {error ? (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The bot's offer under an answer it could not give (or when the visitor asked for a person). */
export function HandoffOffer(props: TalkToPersonProps) {
  return (
    <div className="mt-2 rounded-xl border border-brand-100 bg-brand-50/60 px-3 py-2.5">
      <p className="mb-2 text-sm text-gray-700">Would you like to talk to a person?</p>
      <TalkToPersonButton {...props} />
    </div>
  );
}

/** Under the header while a person is asked for ("Waiting for a person…") or answering ("{agentName} is answering"). */
export function HandoffBanner({ state }: { state: HandoffState }) {
  if (state.status !== 'waiting' && state.status !== 'human') return null;
  const waiting = state.status === 'waiting';
  return (
    <div role="status" className="shrink-0 border-b border-brand-100 bg-brand-50">
      <div className="mx-auto flex w-full max-w-3xl items-center gap-2 px-4 py-2 text-sm font-medium text-brand-800 sm:px-6">
        {waiting ? (
          <Spinner className="size-3.5 text-brand-600" />
        ) : (
          <span aria-hidden="true" className="size-2 rounded-full bg-green-500" />
        )}
        <span>{waiting ? 'Waiting for a person…' : `${state.agentName ?? 'A person'} is answering`}</span>
      </div>
    </div>
  );
}

/** A person's reply: their initials and name over the bubble. */
export function AgentBubble({ name, content }: { name: string; content: string }) {
  return (
    <div data-testid="agent-message" className="flex items-start gap-2.5 pr-6 sm:pr-16">
      <span
        aria-hidden="true"
        className="mt-6 inline-flex size-8 shrink-0 items-center justify-center rounded-full bg-emerald-100 text-xs font-semibold text-emerald-800"
      >
        {chatbotInitials(name)}
      </span>
      <div className="min-w-0">
        <p className="mb-1 text-xs font-medium text-gray-600">{name}</p>
        <div className="rounded-2xl rounded-bl-md border border-emerald-200 bg-white px-4 py-2.5 text-[15px] leading-6 whitespace-pre-wrap break-words text-gray-800 shadow-xs">
          <span className="sr-only">{name}: </span>
          {content}
        </div>
      </div>
    </div>
  );
}

/** A notice of the product's (a wait that ran out), centred between the bubbles. */
export function SystemNotice({ content }: { content: string }) {
  return (
    <p data-testid="system-message" className="mx-auto max-w-md px-4 text-center text-sm leading-5 text-gray-600">
      {content}
    </p>
  );
}

interface TimeoutEmailFormProps {
  uniqueId: string;
  sessionId: string;
  embedded: boolean;
}

/** The email left when nobody was free: a lead with source handoff_timeout. */
export function TimeoutEmailForm({ uniqueId, sessionId, embedded }: TimeoutEmailFormProps) {
  const id = useId();
  const [email, setEmail] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const address = email.trim();
    if (!address || sending) return;
    setSending(true);
    setError(null);
    try {
      await submitEmailLead({ uniqueId, sessionId, email: address, embedded });
      setSent(address);
    } catch (failure) {
      setError(failure instanceof LeadError ? failure.message : LEAD_FAILED_MESSAGE);
    } finally {
      setSending(false);
    }
  }

  if (sent) {
    return (
      <p role="status" className="mx-auto max-w-md px-4 text-center text-sm text-gray-600">
        Thanks! We will get back to you at <span className="font-medium text-gray-800">{sent}</span>.
      </p>
    );
  }
  return (
    <form onSubmit={submit} className="mx-auto w-full max-w-md rounded-xl border border-gray-200 bg-white p-3 shadow-xs" noValidate>
      <label htmlFor={id} className="mb-1.5 block text-sm font-medium text-gray-800">
        Your email
      </label>
      <div className="flex gap-2">
        <input
          id={id}
          type="email"
          autoComplete="email"
          inputMode="email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          placeholder="you@example.com"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          className="h-10 min-w-0 flex-1 rounded-lg border border-gray-300 px-3 text-[15px] text-gray-900 shadow-xs placeholder:text-gray-400 focus:border-brand-500 focus:ring-3 focus:ring-brand-500/20 focus:outline-none"
        />
        <Button type="submit" busy={sending} disabled={!email.trim()}>
          Send
        </Button>
      </div>
      {error ? (
        <p id={`${id}-error`} role="alert" className="mt-1.5 text-sm text-red-600">
          {error}
        </p>
      ) : null}
    </form>
  );
}
