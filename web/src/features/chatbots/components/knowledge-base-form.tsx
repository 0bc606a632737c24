import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { cn } from '../../../lib/cn';
import { FileUploadForm } from './file-upload-form';
import { QaForm } from './qa-form';
import { TextEntryForm } from './text-entry-form';
import { WebsiteForm } from './website-form';

type KnowledgeSource = 'text' | 'file' | 'website' | 'qa';

const sources: ReadonlyArray<{ id: KnowledgeSource; label: string }> = [
  { id: 'text', label: 'Text' },
  { id: 'file', label: 'File' },
  { id: 'website', label: 'Website' },
  { id: 'qa', label: 'Q&A' },
];

/**
 * The ways to add knowledge, one segment each: typed text, a document, a website, a Q&A pair. Every
 * form stays mounted, so a half-typed answer survives a look at another segment.
 */
export function KnowledgeBaseForm({ chatbotId }: { chatbotId: string }) {
  const [active, setActive] = useState<KnowledgeSource>('text');
  const baseId = useId();
  const tabRefs = useRef<Partial<Record<KnowledgeSource, HTMLButtonElement | null>>>({});

  // Arrow keys move between the segments, as in any tab list.
  function handleKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const index = sources.findIndex((s) => s.id === active);
    const next = sources[(index + step + sources.length) % sources.length].id;
    setActive(next);
    tabRefs.current[next]?.focus();
  }

  const panels: Record<KnowledgeSource, ReactNode> = {
    text: <TextEntryForm chatbotId={chatbotId} />,
    file: <FileUploadForm chatbotId={chatbotId} />,
    website: <WebsiteForm chatbotId={chatbotId} />,
    qa: <QaForm chatbotId={chatbotId} />,
  };

  return (
    <Card>
      <CardHeader
        title="Knowledge Base"
        description="Your chatbot answers from the text, documents, websites and Q&A pairs you add here."
      />
      <CardBody className="space-y-5">
        <div
          role="tablist"
          aria-label="Knowledge source"
          onKeyDown={handleKeyDown}
          className="grid grid-cols-4 gap-1 rounded-xl bg-gray-100 p-1 sm:inline-grid sm:w-auto"
        >
          {sources.map(({ id, label }) => {
            const selected = id === active;
            return (
              <button
                key={id}
                ref={(element) => {
                  tabRefs.current[id] = element;
                }}
                type="button"
                role="tab"
                id={`${baseId}-${id}-tab`}
                aria-selected={selected}
                aria-controls={`${baseId}-${id}-panel`}
                tabIndex={selected ? 0 : -1}
                onClick={() => setActive(id)}
                className={cn(
                  'rounded-lg px-4 py-1.5 text-sm font-medium transition-colors',
                  'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500',
                  selected ? 'bg-white text-gray-900 shadow-sm ring-1 ring-gray-200' : 'text-gray-600 hover:text-gray-900',
                )}
              >
                {label}
              </button>
            );
          })}
        </div>
        {sources.map(({ id }) => (
          <div key={id} role="tabpanel" id={`${baseId}-${id}-panel`} aria-labelledby={`${baseId}-${id}-tab`} hidden={id !== active}>
            {panels[id]}
          </div>
        ))}
      </CardBody>
    </Card>
  );
}
