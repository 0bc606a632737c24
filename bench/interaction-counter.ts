// Interaction counter benchmark (a script that prints figures, not a test): what the chatbot
// service spends counting answered messages in its chatbots' `interactions` (ADR 23). The same
// messages are counted in one run, alternated round by round, through the chatbot service's own
// workers and statements on a fresh schema:
//   - per message: one ChatbotInteraction job each (parley.chatbot-interaction, as before ADR 23),
//     on one busy chatbot;
//   - per batch: one ChatbotInteractionsCounted job per chatbot and analytics batch of 50 messages
//     (what the chat service's analytics worker sends once its batches fill), with the messages on
//     one busy chatbot (50 a job) and spread over 10 chatbots (about 5 a job).
// The jobs are queued first; the worker is then started and this process's CPU time (the worker's
// decoding, BullMQ's Redis calls and the statement's round trip; PostgreSQL's own work is not in it)
// and wall time are taken until the queue is empty. One PostgreSQL transaction per job either way.
//
//   npm run bench interaction-counter        (or: node bench/interaction-counter.ts)
//
// DATABASE_URL defaults to postgresql://postgres@127.0.0.1:5432/parley_bench, REDIS_URL to the local
// Redis; a fresh schema and queue prefix, dropped at the end. BENCH_MESSAGES (default 4000) per round.
import { randomUUID } from 'node:crypto';
import { Queue, type Worker } from 'bullmq';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import pg from 'pg';
import { ChatbotInteractionSchema } from '@parley/proto/parley/events/v1/chatbot_interaction_pb.js';
import { ChatbotInteractionsCountedSchema } from '@parley/proto/parley/events/v1/chatbot_interactions_counted_pb.js';
import { prismaAdapter } from '../services/common/src/database.ts';
import { createLogger } from '../services/common/src/logger.ts';
import { ensureDatabase, migrate } from '../services/common/src/migrations.ts';
import { createProducer, QUEUES, type QueueName } from '../services/common/src/queues.ts';
import { createRedis, unlinkMatching } from '../services/common/src/redis.ts';
import { PrismaClient } from '../services/chatbot/src/generated/prisma/client.ts';
import { addCountedInteractions } from '../services/chatbot/src/interactions/add-counted-interactions.ts';
import { startChatbotInteractionWorker } from '../services/chatbot/src/interactions/chatbot-interaction.job.ts';
import { startChatbotInteractionsCountedWorker } from '../services/chatbot/src/interactions/chatbot-interactions-counted.job.ts';
import { recordInteraction } from '../services/chatbot/src/interactions/record-interaction.ts';
import { MIGRATIONS_DIR } from '../services/chatbot/src/service.ts';
import { load } from './stats.ts';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_bench';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? '4000');
const BATCH = 50;
const ROUNDS = 2;

const schema = `bench_counter_${process.pid}`;
const prefix = `bench-counter-${process.pid}`;
const logger = createLogger('bench-counter', 'warn');
await ensureDatabase(databaseUrl);
await migrate({ databaseUrl, schema, migrationsDir: MIGRATIONS_DIR });
const db = new PrismaClient({ adapter: prismaAdapter({ databaseUrl, schema }) });
const redis = createRedis(redisUrl);
const perMessage = createProducer(redis, QUEUES.chatbotInteraction, ChatbotInteractionSchema, { prefix });
const perBatch = createProducer(redis, QUEUES.chatbotInteractionsCounted, ChatbotInteractionsCountedSchema, { prefix });

async function chatbots(n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  await db.chatbot.createMany({ data: ids.map((id) => ({ id, uniqueId: randomUUID(), ownerId: `bench-${id}`, name: 'Bench' })) });
  return ids;
}

