// Starts the chat service in-process for one test file, with real chatbot and billing services
// beside it and a fake OpenAI-compatible server reached through the real `openai` SDK. Each service
// has its own Postgres schema and all share this file's own BullMQ queue prefix, so test files run
// in parallel without seeing each other's data or jobs.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Code, type Client } from '@connectrpc/connect';
import { expect } from 'vitest';
import { fromJson, type DescMessage, type JsonValue, type MessageShape } from '@bufbuild/protobuf';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { ChatbotInteractionSchema, type ChatbotInteraction } from '@parley/proto/parley/events/v1/chatbot_interaction_pb.js';
import { UsageRecordedSchema, type UsageRecorded } from '@parley/proto/parley/events/v1/usage_recorded_pb.js';
import { readBillingConfig } from '@parley/billing/config.ts';
import { createBillingService, MIGRATIONS_DIR as BILLING_MIGRATIONS_DIR, type BillingServiceParts } from '@parley/billing/service.ts';
import { readChatbotConfig } from '@parley/chatbot/config.ts';
import { createChatbotService, MIGRATIONS_DIR as CHATBOT_MIGRATIONS_DIR, type ChatbotServiceParts } from '@parley/chatbot/service.ts';
import { createLogger, type Logger } from '@parley/common/logger.ts';
import { QUEUES, type EventBatch } from '@parley/common/queues.ts';
import { chatbotInteractionBatch, usageRecordedBatch } from '@parley/proto/event-batches.ts';
import { createRedis, type Redis } from '@parley/common/redis.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { createTestSchema, testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import { serveApp } from '@parley/common/testing/serve.ts';
import { DEV_SESSION_SECRET, readChatConfig, type ChatConfig } from '../../src/config.ts';
import { sessionIds } from '../../src/core/session-id.ts';
import { createChatService, MIGRATIONS_DIR, type ChatServiceParts } from '../../src/service.ts';
import { rpcError } from '@parley/common/testing/rpc.ts';

export { rpcError };

export const logger = createLogger('chat-test', process.env.TEST_LOG_LEVEL ?? 'silent');

export interface ChatUnderTest {
  config: ChatConfig;
  parts: ChatServiceParts;
  client: Client<typeof ChatService>;
  /** Where it is served, for tests that call it with clients of their own. */
  url: string;
}

export interface ChatStack extends ChatUnderTest {
  prefix: string;
  fake: FakeOpenAI;
  chatbots: Client<typeof ChatbotService>;
  chatbot: ChatbotServiceParts;
  /** Where the chatbot service answers (its WebhookService too). */
  chatbotUrl: string;
  billing: BillingServiceParts;
  /** Billing's RPCs, as the chat service calls them. */
  billingClient: Client<typeof BillingService>;
  redis: Redis;
  /** Another chat service on the same chatbot, billing, fake and queue prefix, with other settings. */
  startChat: (env: Record<string, string | undefined>) => Promise<ChatUnderTest>;
  /** A new owner's chatbot with the given knowledge (one chatbot per owner: the free plan's limit). */
  newChatbot: (opts?: {
    name?: string;
    knowledge?: string[];
    language?: string;
  }) => Promise<{ ownerId: string; id: string; uniqueId: string }>;
  makePro: (ownerId: string) => Promise<void>;
  /** Sets the owner's balance through a ledger entry of the difference, so the balance still equals the sum of its ledger. */
  setCredit: (ownerId: string, amount: string) => Promise<void>;
  /**
   * Applies the queued UsageRecorded events with billing's own worker (another billing instance):
   * it runs until `during` has settled, if given, and then until the queue is empty.
   */
  applyUsage: (during?: Promise<unknown>) => Promise<void>;
  usageJobs: () => Promise<UsageRecorded[]>;
  /** The ChatbotInteraction events published, to the analytics queue (the only one since ADR 23). */
  interactionJobs: () => Promise<ChatbotInteraction[]>;
  stop: () => Promise<void>;
}

