import { useRef, useState, type ReactNode } from 'react';
import { cn } from '../../../lib/cn';
import { FEEDBACK_FAILED_MESSAGE } from '../api/public-chat-api';
import type { ChatRating } from '../chat-storage';
import { ThumbDownIcon, ThumbUpIcon } from './chat-icons';

interface MessageFeedbackProps {
  /** The visitor's current thumbs on this answer. */
  rating?: ChatRating;
  /** Rates the answer (the new rating shows at once); resolves to whether the server kept it. */
  onRate: (rating: ChatRating) => Promise<boolean>;
}

type Status = 'idle' | 'saving' | 'saved' | 'failed';

const STATUS_TEXT: Record<Status, string> = {
  idle: '',
  saving: '',
  saved: 'Thanks for the feedback',
  failed: FEEDBACK_FAILED_MESSAGE,
};

/**
 * Thumbs up / down under an answer. The choice can be changed; one save at a time, so a
 * late failure can never undo a newer choice. The outcome is a short line the screen reader reads too.
 */
export function MessageFeedback({ rating, onRate }: MessageFeedbackProps) {
  const [status, setStatus] = useState<Status>('idle');
  // A ref as well as state: two quick clicks must not start two saves before React re-renders.
  const savingRef = useRef(false);

  async function choose(next: ChatRating) {
    if (savingRef.current || next === rating) return;
    savingRef.current = true;
    setStatus('saving');
    const saved = await onRate(next);
    savingRef.current = false;
    setStatus(saved ? 'saved' : 'failed');
  }

  return (
    <div
      role="group"
      aria-label="Rate this answer"
      aria-busy={status === 'saving' || undefined}
      className="inline-flex items-center gap-0.5"
    >
      <ThumbButton label="Good answer" pressed={rating === 'up'} onClick={() => void choose('up')}>
        <ThumbUpIcon className="size-3.5" />
      </ThumbButton>
      <ThumbButton label="Bad answer" pressed={rating === 'down'} onClick={() => void choose('down')}>
        <ThumbDownIcon className="size-3.5" />
      </ThumbButton>
      <span aria-live="polite" className={cn('ml-1 text-xs', status === 'failed' ? 'text-red-600' : 'text-gray-500')}>
        {STATUS_TEXT[status]}
      </span>
    </div>
  );
}

function ThumbButton({ label, pressed, onClick, children }: { label: string; pressed: boolean; onClick: () => void; children: ReactNode }) {
  return (
    <button
      type="button"
      aria-label={label}
      aria-pressed={pressed}
      title={label}
      onClick={onClick}
      className={cn(
        'inline-flex size-7 items-center justify-center rounded-full transition-colors',
        'focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-500',
        pressed ? 'bg-brand-50 text-brand-700 ring-1 ring-brand-200 ring-inset' : 'text-gray-500 hover:bg-gray-100 hover:text-gray-700',
      )}
    >
      {children}
    </button>
  );
}