/** Starts `start`'s worker on a queue already filled, and measures until the queue is empty. */
async function consume(name: QueueName, start: () => Worker) {
  const queue = new Queue(name, { connection: redis, prefix });
  const cpu = process.cpuUsage();
  const began = performance.now();
  const worker = start();
  for (;;) {
    const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    if (Object.values(c).every((n) => n === 0)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const wall = performance.now() - began;
  const used = process.cpuUsage(cpu);
  await worker.close();
  const failed = await queue.getJobCountByTypes('failed');
  await queue.obliterate({ force: true });
  await queue.close();
  if (failed) throw new Error(`${failed} jobs failed`);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: wall };
}

type Variant = 'per message' | 'per batch, 1 chatbot' | 'per batch, 10 chatbots';

async function round(variant: Variant) {
  const bots = await chatbots(variant === 'per batch, 10 chatbots' ? 10 : 1);
  const botOf = (i: number) => bots[i % bots.length];
  let jobs: number;
  let measured: { cpuMs: number; wallMs: number };
  if (variant === 'per message') {
    await Promise.all(
      Array.from({ length: MESSAGES }, (_, i) => {
        const id = randomUUID();
        return perMessage.publish(
          create(ChatbotInteractionSchema, { requestId: id, chatbotId: botOf(i), occurredAt: timestampFromDate(new Date()) }),
          id,
        );
      }),
    );
    jobs = MESSAGES;
    measured = await consume(QUEUES.chatbotInteraction, () =>
      startChatbotInteractionWorker({ redis, logger, prefix, recordInteraction: (input) => recordInteraction({ db }, input) }),
    );
  } else {
    // What the analytics worker sends for full batches of 50 messages: one event per chatbot of each.
    const events = [];
    for (let start = 0; start < MESSAGES; start += BATCH) {
      const counts = new Map<string, number>();
      for (let i = start; i < Math.min(MESSAGES, start + BATCH); i++) counts.set(botOf(i), (counts.get(botOf(i)) ?? 0) + 1);
      for (const [chatbotId, count] of counts)
        events.push(
          create(ChatbotInteractionsCountedSchema, {
            id: randomUUID(),
            chatbotId,
            count,
            lastInteractionAt: timestampFromDate(new Date()),
          }),
        );
    }
    await Promise.all(events.map((e) => perBatch.publish(e, e.id)));
    jobs = events.length;
    measured = await consume(QUEUES.chatbotInteractionsCounted, () =>
      startChatbotInteractionsCountedWorker({
        redis,
        logger,
        prefix,
        addCountedInteractions: (input) => addCountedInteractions({ db }, input),
      }),
    );
  }
  const total = await db.chatbot.aggregate({ where: { id: { in: bots } }, _sum: { interactions: true } });
  if (total._sum.interactions !== MESSAGES) throw new Error(`${variant}: counted ${total._sum.interactions} of ${MESSAGES}`);
  return { jobs, ...measured };
}

const variants: Variant[] = ['per message', 'per batch, 1 chatbot', 'per batch, 10 chatbots'];
try {
  await round('per message'); // warm-up: the code paths compiled before the first measured round
  await round('per batch, 10 chatbots');
  const totals = new Map(variants.map((v) => [v, { jobs: 0, cpuMs: 0, wallMs: 0 }]));
  for (let r = 0; r < ROUNDS; r++)
    for (const variant of r % 2 ? [...variants].reverse() : variants) {
      const m = await round(variant);
      const t = totals.get(variant)!;
      t.jobs += m.jobs;
      t.cpuMs += m.cpuMs;
      t.wallMs += m.wallMs;
    }
  console.log(`Interaction counter: ${MESSAGES} messages per round, ${ROUNDS} rounds per variant, alternated; load average ${load()}`);
  console.log('variant                   jobs/round  CPU ms/message  CPU ms/job  messages/s (wall)');
  for (const [variant, t] of totals) {
    const messages = MESSAGES * ROUNDS;
    console.log(
      `${variant.padEnd(26)}${String(t.jobs / ROUNDS).padStart(10)}${(t.cpuMs / messages).toFixed(3).padStart(16)}` +
        `${(t.cpuMs / t.jobs).toFixed(3).padStart(12)}${((messages / t.wallMs) * 1000).toFixed(0).padStart(19)}`,
    );
  }
} finally {
  await perMessage.close();
  await perBatch.close();
  await unlinkMatching(redis, `${prefix}:*`).catch(() => {});
  await redis.quit();
  await db.$disconnect();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
