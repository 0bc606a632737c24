// audit:read. Newest first, filtered by an action prefix, an actor and a time range, in pages that
// continue after the last entry shown (an opaque cursor of its time and id), so entries written
// meanwhile neither shift nor repeat a page.
import { invalid } from '@parley/common/rpc-errors.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { isUuid } from '@parley/common/ids.ts';
import { findMember, type ActorInput } from './access.ts';
import { auditEventSelect, auditOrder, toAuditEventView, type AuditEventView } from './audit-events.ts';

export const DEFAULT_AUDIT_PAGE = 50;
export const MAX_AUDIT_PAGE = 100;
export const INVALID_CURSOR = 'The page cursor is not valid; start again from the first page';

export interface ListAuditEventsRequest {
  actor: ActorInput;
  action: string;
  actorUserId: string;
  from?: Date;
  to?: Date;
  limit: number;
  cursor: string;
}

export async function listAuditEvents(
  db: PrismaClient,
  req: ListAuditEventsRequest,
): Promise<{ events: AuditEventView[]; nextCursor: string }> {
  const member = await findMember(db, req.actor, 'audit:read');
  if (req.limit < 0) throw invalid('limit must not be negative');
  const limit = Math.min(req.limit || DEFAULT_AUDIT_PAGE, MAX_AUDIT_PAGE);
  if (req.actorUserId && !isUuid(req.actorUserId)) throw invalid('The actor filter must be a user id');
  if (req.action.length > 64) throw invalid('The action filter must be at most 64 characters');
  if (req.from && req.to && req.from >= req.to) throw invalid('The time range must end after it starts');
  const after = req.cursor ? parseCursor(req.cursor) : undefined;

  const where: Prisma.AuditEventWhereInput = {
    workspaceId: member.workspace.id,
    ...(req.action ? { action: { startsWith: req.action } } : {}),
    ...(req.actorUserId ? { actorUserId: req.actorUserId.toLowerCase() } : {}),
    ...(req.from || req.to ? { createdAt: { ...(req.from ? { gte: req.from } : {}), ...(req.to ? { lt: req.to } : {}) } } : {}),
    ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
  };
  const rows = await db.auditEvent.findMany({ where, orderBy: [...auditOrder], take: limit + 1, select: auditEventSelect });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    events: page.map(toAuditEventView),
    nextCursor: rows.length > limit && last ? encodeCursor(last) : '',
  };
}

const encodeCursor = (e: { createdAt: Date; id: string }) => Buffer.from(`${e.createdAt.toISOString()}|${e.id}`).toString('base64url');

function parseCursor(cursor: string): { createdAt: Date; id: string } {
  const [time, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(time ?? '');
  if (extra !== undefined || !id || !isUuid(id) || Number.isNaN(createdAt.getTime())) throw invalid(INVALID_CURSOR);
  return { createdAt, id: id.toLowerCase() };
}
