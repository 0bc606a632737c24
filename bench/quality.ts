// Quality loop benchmark (a script that prints figures, not a test): what a chatbot's test run does
// to the visitors of other chatbots (docs/adr/0050-quality-loop.md). In one run: 50 visitors at once,
// each sending messages one after another, alone; then the same with a 200-case test run of another
// owner's chatbot answered beside them by the same chat instance (TEST_RUN_CONCURRENCY 4); then alone
// again. The visitors' p50 with the run is compared with the mean of the two phases without it.
// Real chat (with its queue workers), chatbot and billing services in this process, real PostgreSQL,
// Redis and BullMQ, the fake OpenAI server answering after BENCH_MODEL_MS (default 50 ms).
//
//   npm run bench quality        (or: node bench/quality.ts)
//
// DATABASE_URL defaults to postgresql://postgres@127.0.0.1:5432/parley_bench and REDIS_URL to
// redis://127.0.0.1:6379; fresh schemas and a Redis prefix of its own, dropped at the end.
// BENCH_MESSAGES (default 10) per visitor per phase. Target: p50 with the run ≤ 1.10 × without.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
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
import { percentile } from './stats.ts';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_bench';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? '10');
const MODEL_MS = Number(process.env.BENCH_MODEL_MS ?? '50');
const VISITORS = 50;
const CASES = 200;
const TARGET_RATIO = 1.1;
const KNOWLEDGE = [
  'Opening hours: Monday to Friday 9:00 to 18:00, Saturday 10:00 to 16:00. We are closed on Sundays and public holidays.',
  'Returns: items can be returned within thirty days in their original packaging. After thirty days we offer store credit only.',
];

const ms = (n: number) => n.toFixed(2);
const stats = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99) };
};

const tag = randomBytes(4).toString('hex');
const schemas = { billing: `bench_quality_billing_${tag}`, chatbot: `bench_quality_chatbot_${tag}`, chat: `bench_quality_chat_${tag}` };
const prefix = `bench_quality_${tag}`;
const logger = createLogger('bench-quality', 'warn');
const base = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, LOG_LEVEL: 'warn' };
const stops: (() => Promise<unknown>)[] = [];
const mediaDir = await mkdtemp(join(tmpdir(), 'parley-bench-quality-'));

await ensureDatabase(databaseUrl);
await migrate({ databaseUrl, schema: schemas.billing, migrationsDir: BILLING_MIGRATIONS });
await migrate({ databaseUrl, schema: schemas.chatbot, migrationsDir: CHATBOT_MIGRATIONS });
await migrate({ databaseUrl, schema: schemas.chat, migrationsDir: CHAT_MIGRATIONS });

