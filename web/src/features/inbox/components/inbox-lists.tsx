import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import type { InboxItemFieldsFragment } from '../../../gql/graphql';
import { ChannelBadge } from '../../../components/channel-badge';
import { Badge } from '../../../components/ui/badge';
import { cn } from '../../../lib/cn';
import { countByReason, reasonLabel, REASON_FILTER_OPTIONS, withReason } from '../../../lib/reasons';
import { SelectField } from '../../../components/ui/select-field';
import { visitorLabel, waitedFor } from '../inbox-lists';

type Item = InboxItemFieldsFragment;

/** The time now, moving on every `everyMs`, so waiting times count up on their own. */
function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

function Row({ item, selected, detail }: { item: Item; selected: boolean; detail: string }) {
  return (
    <li>
      <Link
        to={`/inbox/${item.conversationId}`}
        aria-current={selected ? 'page' : undefined}
        className={cn(
          'block rounded-xl px-3 py-2.5 transition-colors focus-visible:outline-2 focus-visible:outline-brand-500',
          selected ? 'bg-brand-50 ring-1 ring-brand-200' : 'hover:bg-gray-50',
        )}
      >
        <span className="flex items-baseline justify-between gap-2">
          <span className="flex min-w-0 items-center gap-1.5">
            <span className="truncate text-sm font-medium text-gray-900">{visitorLabel(item)}</span>
            <ChannelBadge channel={item.channel} />
            {item.verifiedUserId ? (
              <span title={`Verified as ${item.verifiedUserId}`}>
                <Badge tone="success">Verified</Badge>
              </span>
            ) : null}
          </span>
          <span className="shrink-0 text-xs text-gray-600">{detail}</span>
        </span>
        {item.reason ? <span className="mt-0.5 block text-xs font-medium text-brand-700">{reasonLabel(item.reason)}</span> : null}
        {/* What the visitor last wrote: what an agent answers, whoever wrote last. */}
        <span className="mt-0.5 block truncate text-sm text-gray-600" title={item.lastVisitorMessage ?? undefined}>
          {item.lastVisitorMessage ?? 'No message yet'}
        </span>
      </Link>
    </li>
  );
}

function List({
  title,
  items,
  empty,
  children,
}: {
  title: string;
  items: Item[];
  empty: string;
  children: (item: Item) => React.ReactNode;
}) {
  const id = `inbox-list-${title.toLowerCase()}`;
  return (
    <section aria-labelledby={id}>
      <div className="flex items-center gap-2 px-3">
        <h2 id={id} className="text-sm font-semibold text-gray-900">
          {title}
        </h2>
        <Badge tone={title === 'Waiting' && items.length ? 'warning' : 'neutral'}>{items.length}</Badge>
      </div>
      {items.length ? (
        <ul className="mt-2 space-y-1">{items.map(children)}</ul>
      ) : (
        <p className="mt-2 px-3 text-sm text-gray-500">{empty}</p>
      )}
    </section>
  );
}

/**
 * The two live lists: "Waiting" with how long each visitor has waited (counting up), and "Open" with
 * who handles each; `showAllOpen` is for owners and admins, the others see the conversations they have.
 */
export function InboxLists({
  waiting,
  open,
  selectedId,
  userId,
  showAllOpen,
}: {
  waiting: Item[];
  open: Item[];
  selectedId: string | undefined;
  userId: string | undefined;
  showAllOpen: boolean;
}) {
  const now = useNow(10_000);
  const [reason, setReason] = useState('');
  const mine = showAllOpen ? open : open.filter((item) => item.assigneeId === userId);
  const shownWaiting = withReason(waiting, reason);
  const shownOpen = withReason(mine, reason);
  const counts = countByReason([...waiting, ...mine].filter((item) => item.reason));
  return (
    <div className="space-y-6">
      <div className="px-3">
        <SelectField
          label="Why they asked for a person"
          name="inbox-reason"
          controlClassName="h-9 text-sm"
          value={reason}
          options={REASON_FILTER_OPTIONS.map((o) => {
            const n = counts.find((c) => c.code === o.value)?.count;
            return n ? { ...o, label: `${o.label} (${n})` } : o;
          })}
          onChange={(e) => setReason(e.target.value)}
        />
      </div>
      <List title="Waiting" items={shownWaiting} empty={reason ? 'Nobody waiting for this reason.' : 'Nobody is waiting for a person.'}>
        {(item) => (
          <Row
            key={item.conversationId}
            item={item}
            selected={item.conversationId === selectedId}
            detail={`waiting ${waitedFor(item.waitingSince, now)}`}
          />
        )}
      </List>
      <List title="Open" items={shownOpen} empty={showAllOpen ? 'No agent has a conversation open.' : 'You have no conversation open.'}>
        {(item) => (
          <Row
            key={item.conversationId}
            item={item}
            selected={item.conversationId === selectedId}
            detail={item.assigneeId === userId ? 'You' : (item.agentName ?? '')}
          />
        )}
      </List>
    </div>
  );
}