export async function startChatStack(
  env: Record<string, string | undefined> = {},
  opts: {
    /** Run the chatbot service's workers, which count the analytics worker's ChatbotInteractionsCounted (off: the jobs stay to be inspected). */
    chatbotWorkers?: boolean;
    /** More settings of the chatbot service (e.g. OUTBOUND_ALLOW for a local target API of actions). */
    chatbotEnv?: Record<string, string>;
    /** Wraps the chatbot service's client each chat instance is given (the chatbot service's own prisma at hand). */
    wrapChatbots?: (client: Client<typeof ChatbotService>, chatbot: ChatbotServiceParts) => Client<typeof ChatbotService>;
    /** The logger of every service of the stack (chat, chatbot, billing): a test reading their lines gives its own. */
    logger?: Logger;
  } = {},
): Promise<ChatStack> {
  const log = opts.logger ?? logger;
  const { redisUrl } = await testInfra();
  const prefix = uniqueName('test');
  const stops: (() => Promise<unknown>)[] = [];

  const billingDb = await createTestSchema('billing', BILLING_MIGRATIONS_DIR);
  const billingConfig = readBillingConfig({
    ...process.env,
    REDIS_URL: redisUrl,
    DATABASE_URL: billingDb.databaseUrl,
    BILLING_DB_SCHEMA: billingDb.schema,
    QUEUE_PREFIX: prefix,
  });
  // No billing workers: the UsageRecorded jobs the chat service publishes stay in the queue to be inspected.
  const billing = await createBillingService(billingConfig, { logger: log, workers: false });
  const billingServer = await serveApp(billing.app);

  const chatbotDb = await createTestSchema('chatbot', CHATBOT_MIGRATIONS_DIR);
  const mediaDir = await mkdtemp(join(tmpdir(), 'parley-chat-media-'));
  const chatbotConfig = readChatbotConfig({
    ...process.env,
    REDIS_URL: redisUrl,
    DATABASE_URL: chatbotDb.databaseUrl,
    CHATBOT_DB_SCHEMA: chatbotDb.schema,
    QUEUE_PREFIX: prefix,
    MEDIA_DIR: mediaDir,
    BILLING_URL: billingServer.url,
    ...opts.chatbotEnv,
  });
  const chatbot = await createChatbotService(chatbotConfig, { logger: log, workers: opts.chatbotWorkers ?? false });
  const chatbotServer = await serveApp(chatbot.app);

  const fake = await startFakeOpenAI();
  const chatDbs: { drop: () => Promise<void> }[] = [];
  const chatInstances: ChatServiceParts[] = [];

  const startChat = async (overrides: Record<string, string | undefined>): Promise<ChatUnderTest> => {
    const db = await createTestSchema('chat', MIGRATIONS_DIR);
    chatDbs.push(db);
    const merged: Record<string, string | undefined> = {
      ...process.env,
      REDIS_URL: redisUrl,
      DATABASE_URL: db.databaseUrl,
      CHAT_DB_SCHEMA: db.schema,
      QUEUE_PREFIX: prefix,
      CHATBOT_URL: chatbotServer.url,
      BILLING_URL: billingServer.url,
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: fake.url,
      ...overrides,
    };
    for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
    const config = readChatConfig(merged);
    const chatbotsOfChat = opts.wrapChatbots
      ? opts.wrapChatbots(
          createServiceClient(ChatbotService, chatbotServer.url, {
            timeoutMs: config.RPC_TIMEOUT_MS,
            credentials: { caller: 'chat', secret: config.SERVICE_SECRET },
          }),
          chatbot,
        )
      : undefined;
    const parts = await createChatService(config, { logger: log, chatbots: chatbotsOfChat });
    chatInstances.push(parts);
    const server = await serveApp(parts.app);
    stops.push(async () => {
      await server.close();
      for (const close of parts.closers) await close();
    });
    return { config, parts, url: server.url, client: createServiceClient(ChatService, server.url, { timeoutMs: 20_000 }) };
  };

  const main = await startChat(env);
  const chatbots = createServiceClient(ChatbotService, chatbotServer.url);
  const billingClient = createServiceClient(BillingService, billingServer.url);
  const redis = createRedis(redisUrl);

  /** The events on a queue, each of a batch job (ADR 29) on its own, after every chat instance published what it gathered. */
  const jobs = async <T>(queueName: string, decode: (job: { name: string; data: JsonValue }) => T[]): Promise<T[]> => {
    for (const instance of chatInstances) await instance.flushEvents();
    const queue = new Queue(queueName, { connection: redis, prefix });
    try {
      const list = await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']);
      return list.flatMap((j) => decode({ name: j.name, data: j.data as JsonValue }));
    } finally {
      await queue.close();
    }
  };
  const events =
    <D extends DescMessage, B extends DescMessage>(schema: D, batch: EventBatch<D, B>) =>
    (job: { name: string; data: JsonValue }): MessageShape<D>[] =>
      job.name === batch.schema.typeName ? batch.unwrap(fromJson(batch.schema, job.data)) : [fromJson(schema, job.data)];

  return {
    ...main,
    prefix,
    fake,
    chatbots,
    chatbot,
    chatbotUrl: chatbotServer.url,
    billing,
    billingClient,
    redis,
    startChat,
    newChatbot: async (opts = {}) => {
      const ownerId = newOwner();
      const { chatbot: created } = await chatbots.createChatbot({ ownerId, name: opts.name ?? 'Helper' });
      const id = created!.id;
      for (const text of opts.knowledge ?? []) await chatbots.addTextEntry({ ownerId, chatbotId: id, text });
      if (opts.language) await chatbots.updateChatbot({ ownerId, chatbotId: id, language: opts.language });
      return { ownerId, id, uniqueId: created!.uniqueId };
    },
    makePro: async (ownerId) => {
      await billingClient.getAccount({ ownerId });
      await billing.prisma.account.update({ where: { ownerId }, data: { plan: 'pro' } });
    },
    setCredit: async (ownerId, amount) => {
      await billingClient.getAccount({ ownerId });
      await billing.prisma.$executeRaw`
        WITH before AS (SELECT "creditBalance" FROM "Account" WHERE "userId" = ${ownerId}), updated AS (
          UPDATE "Account" SET "creditBalance" = ${amount}::numeric WHERE "userId" = ${ownerId}
        )
        INSERT INTO "CreditLedgerEntry" ("id", "userId", "amount", "reason", "reference")
        SELECT gen_random_uuid(), ${ownerId}, ${amount}::numeric - "creditBalance", 'test_adjustment', ${`test:${randomUUID()}`} FROM before`;
    },
    applyUsage: async (during) => {
      const worker = await createBillingService(billingConfig, { logger: log });
      const queue = new Queue(QUEUES.usageRecorded, { connection: redis, prefix });
      try {
        await during?.catch(() => {});
        for (const instance of chatInstances) await instance.flushEvents();
        for (const deadline = Date.now() + 30_000; ;) {
          const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
          if (Object.values(counts).every((n) => n === 0)) break;
          if (Date.now() > deadline) throw new Error(`UsageRecorded jobs still queued: ${JSON.stringify(counts)}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        const failed = await queue.getJobs(['failed']);
        if (failed.length) throw new Error(`UsageRecorded jobs failed: ${failed.map((j) => j.failedReason).join('; ')}`);
      } finally {
        await queue.close();
        for (const close of worker.closers) await close();
      }
    },
    usageJobs: () => jobs(QUEUES.usageRecorded, events(UsageRecordedSchema, usageRecordedBatch)),
    interactionJobs: () => jobs(QUEUES.chatbotInteractionAnalytics, events(ChatbotInteractionSchema, chatbotInteractionBatch)),
    stop: async () => {
      for (const stop of stops.reverse()) await stop();
      await chatbotServer.close();
      for (const close of chatbot.closers) await close();
      await billingServer.close();
      for (const close of billing.closers) await close();
      await fake.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
      for (const db of chatDbs) await db.drop();
      await chatbotDb.drop();
      await billingDb.drop();
      await rm(mediaDir, { recursive: true, force: true });
    },
  };
}

let ownerSeq = 0;
/** A fresh owner id for one test. */
export const newOwner = (label = 'owner') => `${label}-${process.pid}-${++ownerSeq}-${Math.random().toString(36).slice(2, 8)}`;

/** The system prompt of the fake's last request. */
export function lastSystemPrompt(fake: FakeOpenAI): string {
  const last = fake.requests.at(-1);
  if (!last) throw new Error('the model was not called');
  return last.messages.find((m) => m.role === 'system')?.content ?? '';
}

const issuedIds = sessionIds(process.env.SESSION_SECRET || DEV_SESSION_SECRET);
const sessionsByLabel = new Map<string, string>();

/**
 * A session id the chat service issued, one per label: what a visitor's page holds after its first
 * answer. The service keeps only ids it signed (session-id.ts), so a made-up id would start a new
 * conversation on every message.
 */
export function session(label: string): string {
  let id = sessionsByLabel.get(label);
  if (!id) sessionsByLabel.set(label, (id = issuedIds.issue()));
  return id;
}

/** A visitor's message with the gateway's fields filled in. */
export const visitor = (
  uniqueId: string,
  message: string,
  extra: Partial<{ sessionId: string; model: string; clientIp: string; userAgent: string }> = {},
) => ({
  uniqueId,
  message,
  sessionId: extra.sessionId ?? '',
  model: extra.model ?? 'gpt-4o-mini',
  clientIp: extra.clientIp ?? '203.0.113.7',
  userAgent: extra.userAgent ?? 'Mozilla/5.0 (test)',
});

/** The owner disconnects the connection (DisconnectChannel), as the card's Disconnect does. */
export const disconnectAs = (stack: ChatStack, bot: { ownerId: string }, connectionId: string) =>
  stack.client.disconnectChannel({ ownerId: bot.ownerId, connectionId });

/** 1 while the connection's row is kept, 0 once it is removed. */
export const connectionRows = (stack: ChatStack, connectionId: string) =>
  stack.parts.prisma.channelConnection.count({ where: { id: connectionId } });

/**
 * A provider out of reach (`outage` makes it so for one call) refuses the disconnect with its
 * "could not be reached" and keeps the connection and its registration; the next try removes both.
 */
export async function disconnectWaitsForProvider(
  stack: ChatStack,
  bot: { ownerId: string },
  connectionId: string,
  o: { outage: () => void; message: string; registered: () => boolean },
): Promise<void> {
  o.outage();
  const kept = await rpcError(disconnectAs(stack, bot, connectionId));
  expect([kept.code, kept.rawMessage]).toEqual([Code.Unavailable, o.message]);
  expect(await connectionRows(stack, connectionId)).toBe(1);
  expect(o.registered()).toBe(true);
  expect((await disconnectAs(stack, bot, connectionId)).removed).toBe(true);
  expect(o.registered()).toBe(false);
}
