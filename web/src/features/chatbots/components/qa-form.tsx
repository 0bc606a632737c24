import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { TextareaField } from '../../../components/ui/textarea-field';
import { MAX_QUESTION_CHARS, useAddQaEntry } from '../hooks/use-add-qa-entry';

/** An exact answer the owner writes; when a visitor asks this question (or close to it) it is used word for word. */
export function QaForm({ chatbotId }: { chatbotId: string }) {
  const { addQa, loading, error, success } = useAddQaEntry(chatbotId);
  const [question, setQuestion] = useState('');
  const [answer, setAnswer] = useState('');
  const incomplete = !question.trim() || !answer.trim();

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (incomplete) return;
    if (await addQa(question, answer)) {
      setQuestion('');
      setAnswer('');
    }
  }

  return (
    <form onSubmit={handleSubmit} className="space-y-5" noValidate>
      {error ? <Alert>{error}</Alert> : null}
      {success ? <Alert tone="success">{success}</Alert> : null}
      <TextField
        label="Question"
        name="question"
        autoComplete="off"
        maxLength={MAX_QUESTION_CHARS}
        placeholder="What are your opening hours?"
        value={question}
        onChange={(e) => setQuestion(e.target.value)}
      />
      <TextareaField
        label="Answer"
        name="answer"
        rows={4}
        placeholder="We are open Monday to Friday, 9 am to 6 pm."
        hint="Visitors who ask this question, or something very close, get this answer word for word."
        value={answer}
        onChange={(e) => setAnswer(e.target.value)}
      />
      <div className="flex justify-end">
        <Button type="submit" disabled={incomplete} busy={loading} busyLabel="Adding...">
          Add Q&amp;A
        </Button>
      </div>
    </form>
  );
}
