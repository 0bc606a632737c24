// Auth's worker for RetentionSwept (queue parley.retention-swept, docs/adr/0048-retention-windows.md):
// what a service's retention sweep deleted of a workspace's data goes into the workspace's audit log
// as the system's `workspace.retention_swept`, with the kind swept and its counts (one entry per sweep and kind). Once per sweep id: a retried job
// finds its entry and writes nothing more. A failure is rethrown so BullMQ retries it.
import type { Worker } from 'bullmq';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { RetentionSweptSchema, type RetentionSwept } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { recordAudit } from './audit.ts';

export const RETENTION_SWEPT = 'workspace.retention_swept';

/** What one sweep deleted, as its audit entry says it: the service, the kind and that kind's counts. */
export function sweptDetails(event: RetentionSwept): Record<string, string | number> {
  const kind = event.kind || 'conversations';
  const head = { service: event.service, kind };
  switch (kind) {
    case 'usage_detail':
      return { ...head, usageRecords: Number(event.usageRecords) };
    case 'webhook_deliveries':
      return { ...head, webhookDeliveries: Number(event.webhookDeliveries) };
    case 'analytics':
      return { ...head, analyticsDays: Number(event.analyticsDays), questionGroups: Number(event.questionGroups) };
    default:
      return { ...head, conversations: Number(event.conversations), messages: Number(event.messages), leads: Number(event.leads) };
  }
}

/** Writes the sweep's audit entry unless its sweep id already has one; true when written. */
export async function auditRetentionSwept(db: PrismaClient, event: RetentionSwept): Promise<boolean> {
  return db.$transaction(async (tx) => {
    // One sweep id at a time: a retry racing the first attempt waits here, then finds the entry.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${event.sweepId}))`;
    const seen = await tx.auditEvent.findFirst({ where: { workspaceId: event.ownerId, action: RETENTION_SWEPT, target: event.sweepId } });
    if (seen) return false;
    await recordAudit(tx, {
      workspaceId: event.ownerId,
      actorUserId: null,
      actorEmail: '',
      action: RETENTION_SWEPT,
      target: event.sweepId,
      details: sweptDetails(event),
      clientIp: '',
    });
    return true;
  });
}

export function startRetentionSweptWorker(deps: { redis: Redis; logger: Logger; prefix: string; db: PrismaClient }): Worker {
  return createWorker(
    deps.redis,
    QUEUES.retentionSwept,
    RetentionSweptSchema,
    async (event) => {
      await auditRetentionSwept(deps.db, event);
    },
    { prefix: deps.prefix, logger: deps.logger },
  );
}
