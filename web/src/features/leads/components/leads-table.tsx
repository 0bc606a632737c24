import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import type { LeadsQuery } from '../../../gql/graphql';
import { ChannelBadge, channelLabel } from '../../../components/channel-badge';
import { formatDate, formatDateTime } from '../../../lib/format';
import { conversationLink, SOURCE_LABELS } from '../leads-filter';

type Lead = LeadsQuery['leads']['leads'][number];

const COLUMNS = ['Date', 'Chatbot', 'Name', 'Email', 'Phone', 'Channel', 'Consent', 'Source', 'Conversation'] as const;

const empty = <span className="text-gray-400">—</span>;

/** The leads, newest first, each with the way to its conversation: a table, and a list on a phone. */
export function LeadsTable({ leads, chatbotNames }: { leads: Lead[]; chatbotNames: ReadonlyMap<string, string> }) {
  return (
    <>
      <LeadsList leads={leads} chatbotNames={chatbotNames} />
      <LeadsGrid leads={leads} chatbotNames={chatbotNames} />
    </>
  );
}

/** A phone's view: one block per lead, the contact first. */
function LeadsList({ leads, chatbotNames }: { leads: Lead[]; chatbotNames: ReadonlyMap<string, string> }) {
  return (
    <ul aria-label="Leads" className="divide-y divide-gray-100 sm:hidden">
      {leads.map((lead) => (
        <li key={lead.id} className="px-6 py-4 text-sm">
          <p className="font-medium break-words text-gray-900">{lead.name ?? lead.email ?? lead.phone}</p>
          {lead.name && lead.email ? <p className="break-all text-gray-700">{lead.email}</p> : null}
          {lead.phone && (lead.name || lead.email) ? <p className="text-gray-700">{lead.phone}</p> : null}
          {lead.channelContact ? (
            <p className="text-gray-700">
              {channelLabel(lead.channel)} {lead.channelContact}
            </p>
          ) : null}
          <p className="mt-1 text-xs text-gray-500">
            {channelLabel(lead.channel)} · {chatbotNames.get(lead.chatbotId) ?? 'Deleted chatbot'} · {formatDateTime(lead.createdAt)} ·{' '}
            {SOURCE_LABELS[lead.source] ?? lead.source}
            {lead.consentText ? ` · ${lead.consented ? 'Agreed' : 'Not agreed'}` : ''}
          </p>
          <Link to={conversationLink(lead)} className="mt-2 inline-block font-medium text-brand-700 hover:text-brand-800 hover:underline">
            Open conversation
          </Link>
        </li>
      ))}
    </ul>
  );
}

const timeFormat = new Intl.DateTimeFormat('en-US', { timeStyle: 'short' });

/** The date over the time, so the column stays narrow. */
function LeadDate({ iso }: { iso: string }) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return empty;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      <span className="block whitespace-nowrap">{formatDate(iso)}</span>
      <span className="block text-xs whitespace-nowrap text-gray-500">{timeFormat.format(date)}</span>
    </time>
  );
}

/** Whether the element's content is wider than it, and whether it is scrolled to its right end; followed as it resizes and scrolls. */
function useSidewaysOverflow<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [state, setState] = useState({ overflows: false, atEnd: true });
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const measure = () => {
      const overflows = el.scrollWidth > el.clientWidth + 1;
      const atEnd = el.scrollLeft + el.clientWidth >= el.scrollWidth - 1;
      setState((before) => (before.overflows === overflows && before.atEnd === atEnd ? before : { overflows, atEnd }));
    };
    measure();
    el.addEventListener('scroll', measure, { passive: true });
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    observer?.observe(el);
    return () => {
      el.removeEventListener('scroll', measure);
      observer?.disconnect();
    };
  }, []);
  return { ref, ...state };
}

