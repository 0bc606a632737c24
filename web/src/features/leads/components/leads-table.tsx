import { Link } from 'react-router-dom';
import type { LeadsQuery } from '../../../gql/graphql';
import { formatDateTime } from '../../../lib/format';
import { conversationLink, SOURCE_LABELS } from '../leads-filter';

type Lead = LeadsQuery['leads']['leads'][number];

const COLUMNS = ['Date', 'Chatbot', 'Name', 'Email', 'Phone', 'Consent', 'Source', 'Conversation'] as const;

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
          <p className="mt-1 text-xs text-gray-500">
            {chatbotNames.get(lead.chatbotId) ?? 'Deleted chatbot'} · {formatDateTime(lead.createdAt)} ·{' '}
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

function LeadsGrid({ leads, chatbotNames }: { leads: Lead[]; chatbotNames: ReadonlyMap<string, string> }) {
  return (
    // Focusable, so the table can be scrolled sideways with the keyboard.
    <div className="hidden overflow-x-auto sm:block" tabIndex={0} role="region" aria-label="Leads table">
      <table className="min-w-full text-sm">
        <thead className="bg-gray-50 text-xs font-medium tracking-wide text-gray-500 uppercase">
          <tr>
            {COLUMNS.map((column) => (
              <th key={column} scope="col" className="px-4 py-3 text-left whitespace-nowrap first:pl-6 last:pr-6">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-gray-100">
          {leads.map((lead) => (
            <tr key={lead.id} className="align-top hover:bg-gray-50">
              <td className="py-3 pr-4 pl-6 whitespace-nowrap text-gray-600">{formatDateTime(lead.createdAt)}</td>
              <td className="max-w-[12rem] truncate px-4 py-3 text-gray-700">{chatbotNames.get(lead.chatbotId) ?? 'Deleted chatbot'}</td>
              <td className="max-w-[14rem] truncate px-4 py-3 font-medium text-gray-900" title={lead.name ?? undefined}>
                {lead.name ?? empty}
              </td>
              <td className="max-w-[16rem] truncate px-4 py-3 text-gray-700" title={lead.email ?? undefined}>
                {lead.email ? (
                  <a href={`mailto:${lead.email}`} className="text-brand-700 hover:text-brand-800 hover:underline">
                    {lead.email}
                  </a>
                ) : (
                  empty
                )}
              </td>
              <td className="px-4 py-3 whitespace-nowrap text-gray-700">{lead.phone ?? empty}</td>
              <td className="px-4 py-3 whitespace-nowrap text-gray-700" title={lead.consentText ?? undefined}>
                {lead.consentText ? (lead.consented ? 'Agreed' : 'Not agreed') : empty}
              </td>
              <td className="px-4 py-3 whitespace-nowrap text-gray-600">{SOURCE_LABELS[lead.source] ?? lead.source}</td>
              <td className="py-3 pr-6 pl-4 whitespace-nowrap">
                <Link to={conversationLink(lead)} className="font-medium text-brand-700 hover:text-brand-800 hover:underline">
                  Open conversation
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
