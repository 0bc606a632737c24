// The workspace's leads (docs/adr/0034-humans-in-the-loop.md), newest first, optionally of one of its
// chatbots and a range of UTC days, a page at a time: every plan. Pages are keyset-paginated on
// (createdAt, id) over the (ownerId | chatbotId, createdAt, id) indexes, so each page costs the same
// however far the reader has got, and a lead left while paging never appears twice. The cursor is
// opaque to callers (the last row's position, base64url).
import type { Client } from '@connectrpc/connect';
import type { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { invalid, notFound, unavailable } from '@parley/common/rpc-errors.ts';
import type { Lead, PrismaClient } from '../generated/prisma/client.ts';
import { CHATBOT_NOT_FOUND } from '../core/history-access.ts';
import { isUuid } from '@parley/common/ids.ts';
import { parseExportRange } from '../export/export-conversations.ts';

export const DEFAULT_LEADS_PAGE = 50;
export const MAX_LEADS_PAGE = 1000;
export const LIMIT_INVALID = `Limit must be from 1 to ${MAX_LEADS_PAGE}.`;
export const CURSOR_INVALID = 'Cursor is not valid.';
export const LEADS_UNAVAILABLE = 'Could not load leads. Please try again.';

export interface ListLeadsDeps {
  db: PrismaClient;
  chatbots: Client<typeof ChatbotService>;
  logger: Logger;
}

export interface ListLeadsInput {
  ownerId: string;
  chatbotId: string;
  startDate: string;
  endDate: string;
  cursor: string;
  limit: number;
}

export interface LeadsPage {
  leads: Lead[];
  nextCursor: string;
}

interface Position {
  createdAt: Date;
  id: string;
}

export const encodeCursor = (p: Position): string => Buffer.from(`${p.createdAt.toISOString()}|${p.id}`).toString('base64url');

export function decodeCursor(raw: string): Position | null {
  const cursor = raw.trim();
  if (!cursor) return null;
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (rest.length > 0 || !id || !isUuid(id) || Number.isNaN(createdAt.getTime())) throw invalid(CURSOR_INVALID);
  return { createdAt, id };
}

export function parseLimit(limit: number): number {
  if (limit === 0) return DEFAULT_LEADS_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LEADS_PAGE) throw invalid(LIMIT_INVALID);
  return limit;
}

/** The workspace's chatbot, normalised; another workspace's (or no such) chatbot is NOT_FOUND. */
async function ownedChatbot(deps: ListLeadsDeps, ownerId: string, raw: string): Promise<string> {
  if (!isUuid(raw)) throw notFound(CHATBOT_NOT_FOUND);
  const chatbotId = raw.trim().toLowerCase();
  let ids: string[];
  try {
    ids = (await deps.chatbots.listChatbots({ ownerId, includeKnowledgeBase: false })).chatbots.map((c) => c.id);
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'chatbot ListChatbots failed');
    throw unavailable(LEADS_UNAVAILABLE);
  }
  if (!ids.includes(chatbotId)) throw notFound(CHATBOT_NOT_FOUND);
  return chatbotId;
}

export async function listLeads(deps: ListLeadsDeps, input: ListLeadsInput): Promise<LeadsPage> {
  const ownerId = input.ownerId.trim();
  if (!ownerId) throw invalid('owner_id is required.');
  const range = parseExportRange(input.startDate, input.endDate);
  const after = decodeCursor(input.cursor);
  const limit = parseLimit(input.limit);
  const chatbotId = input.chatbotId.trim() ? await ownedChatbot(deps, ownerId, input.chatbotId) : null;

  // One more than the page: whether there is a next one.
  const rows = await deps.db.lead.findMany({
    where: {
      ownerId,
      ...(chatbotId ? { chatbotId } : {}),
      createdAt: { ...(range.from ? { gte: range.from } : {}), ...(range.to ? { lt: range.to } : {}) },
      ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const leads = rows.slice(0, limit);
  const last = leads.at(-1);
  return { leads, nextCursor: rows.length > limit && last ? encodeCursor(last) : '' };
}
