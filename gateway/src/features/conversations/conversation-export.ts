// GET /api/chatbot/{id}/conversations/export?format=csv|jsonl[&startDate&endDate] (docs/product.md, Conversation export; its row in rest.ts): every
// conversation of the owner's chatbot with every message, one row per message, as a download. The
// chat service decides access (owner, Pro) and the dates, and streams pages of rows; each page is
// written as it arrives, waiting for the browser to take it (backpressure), so the file is never
// whole in memory here either. A refusal arrives before the first page and is answered as JSON with
// its status; a failure after the first byte cuts the download off (logged), so a browser never
// saves a half file as whole.
//
// CSV: RFC 4180 (Papa Parse's unparse; CRLF, quotes where needed), a header row, a UTF-8 BOM so spreadsheet
// programs read non-ASCII text right, and cells that a spreadsheet would run as a formula prefixed
// with '. JSONL: one JSON object per message, the same fields in camelCase. The visitor's id and name
// (what the host page told the widget) come after the message's fields (CSV visitor_id, visitor_name),
// then the member who wrote an agent reply or internal note (author_name; roles agent and note): each
// added at the end, so files read by position before them keep their columns. Papa Parse rather than csv-stringify:
// for 100,000 messages it took this process from 120 to 179 MB where csv-stringify reached 317 MB
// (the garbage of its character-by-character writing; docs/benchmarks.md).
import { once } from 'node:events';
import type { Response } from 'express';
import Papa from 'papaparse';
import type { ExportRow } from '@parley/proto/parley/chat/v1/chat_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { isoDate } from '../../http/dates.ts';
import type { Clients } from '../../http/clients.ts';
import { inertCell } from '../../http/csv.ts';

export const FORMAT_INVALID = 'Format must be csv or jsonl';
/** The chat service's wording, for a date given twice (`?startDate=a&startDate=b`). */
export const DATES_INVALID = 'Dates must be YYYY-MM-DD';

export type ExportFormat = 'csv' | 'jsonl';

export const CSV_COLUMNS = [
  'conversation_id',
  'session_id',
  'user_ip',
  'user_agent',
  'message_id',
  'role',
  'content',
  'timestamp',
  'rating',
  'visitor_id',
  'visitor_name',
  'author_name',
] as const;

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/x-ndjson; charset=utf-8',
};

/** A row as the download holds it: what the History tab shows, absent values null. */
export interface ExportRecord {
  conversationId: string;
  sessionId: string;
  userIp: string | null;
  userAgent: string | null;
  messageId: string;
  role: string;
  content: string;
  timestamp: string | null;
  rating: 'up' | 'down' | null;
  visitorId: string | null;
  visitorName: string | null;
  /** The member who wrote an agent reply or a note; null otherwise. */
  authorName: string | null;
}

export const exportRecord = (r: ExportRow): ExportRecord => ({
  conversationId: r.conversationId,
  sessionId: r.sessionId,
  userIp: r.userIp || null,
  userAgent: r.userAgent || null,
  messageId: r.messageId,
  role: r.role,
  content: r.content,
  timestamp: isoDate(r.timestamp),
  rating: r.rating === 'up' || r.rating === 'down' ? r.rating : null,
  visitorId: r.visitorId || null,
  visitorName: r.visitorName || null,
  authorName: r.authorName || null,
});

// inertCell, shared with the leads' export, is http/csv.ts's.
export { inertCell };

const csvCells = (r: ExportRecord): string[] =>
  [
    r.conversationId,
    r.sessionId,
    r.userIp,
    r.userAgent,
    r.messageId,
    r.role,
    r.content,
    r.timestamp,
    r.rating,
    r.visitorId,
    r.visitorName,
    r.authorName,
  ].map((v) => inertCell(v ?? ''));

/** One page of rows in the format; the first page of a CSV file starts with the BOM and the header row. */
export function formatPage(format: ExportFormat, records: ExportRecord[], first: boolean): string {
  if (format === 'jsonl') return records.map((r) => `${JSON.stringify(r)}\n`).join('');
  if (!first && records.length === 0) return '';
  const rows = records.map(csvCells);
  // Every record ends with CRLF, as RFC 4180 allows and the header always did.
  const body = rows.length ? `${Papa.unparse(rows, { newline: '\r\n', header: false })}\r\n` : '';
  return first ? `\ufeff${Papa.unparse([[...CSV_COLUMNS]], { newline: '\r\n' })}\r\n${body}` : body;
}

/** The chatbot's name as a file name: ASCII letters and digits joined by dashes ("chatbot" when none are left). */
export function exportFileName(chatbotName: string, format: ExportFormat): string {
  const slug = chatbotName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${slug || 'chatbot'}-conversations.${format}`;
}

/** The `format` query parameter: a reader for the row's query schema (readWith). */
export function formatOf(raw: unknown): ExportFormat {
  if (raw === 'csv' || raw === 'jsonl') return raw;
  throw invalid(FORMAT_INVALID);
}

/** A date query parameter given at most once ('' when absent), checked further by the chat service. */
export function dateOf(raw: unknown): string {
  if (raw === undefined) return '';
  if (typeof raw !== 'string') throw invalid(DATES_INVALID);
  return raw;
}

/** Writes every conversation of the owner's chatbot to the response as the download, page by page. */
export async function streamConversationExport(
  res: Response,
  clients: Clients,
  request: { owner: string; chatbotId: string; format: ExportFormat; startDate: string; endDate: string },
  logger: Logger,
): Promise<void> {
  const { owner, chatbotId, format, startDate, endDate } = request;
  // The browser leaving stops the export in the chat service; an export has no deadline but that.
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const pages = clients.chat
    .exportConversations({ ownerId: owner, chatbotId, startDate, endDate }, { signal: abort.signal, timeoutMs: 0 })
    [Symbol.asyncIterator]();
  let first: IteratorResult<{ rows: ExportRow[] }>;
  let name: string;
  try {
    // The first page carries the chat service's refusal, if any; the name is only for the file's.
    [first, name] = await Promise.all([pages.next(), chatbotName(clients, owner, chatbotId)]);
  } catch (err) {
    abort.abort();
    throw err;
  }

  res.status(200);
  res.setHeader('Content-Type', CONTENT_TYPES[format]);
  res.setHeader('Content-Disposition', `attachment; filename="${exportFileName(name, format)}"`);
  const write = async (chunk: string) => {
    if (chunk && !res.write(chunk)) await once(res, 'drain', { signal: abort.signal });
  };
  let rows = 0;
  try {
    await write(formatPage(format, first.done ? [] : first.value.rows.map(exportRecord), true));
    rows += first.done ? 0 : first.value.rows.length;
    for (let step = first.done ? first : await pages.next(); !step.done; step = await pages.next()) {
      await write(formatPage(format, step.value.rows.map(exportRecord), false));
      rows += step.value.rows.length;
    }
  } catch (err) {
    if (!abort.signal.aborted) {
      logger.error({ err, chatbotId, rows }, 'conversation export failed part-way; the download was cut off');
      abort.abort();
    }
    res.destroy();
    return;
  }
  res.end();
}

/** The chatbot's name, read without its knowledge base (ownership is the chat service's check; this agrees). */
async function chatbotName(clients: Clients, owner: string, chatbotId: string): Promise<string> {
  const { chatbots } = await clients.chatbot.listChatbots({ ownerId: owner, includeKnowledgeBase: false });
  return chatbots.find((c) => c.id === chatbotId.trim().toLowerCase())?.name ?? '';
}
