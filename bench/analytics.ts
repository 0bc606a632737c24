// Analytics benchmark (a script that prints figures, not a test). Seeds one chatbot with 1,000,000
// answered messages over the last year directly into the aggregate tables, as the analytics worker
// would have left them: one AnalyticsDay row per day (with its histogram and hours), about 50,000
// visitors as AnalyticsVisitor rows per day and AnalyticsVisitorYear rows per year (their days as
// bits), about 20,000 asked question groups with their day counts
// (popularity skewed, a few questions asked daily, most a handful of times) and some unanswered
// groups; a few other owners' chatbots beside it. Then times GetAnalytics through a real chat service
// started in this process, called over Connect as the gateway calls it, for the last month and the
// last year: server time p50/p95 (target p95 ≤ 100 ms), and the use case alone.
//
//   npm run bench analytics            (or: node bench/analytics.ts)
//
// The chatbot and billing services are stood in for by in-process clients answering ListChatbots
// and GetAccount at once (the owner is Pro): the figures are the chat service's own work; the real
// services add their two parallel round trips. DATABASE_URL defaults to
// postgresql://postgres@127.0.0.1:5432/parley_bench and REDIS_URL to redis://127.0.0.1:6379; a fresh
// schema is created and dropped at the end (BENCH_KEEP=1 keeps it; BENCH_SCHEMA=<kept schema> times
// again without seeding). BENCH_SCALE=0.1 seeds a tenth; BENCH_ITERATIONS (default 200) calls per range.
import { randomBytes, randomUUID } from 'node:crypto';
import { cpus, totalmem } from 'node:os';
import express from 'express';
import pg from 'pg';
import type { Client } from '@connectrpc/connect';
import { Plan, type BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import type { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { createLogger } from '../services/common/src/logger.ts';
import { ensureDatabase, migrate } from '../services/common/src/migrations.ts';
import { createServiceClient } from '../services/common/src/rpc-client.ts';
import { serveApp } from '../services/common/src/testing/serve.ts';
import { ANSWER_MS_BUCKETS, YEAR_BITS } from '../services/chat/src/analytics/aggregates.ts';
import { readChatConfig } from '../services/chat/src/config.ts';
import { getAnalytics } from '../services/chat/src/insights/get-analytics.ts';
import { createChatService, MIGRATIONS_DIR } from '../services/chat/src/service.ts';
import { int, latencies, load, mb, ms, stopOnSignal, verdict as verdictAt } from './stats.ts';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_bench';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const scale = Number(process.env.BENCH_SCALE ?? '1');
const MESSAGES = Math.round(1_000_000 * scale);
const VISITORS = Math.round(50_000 * scale);
const ASKED_GROUPS = Math.round(20_000 * scale);
const UNANSWERED_GROUPS = Math.round(4_000 * scale);
/** Other owners' chatbots, each a quarter of the bench chatbot's traffic, so tables and indexes hold others' rows. */
const OTHER_CHATBOTS = 4;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? '200');
const WARMUP = 20;
const TARGET_P95_MS = 100;
const OWNER = 'bench-analytics-owner';
const CHATBOT = '00000000-0000-4000-8000-00000000a001';
const DAY_MS = 86_400_000;

const verdict = (met: boolean) => verdictAt(scale, met);
const stop = stopOnSignal();
const checkStop = stop.check;

const reuse = process.env.BENCH_SCHEMA;
const schema = reuse ?? `bench_analytics_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: databaseUrl, options: `-c search_path="${schema}"` });

/**
 * One chatbot's year in its aggregates. Messages per day follow a weekly rhythm and a year's growth;
 * each day's figures are what the worker counts (a conversation per ~4 messages, ~70 % answered, a few
 * ratings, answer times mostly 0.5–3 s, hours peaking in the afternoon). Visitors are drawn from
 * `visitors` with a skew (regulars come back); questions from `groups` with a steeper one.
 */
async function seedChatbot(chatbotId: string, ownerId: string, messages: number, visitors: number, groups: number, unanswered: number) {
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const first = new Date(today - 364 * DAY_MS).toISOString().slice(0, 10);
  // Day weights (weekday 1.0, weekend 0.6, growing 1 → 2 over the year), scaled to `messages`.
  await admin.query(
    `CREATE TEMP TABLE day_plan ON COMMIT DROP AS
       WITH w AS (
         SELECT d::date AS day, (CASE WHEN extract(isodow FROM d) >= 6 THEN 0.6 ELSE 1.0 END) * (1 + i / 364.0) AS weight
           FROM generate_series($1::date, $1::date + 364, interval '1 day') WITH ORDINALITY AS g(d, i)
       )
       SELECT day, greatest(1, round($2::int * weight / sum(weight) OVER ()))::int AS messages FROM w`,
    [first, messages],
  );
  const buckets = ANSWER_MS_BUCKETS.length;
  await admin.query(
    `INSERT INTO "AnalyticsDay" ("chatbotId", "day", "ownerId", "conversations", "messages", "answered", "thumbsUp", "thumbsDown",
                                 "answerMsBuckets", "hours")
     SELECT $1::uuid, p.day, $2, ceil(p.messages / 4.0)::int, p.messages, round(p.messages * (0.6 + random() * 0.2))::int,
            round(p.messages * 0.03 * random())::int, round(p.messages * 0.01 * random())::int,
            (SELECT array_agg(round(p.messages * exp(-((b - 8) ^ 2) / 6.0) / 4.43)::int ORDER BY b) FROM generate_series(0, $3::int - 1) AS b),
            (SELECT array_agg(round(p.messages * exp(-((h - 15) ^ 2) / 30.0) / 9.7)::int ORDER BY h) FROM generate_series(0, 23) AS h)
       FROM day_plan p`,
    [chatbotId, ownerId, buckets],
  );
  // A visitor sends ~20 messages over the year, a few per visit: about messages / 4 visits a year.
  await admin.query(
    `INSERT INTO "AnalyticsVisitor" ("chatbotId", "day", "visitorHash")
     SELECT DISTINCT $1::uuid, p.day, md5($1 || ':' || floor($2::int * random() ^ 1.6)::int)
       FROM day_plan p, LATERAL generate_series(1, ceil(p.messages / 4.0)::int) AS v
     ON CONFLICT DO NOTHING`,
    [chatbotId, visitors],
  );
  // Each visitor's days of a year as the worker sets them, one bit per day (bit i: day i of the year).
  await admin.query(
    `INSERT INTO "AnalyticsVisitorYear" ("chatbotId", "year", "visitorHash", "days")
     SELECT "chatbotId", extract(year FROM "day")::int, "visitorHash",
            bit_or(set_bit(repeat('0', $2::int)::bit(366), "day" - make_date(extract(year FROM "day")::int, 1, 1), 1))
       FROM "AnalyticsVisitor" WHERE "chatbotId" = $1::uuid
      GROUP BY 1, 2, 3`,
    [chatbotId, YEAR_BITS],
  );
  await admin.query(
    `UPDATE "AnalyticsDay" d SET "uniqueVisitors" = v.n
       FROM (SELECT "day", count(*)::int AS n FROM "AnalyticsVisitor" WHERE "chatbotId" = $1::uuid GROUP BY "day") v
      WHERE d."chatbotId" = $1::uuid AND d."day" = v."day"`,
    [chatbotId],
  );
  // Every message's question in its asked group, popularity falling steeply with the group's rank.
  await admin.query(
    `CREATE TEMP TABLE asked ON COMMIT DROP AS
       SELECT floor($1::int * random() ^ 4)::int AS g, p.day, count(*)::int AS n
         FROM day_plan p, LATERAL generate_series(1, p.messages) AS m GROUP BY 1, 2`,
    [groups],
  );
  await admin.query(
    `CREATE TEMP TABLE group_plan ON COMMIT DROP AS
       SELECT g, gen_random_uuid() AS id, sum(n)::int AS total, max(day) AS last FROM asked GROUP BY g`,
  );
  await admin.query(
    `INSERT INTO "QuestionCluster" ("id", "chatbotId", "ownerId", "kind", "question", "lexemes", "count", "examples", "lastSeen", "createdAt")
     SELECT id, $1::uuid, $2, 'asked', 'Question number ' || g || '?', ARRAY['question', 'number', g::text], total,
            ARRAY['Question number ' || g || '?'], last + interval '12 hours', $3::date
       FROM group_plan`,
    [chatbotId, ownerId, first],
  );
  await admin.query(
    `INSERT INTO "QuestionClusterDay" ("clusterId", "day", "count") SELECT s.id, a.day, a.n FROM asked a JOIN group_plan s USING (g)`,
  );
  await admin.query(
    `INSERT INTO "QuestionCluster" ("id", "chatbotId", "ownerId", "kind", "question", "lexemes", "count", "examples", "lastSeen", "status")
     SELECT gen_random_uuid(), $1::uuid, $2, 'unanswered', 'Unanswered question ' || i || '?', ARRAY['unanswered', 'question', i::text],
            1 + floor(50 * random() ^ 4)::int, ARRAY['Unanswered question ' || i || '?'], now() - random() * interval '365 days',
            (ARRAY['open', 'open', 'resolved', 'dismissed'])[1 + floor(random() * 4)::int]
       FROM generate_series(1, $3::int) AS i`,
    [chatbotId, ownerId, unanswered],
  );
}

async function seed() {
  await admin.query('SELECT setseed(0.2026)');
  const started = performance.now();
  console.log(
    `seeding ${int(MESSAGES)} messages' aggregates for one chatbot (~${int(VISITORS)} visitors, ~${int(ASKED_GROUPS)} asked groups) ` +
      `and ${OTHER_CHATBOTS} other owners' chatbots at a quarter of it (load average ${load()})`,
  );
  const all = [
    { id: CHATBOT, owner: OWNER, share: 1 },
    ...Array.from({ length: OTHER_CHATBOTS }, (_, i) => ({ id: randomUUID(), owner: `bench-other-${i}`, share: 0.25 })),
  ];
  for (const bot of all) {
    checkStop();
    await admin.query('BEGIN');
    await seedChatbot(
      bot.id,
      bot.owner,
      Math.round(MESSAGES * bot.share),
      Math.round(VISITORS * bot.share),
      Math.round(ASKED_GROUPS * bot.share),
      Math.round(UNANSWERED_GROUPS * bot.share),
    );
    await admin.query('COMMIT');
  }
  console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await admin.query('VACUUM (ANALYZE) "AnalyticsDay", "AnalyticsVisitor", "AnalyticsVisitorYear", "QuestionCluster", "QuestionClusterDay"');
}

