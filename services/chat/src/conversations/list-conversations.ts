// The conversations of one of the owner's chatbots: the history tab's list (most recently active
// first, unpaged), or one page of them newest first by when each began (the developer API).
import { invalid } from '@parley/common/rpc-errors.ts';
import type { Conversation, PrismaClient } from '../generated/prisma/client.ts';
import { assertHistoryAccess, type HistoryAccessDeps } from '../core/history-access.ts';
import { isUuid } from '@parley/common/ids.ts';

/** The history tab lists sessions without paging; this bounds one answer. */
export const MAX_LISTED_CONVERSATIONS = 1000;
export const MAX_PAGE = 100;
export const CURSOR_INVALID = 'Invalid cursor';
export const LIMIT_INVALID = `limit must be between 1 and ${MAX_PAGE}`;

export type ConversationsDeps = HistoryAccessDeps & { db: PrismaClient };

export async function listConversations(deps: ConversationsDeps, input: { ownerId: string; chatbotId: string }) {
  const chatbotId = await assertHistoryAccess(deps, input);
  return deps.db.conversation.findMany({
    where: { chatbotId },
    orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
    take: MAX_LISTED_CONVERSATIONS,
  });
}

// A cursor is the last row's (createdAt, id), opaque to callers. createdAt is kept to the millisecond
// (Timestamptz(3)), as a Date holds it, so the boundary is exact.
const encodeCursor = (c: Conversation) => Buffer.from(`${c.createdAt.toISOString()}|${c.id}`).toString('base64url');
function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (rest.length > 0 || !id || !isUuid(id) || Number.isNaN(createdAt.getTime())) throw invalid(CURSOR_INVALID);
  return { createdAt, id };
}

/**
 * One page, newest first by (createdAt, id): a conversation's creation never changes, so a page's
 * place holds while visitors write, and one begun while a client pages comes before its first page.
 */
export async function listConversationPage(
  deps: ConversationsDeps,
  input: { ownerId: string; chatbotId: string; limit: number; cursor: string },
): Promise<{ conversations: Conversation[]; nextCursor: string }> {
  const chatbotId = await assertHistoryAccess(deps, input);
  if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > MAX_PAGE) throw invalid(LIMIT_INVALID);
  const after = input.cursor ? decodeCursor(input.cursor) : undefined;
  const rows = await deps.db.conversation.findMany({
    where: {
      chatbotId,
      // The bound on createdAt alone makes the index on (chatbotId, createdAt, id) start the scan at
      // the cursor; the OR then leaves out the rows of the cursor's own millisecond already read.
      ...(after
        ? {
            createdAt: { lte: after.createdAt },
            OR: [{ createdAt: { lt: after.createdAt } }, { id: { lt: after.id.toLowerCase() } }],
          }
        : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  return { conversations: page, nextCursor: rows.length > input.limit ? encodeCursor(page[page.length - 1]) : '' };
}
