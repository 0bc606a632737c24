import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { reasonLabel } from '../../../lib/reasons';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { TextareaField } from '../../../components/ui/textarea-field';
import type { UnansweredQuestionFieldsFragment } from '../../../gql/graphql';
import { formatCount, formatDateTime } from '../../../lib/format';
import { MAX_QUESTION_CHARS } from '../hooks/use-add-qa-entry';
import { useAnswerUnansweredQuestion } from '../hooks/use-answer-unanswered-question';
import { useDismissUnansweredQuestion } from '../hooks/use-dismiss-unanswered-question';
import { formatRelativeTime } from '../relative-time';
import { AddToTests } from './answer-actions';

/** How many of the visitors' own wordings a group shows under its question. */
export const EXAMPLES_SHOWN = 3;

export function askedLabel(count: number): string {
  return count === 1 ? 'Asked once' : `Asked ${formatCount(count)} times`;
}

function AnswerForm({ chatbotId, group, onClose }: { chatbotId: string; group: UnansweredQuestionFieldsFragment; onClose: () => void }) {
  const { answerQuestion, loading, error } = useAnswerUnansweredQuestion(chatbotId);
  const [question, setQuestion] = useState(group.question);
  const [answer, setAnswer] = useState('');
  const incomplete = !question.trim() || !answer.trim();

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!incomplete && (await answerQuestion(group.id, question, answer))) onClose();
  }

  return (
    <form
      onSubmit={handleSubmit}
      noValidate
      aria-label={`Answer "${group.question}"`}
      className="mt-4 space-y-4 rounded-xl bg-gray-50 p-4 ring-1 ring-gray-200 ring-inset"
    >
      {error ? <Alert>{error}</Alert> : null}
      <TextField
        label="Question"
        name="question"
        autoComplete="off"
        maxLength={MAX_QUESTION_CHARS}
        value={question}
        onChange={(e) => setQuestion(e.target.value)}
      />
      <TextareaField
        label="Answer"
        name="answer"
        rows={4}
        autoFocus
        hint="Saved as a Q&A pair: visitors who ask this, or something close to it, get this answer word for word."
        value={answer}
        onChange={(e) => setAnswer(e.target.value)}
      />
      <div className="flex justify-end gap-2">
        <Button variant="ghost" size="sm" onClick={onClose} disabled={loading}>
          Cancel
        </Button>
        <Button type="submit" size="sm" disabled={incomplete} busy={loading} busyLabel="Saving...">
          Save answer
        </Button>
      </div>
    </form>
  );
}

/**
 * One group of questions the chatbot could not answer: the question, how often and when it was last
 * asked, a few of the visitors' wordings, and the owner's two ways out: answer it once, or dismiss it.
 */
export function UnansweredQuestionItem({ chatbotId, group }: { chatbotId: string; group: UnansweredQuestionFieldsFragment }) {
  const [answering, setAnswering] = useState(false);
  const { dismissQuestion, loading: dismissing, error: dismissError } = useDismissUnansweredQuestion(chatbotId);
  const open = group.status === 'open';
  const examples = group.examples.filter((example) => example.trim() && example !== group.question).slice(0, EXAMPLES_SHOWN);

  return (
    <li aria-label={group.question} className={open ? 'px-5 py-4' : 'bg-gray-50/60 px-5 py-4'}>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          <p className={open ? 'text-sm font-medium break-words text-gray-900' : 'text-sm font-medium break-words text-gray-500'}>
            {group.question}
          </p>
          <p className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-gray-500">
            <Badge tone="neutral">{askedLabel(group.count)}</Badge>
            <Badge tone="brand">{reasonLabel(group.reason ?? 'missing_knowledge')}</Badge>
            <span title={formatDateTime(group.lastSeen)}>Last asked {formatRelativeTime(group.lastSeen)}</span>
          </p>
        </div>
        {open && !answering ? (
          <div className="flex shrink-0 items-center gap-2">
            <Button size="sm" onClick={() => setAnswering(true)}>
              Answer
            </Button>
            <AddToTests chatbotId={chatbotId} question={group.question} source="analytics" />
            <Button variant="ghost" size="sm" busy={dismissing} busyLabel="Dismissing..." onClick={() => void dismissQuestion(group.id)}>
              Dismiss
            </Button>
          </div>
        ) : null}
        {group.status === 'resolved' ? (
          <Badge tone="success" className="self-start">
            Resolved
          </Badge>
        ) : null}
        {group.status === 'dismissed' ? (
          <Badge tone="neutral" className="self-start">
            Dismissed
          </Badge>
        ) : null}
      </div>
      {examples.length > 0 && open ? (
        <div className="mt-3">
          <p className="text-xs font-medium text-gray-500">Also asked as</p>
          <ul className="mt-1 space-y-1" aria-label="Examples">
            {examples.map((example) => (
              <li key={example} className="border-l-2 border-gray-200 pl-2 text-sm break-words text-gray-600">
                {example}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {group.status === 'resolved' ? (
        <p className="mt-2 text-xs text-green-700">Answered: the answer was added to the Q&amp;A pairs of this chatbot.</p>
      ) : null}
      {dismissError ? <Alert className="mt-3">{dismissError}</Alert> : null}
      {open && answering ? <AnswerForm chatbotId={chatbotId} group={group} onClose={() => setAnswering(false)} /> : null}
    </li>
  );
}
