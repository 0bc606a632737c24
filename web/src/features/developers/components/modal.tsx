import { useEffect, useId, useRef, type ReactNode } from 'react';
import { cn } from '../../../lib/cn';

const FOCUSABLE = 'input, button, select, textarea, a[href]';

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
 * on close, kept inside it by Tab, Escape and the backdrop close it. Fits a phone: full width less a margin, scrolling inside.
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
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && onClose) onClose();
      // Tab and Shift+Tab go round the dialog's own controls, never to the page behind it.
      if (event.key !== 'Tab' || !panel.current) return;
      const focusable = [...panel.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !el.hasAttribute('disabled'));
      const first = focusable[0];
      const last = focusable[focusable.length - 1];
      if (!first || !last) return;
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
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
