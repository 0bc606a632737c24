// Where a conversation belongs in the inbox's lists, as the chat service orders them: waiting
// longest first, open most recent first; bot and closed conversations leave the inbox. Pure, so the
// live stream's updates and the tests agree.
import type { InboxItemFieldsFragment } from '../../gql/graphql';

type Item = InboxItemFieldsFragment;

const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : 0);

export function placeItem(lists: { waiting: Item[]; open: Item[] }, item: Item): { waiting: Item[]; open: Item[] } {
  const withTypename = { __typename: 'InboxItem' as const, ...item };
  const waiting = lists.waiting.filter((i) => i.conversationId !== item.conversationId);
  const open = lists.open.filter((i) => i.conversationId !== item.conversationId);
  if (item.status === 'WAITING') {
    waiting.push(withTypename);
    waiting.sort((a, b) => time(a.waitingSince) - time(b.waitingSince));
  } else if (item.status === 'HUMAN') {
    open.push(withTypename);
    open.sort((a, b) => time(b.lastMessageAt ?? b.waitingSince) - time(a.lastMessageAt ?? a.waitingSince));
  }
  return { waiting, open };
}

/** "3 min", "1 h 5 min", "just now": how long a visitor has waited, as the list shows it. */
export function waitedFor(since: string | null | undefined, now: number): string {
  if (!since) return '';
  const seconds = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (seconds < 60) return seconds < 10 ? 'just now' : `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

/** The visitor as a row names them: their name, else their email, else "Visitor". */
export const visitorLabel = (item: Pick<Item, 'visitorName' | 'visitorEmail'>) => item.visitorName || item.visitorEmail || 'Visitor';