async function dataSizes() {
  const { rows } = await admin.query(
    `SELECT (SELECT sum("messages") FROM "AnalyticsDay" WHERE "chatbotId" = $1::uuid)::int AS messages,
            (SELECT count(*) FROM "AnalyticsDay" WHERE "chatbotId" = $1::uuid)::int AS days,
            (SELECT count(*) FROM "AnalyticsVisitor" WHERE "chatbotId" = $1::uuid)::int AS visitor_days,
            (SELECT count(DISTINCT "visitorHash") FROM "AnalyticsVisitor" WHERE "chatbotId" = $1::uuid)::int AS visitors,
            (SELECT count(*) FROM "QuestionCluster" WHERE "chatbotId" = $1::uuid AND "kind" = 'asked')::int AS asked,
            (SELECT count(*) FROM "QuestionCluster" WHERE "chatbotId" = $1::uuid AND "kind" = 'unanswered')::int AS unanswered,
            (SELECT count(*) FROM "QuestionClusterDay" d JOIN "QuestionCluster" c ON c."id" = d."clusterId" WHERE c."chatbotId" = $1::uuid)::int AS group_days,
            (SELECT count(*) FROM "QuestionClusterDay")::int AS all_group_days,
            (SELECT count(*) FROM "AnalyticsVisitor")::int AS all_visitor_days,
            (SELECT count(*) FROM "AnalyticsVisitorYear" WHERE "chatbotId" = $1::uuid)::int AS visitor_years,
            pg_total_relation_size('"AnalyticsVisitorYear"')::float8 AS visitor_year_size,
            pg_total_relation_size('"AnalyticsVisitor"')::float8 AS visitor_size, pg_total_relation_size('"QuestionClusterDay"')::float8 AS group_day_size`,
    [CHATBOT],
  );
  const d = rows[0];
  console.log(
    `data: the chatbot has ${int(d.messages)} messages over ${d.days} days, ${int(d.visitors)} visitors (${int(d.visitor_days)} visitor-days, ` +
      `${int(d.visitor_years)} visitor-years), ` +
      `${int(d.asked)} asked groups (${int(d.group_days)} group-days), ${int(d.unanswered)} unanswered groups; all chatbots: ` +
      `${int(d.all_visitor_days)} visitor-days (${mb(d.visitor_size)}; by year ${mb(d.visitor_year_size)}), ${int(d.all_group_days)} group-days (${mb(d.group_day_size)})`,
  );
}

