import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { cn } from '../../lib/cn';
import type { ChatSource } from './chat-sources';
import { ChevronDownIcon, DocumentIcon, ExternalLinkIcon } from './source-icons';

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/**
 * What an answer drew on, under its bubble: a compact "Sources (n)" toggle opening a numbered list
 * whose numbers match the badges in the answer. Web pages are links (a new tab); files and Q&A
 * answers are named only, since the visitor cannot open them. `actions` (the thumbs) sit beside the toggle.
 */
export function MessageSources({ sources, actions }: { sources: ChatSource[]; actions?: ReactNode }) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  const list = useRef<HTMLOListElement>(null);

  // The last answer's list opens below the fold: bring it into view (jsdom has no scrollIntoView).
  useEffect(() => {
    if (open) list.current?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  }, [open]);

  return (
    <div className="mt-1.5">
      <div className="flex flex-wrap items-center gap-1">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={listId}
          onClick={() => setOpen((current) => !current)}
          className="inline-flex items-center gap-1 rounded-full px-2 py-1 text-xs font-medium text-gray-500 transition-colors hover:bg-gray-100 hover:text-gray-800"
        >
          <DocumentIcon className="size-3.5" />
          Sources ({sources.length})
          <ChevronDownIcon className={cn('size-3.5 transition-transform', open && 'rotate-180')} />
        </button>
        {actions}
      </div>
      <ol
        ref={list}
        id={listId}
        hidden={!open}
        aria-label="Sources"
        className="mt-0.5 space-y-0.5 border-l-2 border-gray-200 pl-2 text-[13px]"
      >
        {sources.map((source, index) => (
          <li key={index} className="flex min-w-0 items-center gap-2 px-1 py-1">
            <span
              aria-hidden="true"
              className="inline-flex size-5 shrink-0 items-center justify-center rounded-full bg-brand-50 text-[11px] font-semibold text-brand-700 tabular-nums ring-1 ring-brand-200 ring-inset"
            >
              {index + 1}
            </span>
            <span className="sr-only">{`${index + 1}. `}</span>
            {source.url ? (
              <a
                href={source.url}
                target="_blank"
                rel="noopener noreferrer"
                className="group inline-flex min-w-0 items-center gap-1.5 font-medium text-brand-700 hover:text-brand-800"
              >
                <span className="truncate underline decoration-brand-300 underline-offset-2 group-hover:decoration-brand-600">
                  {source.title}
                </span>
                <span className="hidden shrink-0 text-xs font-normal text-gray-500 sm:inline">{hostOf(source.url)}</span>
                <ExternalLinkIcon className="size-3.5 shrink-0 text-gray-400" />
              </a>
            ) : (
              <span className="min-w-0 truncate text-gray-700">{source.title}</span>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}
