import { useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { TextareaField } from '../../../components/ui/textarea-field';

/** A textarea and its button; the text stays when sending fails, and is cleared once it is stored. */
export function MessageForm({
  label,
  button,
  hint,
  busy,
  disabled = false,
  tone = 'primary',
  onSend,
}: {
  label: string;
  button: string;
  hint?: string;
  busy: boolean;
  disabled?: boolean;
  tone?: 'primary' | 'secondary';
  onSend: (content: string) => Promise<boolean>;
}) {
  const [text, setText] = useState('');
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!text.trim()) return;
    if (await onSend(text)) setText('');
  }
  return (
    <form onSubmit={submit} className="space-y-2">
      <TextareaField
        label={label}
        hint={hint}
        rows={2}
        value={text}
        disabled={disabled}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) void submit(e);
        }}
      />
      <div className="flex justify-end">
        <Button type="submit" variant={tone} size="sm" busy={busy} disabled={disabled || !text.trim()}>
          {button}
        </Button>
      </div>
    </form>
  );
}