await ensureDatabase(databaseUrl);
await migrate({ databaseUrl, schema, migrationsDir: MIGRATIONS_DIR });
await admin.connect();
const config = readChatConfig({
  ...process.env,
  DATABASE_URL: databaseUrl,
  REDIS_URL: redisUrl,
  CHAT_DB_SCHEMA: schema,
  QUEUE_PREFIX: `bench_analytics_${randomBytes(4).toString('hex')}`,
  LOG_LEVEL: 'warn',
});
// The owner's chatbot and plan, answered at once (see the header).
const chatbots = {
  listChatbots: async () => ({ chatbots: [{ id: CHATBOT }] }),
} as unknown as Client<typeof ChatbotService>;
const billing = {
  getAccount: async () => ({ account: { plan: Plan.PRO } }),
} as unknown as Client<typeof BillingService>;
const logger = createLogger('chat', 'warn');
const chat = await createChatService(config, { logger, workers: false, chatbots, billing, model: null });
// Server time: from the request's arrival to the last byte of the answer handed to the socket.
const serverTimes: number[] = [];
const timed = express();
timed.use((_req, res, next) => {
  const started = performance.now();
  res.on('finish', () => serverTimes.push(performance.now() - started));
  next();
});
timed.use(chat.app);
const server = await serveApp(timed);

