// What the benchmarks that run the chat, chatbot and billing services in their own process share:
// fresh schemas and a Redis prefix of their own on DATABASE_URL and REDIS_URL, the fake OpenAI
// server, the three services served over HTTP, their clients, and a stop that drops it all.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { createLogger } from '../services/common/src/logger.ts';
import { ensureDatabase, migrate } from '../services/common/src/migrations.ts';
import { createRedis, unlinkMatching } from '../services/common/src/redis.ts';
import { createServiceClient } from '../services/common/src/rpc-client.ts';
import { startFakeOpenAI } from '../services/common/src/testing/fake-openai.ts';
import { serveApp } from '../services/common/src/testing/serve.ts';
import { readBillingConfig } from '../services/billing/src/config.ts';
import { createBillingService, MIGRATIONS_DIR as BILLING_MIGRATIONS } from '../services/billing/src/service.ts';
import { readChatbotConfig } from '../services/chatbot/src/config.ts';
import { createChatbotService, MIGRATIONS_DIR as CHATBOT_MIGRATIONS } from '../services/chatbot/src/service.ts';
import { readChatConfig } from '../services/chat/src/config.ts';
import { createChatService, MIGRATIONS_DIR as CHAT_MIGRATIONS } from '../services/chat/src/service.ts';

export const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_bench';
export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function startInProcessStack(opts: {
  /** Names the schemas, the prefix and the logger: `bench_{name}_…`. */
  name: string;
  modelDelayMs: number;
  /** Added to the chat service's configuration (rate limits out of the way already). */
  chatEnv?: Record<string, string>;
  /** The chat service's queue workers; billing and chatbot never run theirs (UsageRecorded waits in Redis). */
  chatWorkers: boolean;
}) {
  const tag = randomBytes(4).toString('hex');
  const schemas = {
    billing: `bench_${opts.name}_billing_${tag}`,
    chatbot: `bench_${opts.name}_chatbot_${tag}`,
    chat: `bench_${opts.name}_chat_${tag}`,
  };
  const prefix = `bench_${opts.name}_${tag}`;
  const logger = createLogger(`bench-${opts.name}`, 'warn');
  const base = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, LOG_LEVEL: 'warn' };
  const stops: (() => Promise<unknown>)[] = [];
  const mediaDir = await mkdtemp(join(tmpdir(), `parley-bench-${opts.name}-`));

  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((err: Error) => console.log(`stopping: ${err.message}`));
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    for (const schema of Object.values(schemas)) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
    const redis = createRedis(redisUrl);
    await unlinkMatching(redis, `${prefix}:*`);
    await redis.quit();
    await rm(mediaDir, { recursive: true, force: true });
  };

  try {
    await ensureDatabase(databaseUrl);
    await migrate({ databaseUrl, schema: schemas.billing, migrationsDir: BILLING_MIGRATIONS });
    await migrate({ databaseUrl, schema: schemas.chatbot, migrationsDir: CHATBOT_MIGRATIONS });
    await migrate({ databaseUrl, schema: schemas.chat, migrationsDir: CHAT_MIGRATIONS });
    const billing = await createBillingService(readBillingConfig({ ...base, BILLING_DB_SCHEMA: schemas.billing }), {
      logger,
      workers: false,
    });
    const billingServer = await serveApp(billing.app);
    stops.push(async () => {
      await billingServer.close();
      for (const close of billing.closers) await close();
    });
    const chatbot = await createChatbotService(
      readChatbotConfig({ ...base, CHATBOT_DB_SCHEMA: schemas.chatbot, MEDIA_DIR: mediaDir, BILLING_URL: billingServer.url }),
      { logger, workers: false },
    );
    const chatbotServer = await serveApp(chatbot.app);
    stops.push(async () => {
      await chatbotServer.close();
      for (const close of chatbot.closers) await close();
    });
    const model = await startFakeOpenAI({ delayMs: opts.modelDelayMs, chunkDelayMs: 0 });
    stops.push(() => model.close());
    const chat = await createChatService(
      readChatConfig({
        ...base,
        CHAT_DB_SCHEMA: schemas.chat,
        CHATBOT_URL: chatbotServer.url,
        BILLING_URL: billingServer.url,
        OPENAI_API_KEY: 'bench-key',
        OPENAI_BASE_URL: model.url,
        CHAT_RATE_PER_VISITOR: '1000000',
        CHAT_RATE_PER_BOT: '10000000',
        ...opts.chatEnv,
      }),
      { logger, workers: opts.chatWorkers },
    );
    const chatServer = await serveApp(chat.app);
    stops.push(async () => {
      await chatServer.close();
      for (const close of chat.closers) await close();
    });
    return {
      prefix,
      billing,
      chat,
      chatbots: createServiceClient(ChatbotService, chatbotServer.url),
      billingClient: createServiceClient(BillingService, billingServer.url),
      client: createServiceClient(ChatService, chatServer.url, { timeoutMs: 30_000 }),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
