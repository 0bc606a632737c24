// Starts the chatbot service in-process for one test file, with a real billing service beside it
// (for the plan check): each with its own Postgres schema, this file's own BullMQ queue prefix and
// its own media directory, so test files run in parallel without seeing each other's data.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { expect } from 'vitest';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { ChatbotService, type Chatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { ChatbotDeletedSchema, type ChatbotDeleted } from '@parley/proto/parley/events/v1/chatbot_deleted_pb.js';
import { readBillingConfig } from '@parley/billing/config.ts';
import { createBillingService, MIGRATIONS_DIR as BILLING_MIGRATIONS_DIR, type BillingServiceParts } from '@parley/billing/service.ts';
import { createLogger } from '@parley/common/logger.ts';
import { QUEUES } from '@parley/common/queues.ts';
import { createRedis, type Redis } from '@parley/common/redis.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { createTestSchema, testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import { serveApp } from '@parley/common/testing/serve.ts';
import { chatbotDeletedJobId } from '../../src/chatbots/chatbot-deleted.publisher.ts';
import { readChatbotConfig, type ChatbotConfig } from '../../src/config.ts';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';
import { createChatbotService, MIGRATIONS_DIR, type ChatbotServiceParts } from '../../src/service.ts';
import { rpcError } from '@parley/common/testing/rpc.ts';

export { rpcError };

export const logger = createLogger('chatbot-test', process.env.TEST_LOG_LEVEL ?? 'silent');

export interface TestChatbotService {
  config: ChatbotConfig;
  parts: ChatbotServiceParts;
  /** The service's own database client, to check what a call left behind. */
  db: PrismaClient;
  url: string;
  client: Client<typeof ChatbotService>;
  billing: BillingServiceParts;
  /** A separate Redis connection for queue inspection. */
  redis: Redis;
  /** Moves an owner to the pro plan in billing's own database. */
  makePro: (ownerId: string) => Promise<void>;
  /** Creates a chatbot (through the RPC) and returns it. */
  createChatbot: (ownerId: string, name?: string) => Promise<Chatbot>;
  /** The ChatbotDeleted event enqueued for a chatbot, if any. */
  chatbotDeletedEvent: (chatbotId: string) => Promise<ChatbotDeleted | undefined>;
  /** File names under MEDIA_DIR/chatbots (none when the directory does not exist yet). */
  pictureFiles: () => Promise<string[]>;
  stop: () => Promise<void>;
}

export async function startChatbotService(env: Record<string, string> = {}): Promise<TestChatbotService> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    // In reverse order of start; one failing step does not keep the rest from running.
    const errors: unknown[] = [];
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length) throw new AggregateError(errors, 'stopping the test chatbot service failed');
  };

  try {
    const { redisUrl } = await testInfra();
    const prefix = uniqueName('test');
    const redis = createRedis(redisUrl);
    cleanups.push(async () => {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    });

    const billingDb = await createTestSchema('billing', BILLING_MIGRATIONS_DIR);
    cleanups.push(() => billingDb.drop());
    const billingConfig = readBillingConfig({
      ...process.env,
      REDIS_URL: redisUrl,
      DATABASE_URL: billingDb.databaseUrl,
      BILLING_DB_SCHEMA: billingDb.schema,
      QUEUE_PREFIX: prefix,
    });
    const billing = await createBillingService(billingConfig, { logger, workers: false });
    cleanups.push(async () => {
      for (const close of billing.closers) await close();
    });
    const billingServer = await serveApp(billing.app);
    cleanups.push(() => billingServer.close());

    const db = await createTestSchema('chatbot', MIGRATIONS_DIR);
    cleanups.push(() => db.drop());
    const mediaDir = await mkdtemp(join(tmpdir(), 'parley-chatbot-media-'));
    cleanups.push(() => rm(mediaDir, { recursive: true, force: true }));
    const config = readChatbotConfig({
      ...process.env,
      REDIS_URL: redisUrl,
      DATABASE_URL: db.databaseUrl,
      CHATBOT_DB_SCHEMA: db.schema,
      QUEUE_PREFIX: prefix,
      MEDIA_DIR: mediaDir,
      BILLING_URL: billingServer.url,
      ...env,
    });
    const parts = await createChatbotService(config, { logger });
    cleanups.push(async () => {
      for (const close of parts.closers) await close();
    });
    const server = await serveApp(parts.app);
    cleanups.push(() => server.close());

    const billingClient = createServiceClient(BillingService, billingServer.url);
    const client = createServiceClient(ChatbotService, server.url);
    const chatbotDeleted = new Queue(QUEUES.chatbotDeleted, { connection: redis, prefix: config.QUEUE_PREFIX });
    cleanups.push(() => chatbotDeleted.close());

    return {
      config,
      parts,
      db: parts.prisma,
      url: server.url,
      client,
      billing,
      redis,
      makePro: async (ownerId) => {
        await billingClient.getAccount({ ownerId }); // opens the account if needed
        await billing.prisma.account.update({ where: { ownerId }, data: { plan: 'pro' } });
      },
      createChatbot: async (ownerId, name = 'Test bot') => {
        const { chatbot } = await client.createChatbot({ ownerId, name });
        if (!chatbot) throw new Error('CreateChatbot answered without a chatbot');
        return chatbot;
      },
      chatbotDeletedEvent: async (chatbotId) => {
        const job = await chatbotDeleted.getJob(chatbotDeletedJobId(chatbotId));
        return job ? fromJson(ChatbotDeletedSchema, job.data as JsonValue) : undefined;
      },
      pictureFiles: async () => {
        try {
          return (await readdir(join(config.MEDIA_DIR, 'chatbots'))).sort();
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
          throw err;
        }
      },
      stop,
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}

/** Asserts that a call fails with exactly this Connect code and message; returns the error. */
export async function expectRpcError(call: Promise<unknown>, code: Code, message: string): Promise<ConnectError> {
  const err = await rpcError(call);
  expect({ code: Code[err.code], message: err.rawMessage }).toEqual({ code: Code[code], message });
  return err;
}

let ownerSeq = 0;
/** A fresh owner id for one test. */
export const newOwner = (label = 'owner') => `${label}-${process.pid}-${++ownerSeq}-${Math.random().toString(36).slice(2, 8)}`;