// Fixed column widths: long names, emails and chatbot names are cut with an ellipsis (the whole
// value in their title) rather than pushing the last columns out of the card.
const WIDTHS: Record<(typeof COLUMNS)[number], string> = {
  Date: 'w-[7.5rem]',
  Chatbot: 'w-[10%]',
  Name: 'w-[10%]',
  Email: '',
  Phone: 'w-[9rem]',
  Channel: 'w-[6.5rem]',
  Consent: 'w-[6rem]',
  Source: 'w-[6rem]',
  Conversation: 'w-[10rem]',
};

function LeadsGrid({ leads, chatbotNames }: { leads: Lead[]; chatbotNames: ReadonlyMap<string, string> }) {
  const scroller = useSidewaysOverflow<HTMLDivElement>();
  return (
    <div className="relative hidden sm:block">
      {/* Narrower than the table (a tablet), it scrolls inside the card: said above it, and faded at the cut edge. */}
      {scroller.overflows ? <p className="px-6 pt-3 text-xs text-gray-500">Scroll sideways to see every column.</p> : null}
      {/* Focusable, so the table can be scrolled sideways with the keyboard. */}
      <div ref={scroller.ref} className="overflow-x-auto" tabIndex={0} role="region" aria-label="Leads table">
        <table className="w-full min-w-[64rem] table-fixed text-sm">
          <colgroup>
            {COLUMNS.map((column) => (
              <col key={column} className={WIDTHS[column]} />
            ))}
          </colgroup>
          <thead className="bg-gray-50 text-xs font-medium tracking-wide text-gray-500 uppercase">
            <tr>
              {COLUMNS.map((column) => (
                <th key={column} scope="col" className="truncate px-3 py-3 text-left first:pl-6 last:pr-6">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-gray-100">
            {leads.map((lead) => {
              const chatbot = chatbotNames.get(lead.chatbotId) ?? 'Deleted chatbot';
              return (
                <tr key={lead.id} className="align-top hover:bg-gray-50">
                  <td className="py-3 pr-3 pl-6 text-gray-600">
                    <LeadDate iso={lead.createdAt} />
                  </td>
                  <td className="truncate px-3 py-3 text-gray-700" title={chatbot}>
                    {chatbot}
                  </td>
                  <td className="truncate px-3 py-3 font-medium text-gray-900" title={lead.name ?? undefined}>
                    {lead.name ?? empty}
                  </td>
                  <td className="truncate px-3 py-3 text-gray-700" title={lead.email ?? undefined}>
                    {lead.email ? (
                      <a href={`mailto:${lead.email}`} className="text-brand-700 hover:text-brand-800 hover:underline">
                        {lead.email}
                      </a>
                    ) : (
                      empty
                    )}
                  </td>
                  <td className="truncate px-3 py-3 text-gray-700" title={lead.phone ?? undefined}>
                    {lead.phone ?? empty}
                  </td>
                  <td className="px-3 py-3" title={lead.channelContact ?? undefined}>
                    <ChannelBadge channel={lead.channel} />
                    {lead.channelContact ? <span className="mt-1 block truncate text-xs text-gray-600">{lead.channelContact}</span> : null}
                  </td>
                  <td className="px-3 py-3 text-gray-700" title={lead.consentText ?? undefined}>
                    {lead.consentText ? (lead.consented ? 'Agreed' : 'Not agreed') : empty}
                  </td>
                  <td className="px-3 py-3 text-gray-600">{SOURCE_LABELS[lead.source] ?? lead.source}</td>
                  <td className="py-3 pr-6 pl-3 whitespace-nowrap">
                    <Link to={conversationLink(lead)} className="font-medium text-brand-700 hover:text-brand-800 hover:underline">
                      Open conversation
                    </Link>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {scroller.overflows && !scroller.atEnd ? (
        <div
          aria-hidden="true"
          className="pointer-events-none absolute inset-y-0 right-0 w-12 bg-gradient-to-l from-white to-transparent"
        />
      ) : null}
    </div>
  );
}
