import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { cn } from '../../../lib/cn';
import { CHAT_FIELD_ID } from '../hooks/use-embed-host';
import { SendIcon } from './chat-icons';

interface ChatComposerProps {
  /** Resolves to true once the message was sent; the typed text is then cleared. */
  onSend: (text: string) => Promise<boolean> | boolean;
  /** While a reply is pending the field and the button are disabled (docs/product.md, Public chat). */
  pending: boolean;
}

export function ChatComposer({ onSend, pending }: ChatComposerProps) {
  const [text, setText] = useState('');
  const field = useRef<HTMLTextAreaElement>(null);
  const wasPending = useRef(pending);

  // A disabled field loses focus; give it back when the answer is in, so the visitor can type on.
  useEffect(() => {
    if (wasPending.current && !pending) field.current?.focus();
    wasPending.current = pending;
  }, [pending]);

  function submit() {
    // The field's own value: a key pressed right after the text changed (a fast typist, a phone's
    // autocomplete) may arrive before React has rendered that text into `text`.
    const sent = field.current?.value ?? text;
    if (pending || !sent.trim()) return;
    setText('');
    void onSend(sent);
  }

  function handleSubmit(event: FormEvent) {
    event.preventDefault();
    submit();
  }

  // Enter sends, Shift+Enter starts a new line; Enter that confirms an IME composition does neither.
  function handleKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  }

  const canSend = !pending && text.trim() !== '';

  return (
    <form onSubmit={handleSubmit} className="mx-auto flex w-full max-w-3xl items-end gap-2 px-4 py-3 sm:px-6 sm:py-4">
      <label htmlFor={CHAT_FIELD_ID} className="sr-only">
        Message
      </label>
      <textarea
        ref={field}
        id={CHAT_FIELD_ID}
        rows={1}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={handleKeyDown}
        disabled={pending}
        placeholder="Type your message..."
        autoComplete="off"
        enterKeyHint="send"
        className={cn(
          'field-sizing-content block max-h-36 min-h-11 w-full flex-1 resize-none rounded-2xl border border-gray-300 bg-white px-4 py-2.5',
          'text-[15px] leading-6 text-gray-900 shadow-xs transition-colors placeholder:text-gray-400',
          'focus:border-brand-500 focus:ring-3 focus:ring-brand-500/20 focus:outline-none',
          'disabled:cursor-not-allowed disabled:bg-gray-50 disabled:text-gray-500',
        )}
      />
      <button
        type="submit"
        disabled={!canSend}
        aria-label="Send message"
        title="Send"
        className={cn(
          'inline-flex size-11 shrink-0 items-center justify-center rounded-full bg-brand-600 text-[var(--color-on-brand,#fff)] shadow-sm transition-colors',
          'hover:bg-brand-700 disabled:cursor-not-allowed disabled:bg-gray-200 disabled:text-gray-400 disabled:shadow-none',
        )}
      >
        <SendIcon />
      </button>
    </form>
  );
}