try {
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
  const model = await startFakeOpenAI({ delayMs: MODEL_MS, chunkDelayMs: 0 });
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
      TEST_RUN_CONCURRENCY: '4',
      // The shared 2-core machine is often loaded: a slow call is measured, not refused.
      RPC_TIMEOUT_MS: '30000',
    }),
    // Its queue workers answer the test run; UsageRecorded waits in Redis (billing runs no workers).
    { logger },
  );
  const chatServer = await serveApp(chat.app);
  stops.push(async () => {
    await chatServer.close();
    for (const close of chat.closers) await close();
  });

  const chatbots = createServiceClient(ChatbotService, chatbotServer.url);
  const billingClient = createServiceClient(BillingService, billingServer.url);
  const client = createServiceClient(ChatService, chatServer.url, { timeoutMs: 30_000 });

  // Two owners with credit that never runs out: the visitors' chatbot, and the tested chatbot.
  const owner = async (id: string) => {
    await billingClient.getAccount({ userId: id });
    await billing.prisma.account.update({ where: { userId: id }, data: { creditBalance: 1_000_000 } });
    return id;
  };
  const make = async (ownerId: string, name: string) => {
    const { chatbot: c } = await chatbots.createChatbot({ ownerId, name });
    for (const text of KNOWLEDGE) await chatbots.addTextEntry({ ownerId, chatbotId: c!.id, text });
    return c!;
  };
  const visited = await make(await owner(`bench-visited-${tag}`), 'Visited');
  const testerId = await owner(`bench-tester-${tag}`);
  const tested = await make(testerId, 'Tested');
  const cases = Array.from({ length: CASES }, (_, i) => ({
    line: i + 1,
    question: `What are your opening hours on day ${i}?`,
    checks: [{ kind: 'contains', phrases: ['9:00'], entryId: '' }],
  }));
  await client.importTestCases({ ownerId: testerId, chatbotId: tested.id, cases });

  const sessions = new Map<number, string>();
  let refused = 0;
  let sent = 0;
  const visitor = async (v: number, latencies: number[]) => {
    for (let m = 0; m < MESSAGES; m++) {
      const t0 = performance.now();
      try {
        const res = await client.sendMessage({
          uniqueId: visited.uniqueId,
          sessionId: sessions.get(v) ?? '',
          message: `What are your opening hours? (${sent++})`,
          model: 'gpt-4o-mini',
          clientIp: `10.43.0.${v + 1}`,
          userAgent: 'bench',
        });
        sessions.set(v, res.sessionId);
        latencies.push(performance.now() - t0);
      } catch (err) {
        refused++;
        if (refused <= 3) console.log(`  visitor: ${(err as Error).message}`);
      }
    }
  };
  const phase = async () => {
    const latencies: number[] = [];
    const t0 = performance.now();
    const refusedBefore = refused;
    await Promise.all(Array.from({ length: VISITORS }, (_, v) => visitor(v, latencies)));
    return { ...stats(latencies), seconds: (performance.now() - t0) / 1000, count: latencies.length, refused: refused - refusedBefore };
  };
  const answered = async (runId: string) => chat.prisma.testResult.count({ where: { runId } });

  console.log(
    `quality benchmark, ${new Date().toISOString()}: ${cpus().length} CPUs, Node ${process.version}, load ${loadavg()[0].toFixed(1)}; ` +
      `${VISITORS} visitors × ${MESSAGES} messages per phase, model ${MODEL_MS} ms, a ${CASES}-case run at TEST_RUN_CONCURRENCY 4`,
  );
  await phase(); // warm-up
  const before = await phase();
  const { run } = await client.startTestRun({ ownerId: testerId, chatbotId: tested.id });
  // The run under way before the visitors start.
  while ((await answered(run!.id)) < 4) await new Promise((r) => setTimeout(r, 20));
  const atStart = await answered(run!.id);
  const during = await phase();
  const atEnd = await answered(run!.id);
  if (atEnd >= CASES) console.log('  the run finished before the phase did: raise BENCH_MESSAGES');
  await client.cancelTestRun({ ownerId: testerId, chatbotId: tested.id, runId: run!.id });
  while ((await chat.prisma.testRun.findUniqueOrThrow({ where: { id: run!.id } })).finishedAt === null)
    await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 500));
  const after = await phase();
  for (const [name, s] of [
    ['without a run', before],
    [`beside the run (${atEnd - atStart} cases answered meanwhile)`, during],
    ['without a run, again', after],
  ] as const)
    console.log(
      `  ${name}: p50 ${ms(s.p50)} ms, p95 ${ms(s.p95)} ms, p99 ${ms(s.p99)} ms; ${s.count} messages in ${s.seconds.toFixed(1)} s${s.refused ? `, ${s.refused} refused` : ''}`,
    );
  const baseline = (before.p50 + after.p50) / 2;
  const ratio = during.p50 / baseline;
  console.log(
    `  visitors' p50 beside the run ÷ without: ${ratio.toFixed(3)} (${ms(during.p50)} vs ${ms(baseline)} ms; target ≤ ${TARGET_RATIO}: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'})`,
  );
} finally {
  for (const stop of stops.reverse()) await stop().catch((err: Error) => console.log(`stopping: ${err.message}`));
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  for (const schema of Object.values(schemas)) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
  const redis = createRedis(redisUrl);
  await unlinkMatching(redis, `${prefix}:*`);
  await redis.quit();
  await rm(mediaDir, { recursive: true, force: true });
}