try {
  const { rows: version } = await admin.query<{ server_version: string }>('SHOW server_version');
  console.log(`analytics benchmark, ${new Date().toISOString()}, schema ${schema}${scale !== 1 ? `, BENCH_SCALE=${scale}` : ''}`);
  console.log(
    `machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
      `load average ${load()}; PostgreSQL ${version[0].server_version}; Node ${process.version}`,
  );
  if (reuse) console.log(`reusing the data in ${schema}`);
  else await seed();
  await dataSizes();

  const client = createServiceClient(ChatService, server.url, { timeoutMs: 30_000 });
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  const kinds = [
    { name: 'month (30 days)', startDate: day(today - 29 * DAY_MS), endDate: day(today) },
    { name: 'year (365 days)', startDate: day(today - 364 * DAY_MS), endDate: day(today) },
  ];
  for (const kind of kinds) {
    checkStop();
    const input = { ownerId: OWNER, chatbotId: CHATBOT, startDate: kind.startDate, endDate: kind.endDate };
    let figures = '';
    const call = async () => {
      const t0 = performance.now();
      const { analytics } = await client.getAnalytics(input);
      const elapsed = performance.now() - t0;
      const t = analytics!.totals!;
      figures =
        `${int(t.messages)} messages, ${int(t.conversations)} conversations, ${int(t.uniqueVisitors)} visitors, ` +
        `median answer ${t.medianAnswerMs} ms, top question asked ${int(analytics!.topQuestions[0]?.count ?? 0)} times`;
      return elapsed;
    };
    for (let i = 0; i < WARMUP; i++) await call();
    const samples: number[] = [];
    serverTimes.length = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      checkStop();
      samples.push(await call());
    }
    const serverTime = latencies(serverTimes);
    const direct: number[] = [];
    for (let i = 0; i < Math.min(ITERATIONS, 100); i++) {
      const t0 = performance.now();
      await getAnalytics(chat.deps, input, { role: 'owner' });
      direct.push(performance.now() - t0);
    }
    const l = latencies(samples);
    const d = latencies(direct);
    console.log(
      `GetAnalytics, ${kind.name}: ${figures} (${ITERATIONS} calls after ${WARMUP} warm-up)\n` +
        `  server time   p50 ${ms(serverTime.p50)} ms, p95 ${ms(serverTime.p95)} ms, p99 ${ms(serverTime.p99)} ms, max ${ms(serverTime.max)} ms — target p95 ≤ ${TARGET_P95_MS} ms: ${verdict(serverTime.p95 <= TARGET_P95_MS)}\n` +
        `  round trip    p50 ${ms(l.p50)} ms, p95 ${ms(l.p95)} ms (with the client's decoding, in this same process)\n` +
        `  use case only p50 ${ms(d.p50)} ms, p95 ${ms(d.p95)} ms; load average ${load()}`,
    );
  }
} catch (error) {
  if (!stop.stopped()) throw error;
  process.exitCode = 130;
} finally {
  await server.close();
  for (const close of chat.closers) await close();
  if (process.env.BENCH_KEEP !== '1') {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    console.log(`dropped schema ${schema}`);
  } else console.log(`kept schema ${schema} (BENCH_SCHEMA=${schema} times the reports again)`);
  await admin.end();
}
