import { useEffect, useId, useRef, type ReactNode } from 'react';
import { cn } from '../../../lib/cn';

interface ModalProps {
  title: string;
  description?: ReactNode;
  /** Escape and the backdrop call it; omitted while the dialog must stay open (a secret not yet acknowledged). */
  onClose?: () => void;
  children: ReactNode;
  className?: string;
}

/**
 * A modal dialog over the page: labelled by its title, focus moved into it on open and given back
 * on close, Escape and the backdrop close it. Fits a phone: full width less a margin, scrolling inside.
 */
export function Modal({ title, description, onClose, children, className }: ModalProps) {
  const titleId = useId();
  const descriptionId = useId();
  const panel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const first = panel.current?.querySelector<HTMLElement>('[data-autofocus], input, button, select, textarea, a[href]');
    (first ?? panel.current)?.focus();
    return () => previous?.focus?.();
  }, []);

  useEffect(() => {
    if (!onClose) return;
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', closeOnEscape);
    return () => document.removeEventListener('keydown', closeOnEscape);
  }, [onClose]);

  return (
    <div className="fixed inset-0 z-50 flex items-end justify-center bg-gray-900/40 p-3 sm:items-center sm:p-6" onClick={onClose}>
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={description ? descriptionId : undefined}
        tabIndex={-1}
        className={cn(
          'max-h-[calc(100dvh-1.5rem)] w-full max-w-lg overflow-y-auto rounded-2xl bg-white shadow-xl focus:outline-none',
          className,
        )}
        onClick={(event) => event.stopPropagation()}
      >
        <div className="border-b border-gray-100 px-5 py-4 sm:px-6">
          <h2 id={titleId} className="text-base font-semibold text-gray-900">
            {title}
          </h2>
          {description ? (
            <p id={descriptionId} className="mt-1 text-sm text-gray-600">
              {description}
            </p>
          ) : null}
        </div>
        <div className="px-5 py-4 sm:px-6">{children}</div>
      </div>
    </div>
  );
}
