// Auth's worker for RetentionSwept (queue parley.retention-swept, docs/adr/0048-retention-windows.md):
// what a service's retention sweep deleted of a workspace's data goes into the workspace's audit log
// as the system's `workspace.retention_swept`, with the counts. Once per sweep id: a retried job
// finds its entry and writes nothing more. A failure is rethrown so BullMQ retries it.
import type { Worker } from 'bullmq';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { RetentionSweptSchema, type RetentionSwept } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { recordAudit } from './audit.ts';

export const RETENTION_SWEPT = 'workspace.retention_swept';

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
      // Each service's own counts: billing deletes usage detail only, chat conversations, messages and leads.
      details:
        event.service === 'billing'
          ? { service: event.service, usageRecords: Number(event.usageRecords) }
          : {
              service: event.service,
              conversations: Number(event.conversations),
              messages: Number(event.messages),
              leads: Number(event.leads),
            },
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
