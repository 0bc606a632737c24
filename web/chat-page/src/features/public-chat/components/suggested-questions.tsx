import { cn } from '../../../lib/cn';

interface SuggestedQuestionsProps {
  questions: string[];
  /** Sends the question as the visitor's message. */
  onPick: (question: string) => void;
  className?: string;
}

/** The owner's suggested questions as chips; one click (or Enter/Space) asks it. */
export function SuggestedQuestions({ questions, onPick, className }: SuggestedQuestionsProps) {
  if (questions.length === 0) return null;
  return (
    <div role="group" aria-label="Suggested questions" className={cn('flex flex-wrap gap-2', className)}>
      {questions.map((question, index) => (
        <button
          key={index}
          type="button"
          onClick={() => onPick(question)}
          className="max-w-full rounded-full border border-brand-200 bg-white px-3.5 py-1.5 text-left text-sm font-medium break-words text-brand-700 shadow-xs transition-colors hover:border-brand-300 hover:bg-brand-50 active:bg-brand-100"
        >
          {question}
        </button>
      ))}
    </div>
  );
}
