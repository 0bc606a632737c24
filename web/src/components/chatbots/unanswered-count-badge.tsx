import { cn } from '../../lib/cn';

export function unansweredCountLabel(count: number): string {
  return `${count} open unanswered ${count === 1 ? 'question' : 'questions'}`;
}

/**
 * On a chatbot's card (the list and the dashboard): how many groups of questions it could not answer
 * are waiting for the owner. Nothing when there are none.
 */
export function UnansweredCountBadge({ count, className }: { count: number; className?: string }) {
  if (count <= 0) return null;
  return (
    <span
      title={unansweredCountLabel(count)}
      className={cn(
        'inline-flex items-center gap-1 rounded-full bg-amber-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-amber-800 ring-1 ring-amber-200 ring-inset',
        className,
      )}
    >
      <span aria-hidden="true" className="size-1.5 rounded-full bg-amber-500" />
      <span aria-hidden="true">{count} unanswered</span>
      <span className="sr-only">{unansweredCountLabel(count)}</span>
    </span>
  );
}
