import { Button } from '../../../components/ui/button';
import { strokeIconProps } from '../../../components/ui/icon-props';
import { Spinner } from '../../../components/ui/spinner';
import { Switch } from '../../../components/ui/switch';
import type { KnowledgeBaseFieldsFragment } from '../../../gql/graphql';
import { cn } from '../../../lib/cn';
import { formatDate } from '../../../lib/format';
import { useWebsiteEntryActions } from '../hooks/use-website-entry-actions';
import { formatRelativeTime } from '../relative-time';

export type TextEntry = KnowledgeBaseFieldsFragment['textEntries'][number];

const pill = 'inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset';

/** Processing (with a spinner), Ready or Failed. */
function StatusPill({ status }: { status: string }) {
  if (status === 'processing')
    return (
      <span className={cn(pill, 'bg-amber-50 text-amber-800 ring-amber-200')}>
        <Spinner className="size-3" />
        Processing
      </span>
    );
  if (status === 'failed') return <span className={cn(pill, 'bg-red-50 text-red-700 ring-red-200')}>Failed</span>;
  return <span className={cn(pill, 'bg-green-50 text-green-700 ring-green-200')}>Ready</span>;
}

/** A page's address without the scheme, short enough for a badge. */
function displayUrl(url: string): string {
  return url.replace(/^https?:\/\//, '').replace(/\/$/, '');
}

/** Where the entry came from: Text, the file's name, the page (a link) or Q&A. */
function SourceBadge({ source }: { source: TextEntry['source'] }) {
  const badge = cn(pill, 'max-w-full bg-gray-100 text-gray-700 ring-gray-200');
  if (source.type === 'file')
    return (
      <span className={badge} title={source.name ?? undefined}>
        <svg {...strokeIconProps} className="size-3.5 shrink-0">
          <path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z" />
          <path d="M14 3v5h5" />
        </svg>
        <span className="truncate">{source.name ?? 'File'}</span>
      </span>
    );
  if (source.type === 'url' && source.url)
    return (
      <a
        href={source.url}
        target="_blank"
        rel="noopener noreferrer"
        className={cn(badge, 'bg-brand-50 text-brand-700 ring-brand-200 hover:underline')}
        title={source.url}
      >
        <svg {...strokeIconProps} className="size-3.5 shrink-0">
          <circle cx="12" cy="12" r="9" />
          <path d="M3 12h18M12 3a14 14 0 0 1 0 18M12 3a14 14 0 0 0 0 18" />
        </svg>
        <span className="truncate">{displayUrl(source.url)}</span>
        <span className="sr-only">(opens in a new tab)</span>
      </a>
    );
  if (source.type === 'qa') return <span className={cn(badge, 'bg-violet-50 text-violet-700 ring-violet-200')}>Q&amp;A</span>;
  return <span className={badge}>Text</span>;
}

/** "Last checked 5 minutes ago — updated", Refresh and the daily Auto-sync switch of a website entry. */
function WebsiteControls({ chatbotId, entry }: { chatbotId: string; entry: TextEntry }) {
  const { refresh, refreshing, setAutoSync, savingAutoSync, error } = useWebsiteEntryActions(chatbotId, entry.id);
  const processing = entry.status === 'processing';
  const change = entry.lastSyncChanged === null ? '' : entry.lastSyncChanged ? ' — updated' : ' — unchanged';

  return (
    <div className="mt-3 space-y-2 border-t border-gray-100 pt-3">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-xs text-gray-500">
          {entry.lastSyncedAt ? (
            <>
              Last checked <time dateTime={entry.lastSyncedAt}>{formatRelativeTime(entry.lastSyncedAt)}</time>
              {change}
            </>
          ) : (
            'Not checked yet'
          )}
        </p>
        <div className="flex items-center gap-4">
          <Button variant="secondary" size="sm" onClick={() => void refresh()} disabled={processing} busy={refreshing}>
            Refresh
          </Button>
          <Switch label="Auto-sync daily" checked={entry.autoSync} onChange={(on) => void setAutoSync(on)} disabled={savingAutoSync} />
        </div>
      </div>
      {error ? (
        <p role="alert" className="text-xs text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}

interface TextEntryItemProps {
  chatbotId: string;
  entry: TextEntry;
  onDelete: () => void;
  deleting: boolean;
  deleteDisabled: boolean;
}

/** One knowledge entry: its source and status, what it holds, and for a website how fresh it is. */
export function TextEntryItem({ chatbotId, entry, onDelete, deleting, deleteDisabled }: TextEntryItemProps) {
  const isQa = entry.source.type === 'qa';
  return (
    <li className="rounded-xl border border-gray-200 p-4">
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0 flex-1">
          <div className="flex min-w-0 flex-wrap items-center gap-2">
            <SourceBadge source={entry.source} />
            <StatusPill status={entry.status} />
          </div>
          <h4 className="mt-2 text-sm font-medium break-words text-gray-900">{isQa ? (entry.question ?? entry.title) : entry.title}</h4>
          <p className="mt-0.5 text-xs text-gray-500">{formatDate(entry.createdAt)}</p>
        </div>
        <Button
          variant="ghost"
          size="sm"
          className="shrink-0 text-red-600 hover:bg-red-50 hover:text-red-700"
          onClick={onDelete}
          disabled={deleteDisabled}
          busy={deleting}
        >
          Delete
        </Button>
      </div>
      {entry.status === 'failed' && entry.error ? <p className="mt-2 text-sm text-red-700">{entry.error}</p> : null}
      {isQa ? (
        <p className="mt-2 line-clamp-4 text-sm whitespace-pre-wrap break-words text-gray-700">
          <span className="font-semibold text-gray-500">Answer: </span>
          {entry.content}
        </p>
      ) : entry.content ? (
        <p className="mt-2 line-clamp-4 text-sm whitespace-pre-wrap break-words text-gray-700">{entry.content}</p>
      ) : null}
      {entry.source.type === 'url' ? <WebsiteControls chatbotId={chatbotId} entry={entry} /> : null}
    </li>
  );
}
