// The chatbot's interaction counter, fed by the analytics worker (ADR 23): the batch that counts
// answered messages in analytics also records, in its transaction, one ChatbotInteractionsCounted
// record per chatbot (how many of the batch's newly counted messages are that chatbot's, and the
// latest time among them) under a fresh id. After the commit each record is published to
// parley.chatbot-interactions-counted (job id: the record's id) and removed; the relay below
// publishes the records still waiting after a grace period (Redis unreachable or slow). Publishing
// twice is harmless: the chatbot service claims each id once before it adds the count.
import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ChatbotInteractionsCountedSchema } from '@parley/proto/parley/events/v1/chatbot_interactions_counted_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { relayOutbox, startOutboxRelay, type Outbox } from '@parley/common/outbox.ts';
import type { Producer } from '@parley/common/queues.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

/** One outbox record: `count` answered messages of a chatbot counted by one batch. */
export interface InteractionsCounted {
  id: string;
  chatbotId: string;
  count: number;
  lastInteractionAt: Date;
}

export type PublishInteractionsCounted = (record: InteractionsCounted) => Promise<void>;

/** Publishes a record's event under its id (the same id twice is queued once, and claimed once downstream). */
export function interactionsCountedPublisher(producer: Producer<typeof ChatbotInteractionsCountedSchema>): PublishInteractionsCounted {
  return (record) =>
    producer.publish(
      create(ChatbotInteractionsCountedSchema, {
        id: record.id,
        chatbotId: record.chatbotId,
        count: record.count,
        lastInteractionAt: timestampFromDate(record.lastInteractionAt),
      }),
      record.id,
    );
}

/**
 * Inside the batch's transaction: one record per chatbot of the counted messages, in chatbot order,
 * each with a fresh id. Its time is the clock's at the insert, not the transaction's start, so the
 * relay's grace period runs from (about) the commit.
 */
export async function recordInteractionsCounted(
  tx: Prisma.TransactionClient,
  counted: readonly { chatbotId: string; occurredAt: Date }[],
): Promise<InteractionsCounted[]> {
  const byChatbot = new Map<string, InteractionsCounted>();
  for (const { chatbotId, occurredAt } of counted) {
    const record = byChatbot.get(chatbotId);
    if (!record) byChatbot.set(chatbotId, { id: randomUUID(), chatbotId, count: 1, lastInteractionAt: occurredAt });
    else {
      record.count += 1;
      if (occurredAt > record.lastInteractionAt) record.lastInteractionAt = occurredAt;
    }
  }
  const records = [...byChatbot.keys()].sort().map((k) => byChatbot.get(k)!);
  if (records.length === 0) return [];
  await tx.$executeRaw`
    INSERT INTO "ChatbotInteractionsCountedOutbox" ("id", "chatbotId", "count", "lastInteractionAt", "createdAt")
    SELECT i::uuid, c::uuid, n, t::timestamptz, clock_timestamp()
      FROM unnest(${records.map((r) => r.id)}::text[], ${records.map((r) => r.chatbotId)}::text[],
                  ${records.map((r) => r.count)}::int[], ${records.map((r) => r.lastInteractionAt.toISOString())}::text[]) AS r(i, c, n, t)`;
  return records;
}

export interface AnnounceDeps {
  db: PrismaClient;
  publish: PublishInteractionsCounted;
  logger: Logger;
}

/**
 * After the batch's commit: publishes every record side by side, then removes the published ones
 * in one statement. Never fails: the batch is counted whatever happens here, and a record left
 * (its publish or the removal failed) is the relay's.
 */
export async function announceInteractionsCounted(deps: AnnounceDeps, records: readonly InteractionsCounted[]): Promise<void> {
  if (records.length === 0) return;
  const results = await Promise.allSettled(records.map((r) => deps.publish(r)));
  const published = records.filter((_, i) => results[i].status === 'fulfilled').map((r) => r.id);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed)
    deps.logger.warn(
      { err: (failed.reason as Error).message, waiting: records.length - published.length },
      'could not publish ChatbotInteractionsCounted yet; the outbox relay will',
    );
  if (published.length === 0) return;
  try {
    await deps.db.chatbotInteractionsCountedOutbox.deleteMany({ where: { id: { in: published } } });
  } catch (err) {
    deps.logger.warn(
      { err: (err as Error).message },
      'could not remove published ChatbotInteractionsCounted records; the relay publishes them again',
    );
  }
}

/** The outbox of the ChatbotInteractionsCounted events, for the kit's relay. */
export function chatbotInteractionsCountedOutbox(db: PrismaClient, publish: PublishInteractionsCounted): Outbox<InteractionsCounted> {
  return {
    event: 'ChatbotInteractionsCounted',
    waiting: (olderThan, limit) =>
      db.chatbotInteractionsCountedOutbox.findMany({
        where: { createdAt: { lt: olderThan } },
        orderBy: { createdAt: 'asc' },
        take: limit,
        select: { id: true, chatbotId: true, count: true, lastInteractionAt: true },
      }),
    announce: async (record) => {
      await publish(record);
      await db.chatbotInteractionsCountedOutbox.deleteMany({ where: { id: record.id } });
    },
  };
}

/** Publishes the records written before `olderThan` that are still waiting; returns how many were published. */
export const relayChatbotInteractionsCounted = (db: PrismaClient, publish: PublishInteractionsCounted, olderThan: Date) =>
  relayOutbox(chatbotInteractionsCountedOutbox(db, publish), olderThan);

/** Relays waiting records in the background until the returned function is called. */
export const startChatbotInteractionsCountedRelay = (db: PrismaClient, publish: PublishInteractionsCounted, logger: Logger) =>
  startOutboxRelay(chatbotInteractionsCountedOutbox(db, publish), logger);
