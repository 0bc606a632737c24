// GET /api/leads/export?chatbotId=&startDate=&endDate= (docs/product.md, Leads; its row in rest.ts): the workspace's leads,
// newest first, as a CSV download, optionally of one chatbot and a range of inclusive UTC days (every
// plan; the chat service decides the chatbot's ownership and the dates). The leads come a page of
// LEAD_EXPORT_PAGE at a time (ListLeads' keyset cursor) and each page is written as it arrives,
// waiting for the browser to take it, so the file is never whole in memory. A refusal arrives with
// the first page and is answered as JSON with its status; a failure after the first byte cuts the
// download off (logged), so a browser never saves a half file as whole.
//
// The CSV is the conversation export's (conversation-export.ts, the cells made inert by http/csv.ts): Papa Parse, RFC 4180 with CRLF, a
// UTF-8 BOM, a header row, and cells a spreadsheet would run as a formula prefixed with '.
import { once } from 'node:events';
import type { Response } from 'express';
import Papa from 'papaparse';
import type { Logger } from '@parley/common/logger.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';
import { leadView, type LeadView } from './leads.ts';
import { inertCell } from '../../http/csv.ts';

/** The chat service's largest page (ListLeads). */
export const LEAD_EXPORT_PAGE = 1000;
export const LEAD_EXPORT_FILE = 'leads.csv';
export const PARAMETER_INVALID = (name: string) => `${name} must be given once`;

export const LEAD_CSV_COLUMNS = [
  'created_at',
  'lead_id',
  'chatbot_id',
  'chatbot_name',
  'conversation_id',
  'name',
  'email',
  'phone',
  'consented',
  'consent_text',
  'source',
  'channel',
  'channel_contact',
] as const;

const csvCells = (l: LeadView, chatbotName: string): string[] =>
  [
    l.createdAt,
    l.id,
    l.chatbotId,
    chatbotName,
    l.conversationId,
    l.name,
    l.email,
    l.phone,
    l.consented ? 'yes' : 'no',
    l.consentText,
    l.source,
    l.channel,
    l.channelContact,
  ].map((v) => inertCell(v ?? ''));

/** One page of leads as CSV lines; the first page starts with the BOM and the header row. */
export function formatLeadPage(leads: LeadView[], chatbotNames: ReadonlyMap<string, string>, first: boolean): string {
  const rows = leads.map((l) => csvCells(l, chatbotNames.get(l.chatbotId) ?? ''));
  const body = rows.length ? `${Papa.unparse(rows, { newline: '\r\n', header: false })}\r\n` : '';
  return first ? `\ufeff${Papa.unparse([[...LEAD_CSV_COLUMNS]], { newline: '\r\n' })}\r\n${body}` : body;
}

/** A query parameter given at most once ('' when absent): a reader for the row's query schema (readWith). */
export const queryParam =
  (name: string) =>
  (raw: unknown): string => {
    if (raw === undefined) return '';
    if (typeof raw !== 'string') throw invalid(PARAMETER_INVALID(name));
    return raw;
  };

export interface LeadFilter {
  chatbotId: string;
  startDate: string;
  endDate: string;
}

/** Writes the workspace's leads to the response as the CSV download, page by page. */
export async function streamLeadExport(res: Response, clients: Clients, owner: string, filter: LeadFilter, logger: Logger): Promise<void> {
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const page = (cursor: string) =>
    clients.chat.listLeads({ ownerId: owner, ...filter, cursor, limit: LEAD_EXPORT_PAGE }, { signal: abort.signal });
  // The first page carries the chat service's refusal, if any; the names are only for a column.
  const [first, { chatbots }] = await Promise.all([
    page(''),
    clients.chatbot.listChatbots({ ownerId: owner, includeKnowledgeBase: false }),
  ]);
  const names = new Map(chatbots.map((c) => [c.id, c.name]));

  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${LEAD_EXPORT_FILE}"`);
  const write = async (chunk: string) => {
    if (chunk && !res.write(chunk)) await once(res, 'drain', { signal: abort.signal });
  };
  let rows = 0;
  try {
    await write(formatLeadPage(first.leads.map(leadView), names, true));
    rows += first.leads.length;
    for (let cursor = first.nextCursor; cursor;) {
      const next = await page(cursor);
      await write(formatLeadPage(next.leads.map(leadView), names, false));
      rows += next.leads.length;
      cursor = next.nextCursor;
    }
  } catch (err) {
    if (!abort.signal.aborted) {
      logger.error({ err, rows }, 'lead export failed part-way; the download was cut off');
      abort.abort();
    }
    res.destroy();
    return;
  }
  res.end();
}
