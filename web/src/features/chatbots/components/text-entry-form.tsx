import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextareaField } from '../../../components/ui/textarea-field';
import { useAddTextEntry } from '../hooks/use-add-text-entry';

/** Adds a block of text to the chatbot's knowledge base; empty text cannot be submitted. */
export function TextEntryForm({ chatbotId }: { chatbotId: string }) {
  const { addText, loading, error, success } = useAddTextEntry(chatbotId);
  const [text, setText] = useState('');
  const isEmpty = !text.trim();

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (isEmpty) return;
    if (await addText(text)) setText('');
  }

  return (
    <form onSubmit={handleSubmit} className="space-y-5">
      {error ? <Alert>{error}</Alert> : null}
      {success ? <Alert tone="success">{success}</Alert> : null}
      <TextareaField
        label="Text Content"
        name="text"
        rows={6}
        placeholder="Paste product details, FAQs, policies… anything your chatbot should know."
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <div className="flex justify-end">
        <Button type="submit" disabled={isEmpty} busy={loading} busyLabel="Adding...">
          Add Text
        </Button>
      </div>
    </form>
  );
}
