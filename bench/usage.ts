// Usage report benchmark (a script that prints figures, not a test). Seeds one owner with 1,000,000
// usage records spread over the last year across 20 chatbots (and a few other owners beside them),
// with the matching UsageDaily rows, in bulk SQL; then times GetUsageReport through a real billing
// service started in this process, called over Connect as the gateway calls it, for the last month,
// the last year and one chatbot's last month.
//
//   npm run bench usage            (or: node bench/usage.ts)
//
// DATABASE_URL defaults to postgresql://postgres@127.0.0.1:5432/parley_bench and REDIS_URL to
// redis://127.0.0.1:6379; a fresh schema is created and dropped at the end, also on an error or
// Ctrl-C (BENCH_KEEP=1 keeps it; BENCH_SCHEMA=<kept schema> times the reports again without
// seeding). BENCH_SCALE=0.1 seeds a tenth of the records (the target applies to the full data set);
// BENCH_ITERATIONS (default 200) sets the reports timed per kind.
import { randomBytes } from 'node:crypto';
import { cpus, totalmem } from 'node:os';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import express from 'express';
import pg from 'pg';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { createLogger } from '../services/common/src/logger.ts';
import { ensureDatabase, migrate } from '../services/common/src/migrations.ts';
import { createServiceClient } from '../services/common/src/rpc-client.ts';
import { serveApp } from '../services/common/src/testing/serve.ts';
import { readBillingConfig } from '../services/billing/src/config.ts';
import { createBillingService, MIGRATIONS_DIR } from '../services/billing/src/service.ts';
import { getUsageReport } from '../services/billing/src/usage/usage-report.ts';
import { int, latencies, load, mb, ms, mulberry32, stopOnSignal, verdict as verdictAt } from './stats.ts';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_bench';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const scale = Number(process.env.BENCH_SCALE ?? '1');
const RECORDS = Math.round(1_000_000 * scale);
const CHATBOTS = 20;
const OTHER_OWNERS = 5;
const OTHER_RECORDS = Math.round(20_000 * scale);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? '200');
const WARMUP = 20;
const TARGET_P95_MS = 50;
const OWNER = 'bench-owner';
/** The busiest chatbot (chatbots are picked with a skew, see seed()), for the one-chatbot report. */
const ONE_CHATBOT = `${OWNER}-bot-0`;
const DAY_MS = 86_400_000;

const verdict = (met: boolean) => verdictAt(scale, met);
const stop = stopOnSignal();
const checkStop = stop.check;

const reuse = process.env.BENCH_SCHEMA;
const schema = reuse ?? `bench_usage_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: databaseUrl, options: `-c search_path="${schema}"` });

/**
 * One owner's records, evenly spread over [from, to) with random jitter, in time order as a live
 * table fills; chatbot k is picked with probability falling with k (chatbot 0 takes about a fifth).
 * Costs are computed as recordUsage computes them, from gpt-4o-mini's price.
 */
async function seedOwner(owner: string, count: number, from: number, to: number) {
  const step = (to - from) / count;
  const batch = 100_000;
  for (let first = 1; first <= count; first += batch) {
    checkStop();
    const last = Math.min(count, first + batch - 1);
    await admin.query(
      `INSERT INTO "UsageRecord" ("id", "requestId", "userId", "chatbotId", "chatbotName", "model", "promptTokens", "completionTokens",
                                  "totalTokens", "promptCost", "completionCost", "totalCost", "occurredAt")
       SELECT gen_random_uuid(), $1 || '-' || i, $1, $1 || '-bot-' || bot, 'Chatbot ' || bot, 'gpt-4o-mini', p, c,
              p + c, p * 0.15 * 0.000001, c * 0.60 * 0.000001, p * 0.15 * 0.000001 + c * 0.60 * 0.000001,
              to_timestamp(($2::float8 + (i - 1 + jitter) * $3::float8) / 1000)
         FROM (SELECT i, floor(${CHATBOTS} * random() ^ 2)::int AS bot, (200 + random() * 3000)::int AS p,
                      (20 + random() * 600)::int AS c, random() AS jitter
                 FROM generate_series($4::int, $5::int) AS i) AS r`,
      [owner, from, step, first, last],
    );
  }
}

async function seed(now: number) {
  const from = now - 365 * DAY_MS;
  await admin.query('SELECT setseed(0.2026)');
  const owners = [OWNER, ...Array.from({ length: OTHER_OWNERS }, (_, i) => `bench-other-${i}`)];
  await admin.query(`INSERT INTO "Account" ("userId", "creditBalance", "updatedAt") SELECT unnest($1::text[]), 1000, now()`, [owners]);
  const started = performance.now();
  console.log(
    `seeding ${int(RECORDS)} records for ${OWNER} and ${int(OTHER_RECORDS)} for each of ${OTHER_OWNERS} other owners (load average ${load()})`,
  );
  await seedOwner(OWNER, RECORDS, from, now);
  for (const other of owners.slice(1)) await seedOwner(other, OTHER_RECORDS, from, now);
  // The rollup as recordUsage keeps it (the same query as the migration that created it).
  await admin.query(`
    INSERT INTO "UsageDaily" ("userId", "chatbotId", "day", "requestCount", "promptTokens", "completionTokens", "promptCost", "completionCost")
    SELECT "userId", "chatbotId", ("occurredAt" AT TIME ZONE 'UTC')::date, count(*), sum("promptTokens"), sum("completionTokens"), sum("promptCost"), sum("completionCost")
      FROM "UsageRecord" GROUP BY 1, 2, 3`);
  console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const vacuumStarted = performance.now();
  await admin.query('VACUUM (ANALYZE) "UsageRecord", "UsageDaily"');
  console.log(`vacuum (analyze): ${((performance.now() - vacuumStarted) / 1000).toFixed(1)} s`);
}

async function dataSizes() {
  const { rows } = await admin.query(
    `SELECT (SELECT count(*) FROM "UsageRecord")::int AS records,
            (SELECT count(*) FROM "UsageRecord" WHERE "userId" = $1)::int AS owner_records,
            (SELECT count(*) FROM "UsageDaily")::int AS daily,
            (SELECT count(*) FROM "UsageDaily" WHERE "userId" = $1)::int AS owner_daily,
            (SELECT min("occurredAt") FROM "UsageRecord" WHERE "userId" = $1) AS first,
            (SELECT max("occurredAt") FROM "UsageRecord" WHERE "userId" = $1) AS last,
            pg_table_size('"UsageRecord"')::float8 AS record_table, pg_indexes_size('"UsageRecord"')::float8 AS record_indexes,
            pg_total_relation_size('"UsageDaily"')::float8 AS daily_total`,
    [OWNER],
  );
  const d = rows[0];
  console.log(
    `data: ${int(d.records)} usage records (${int(d.owner_records)} of ${OWNER}, ${d.first.toISOString()} → ${d.last.toISOString()}), ` +
      `${int(d.daily)} UsageDaily rows (${int(d.owner_daily)} of ${OWNER}); UsageRecord ${mb(d.record_table)} + indexes ${mb(d.record_indexes)}, UsageDaily ${mb(d.daily_total)}`,
  );
  return { last: (d.last as Date).getTime() };
}

await ensureDatabase(databaseUrl);
await migrate({ databaseUrl, schema, migrationsDir: MIGRATIONS_DIR });
await admin.connect();
const config = readBillingConfig({
  ...process.env,
  DATABASE_URL: databaseUrl,
  REDIS_URL: redisUrl,
  BILLING_DB_SCHEMA: schema,
  QUEUE_PREFIX: `bench_usage_${randomBytes(4).toString('hex')}`,
  LOG_LEVEL: 'warn',
});
const logger = createLogger('billing', 'warn');
const billing = await createBillingService(config, { logger, workers: false });
// Server time: from the request's arrival to the last byte of the answer handed to the socket.
const serverTimes: number[] = [];
const timed = express();
timed.use((_req, res, next) => {
  const started = performance.now();
  res.on('finish', () => serverTimes.push(performance.now() - started));
  next();
});
timed.use(billing.app);
const server = await serveApp(timed);

try {
  const { rows: version } = await admin.query<{ server_version: string }>('SHOW server_version');
  console.log(`usage report benchmark, ${new Date().toISOString()}, schema ${schema}${scale !== 1 ? `, BENCH_SCALE=${scale}` : ''}`);
  console.log(
    `machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
      `load average ${load()}; PostgreSQL ${version[0].server_version}; Node ${process.version}`,
  );
  if (reuse) console.log(`reusing the data in ${schema}`);
  else await seed(Date.now());
  const { last } = await dataSizes();

  const client = createServiceClient(BillingService, server.url, { timeoutMs: 30_000 });
  const rng = mulberry32(20261124);
  // Each report ends at a different instant of the data's last week (so the partial first and last
  // days differ from call to call), as "Last 30 days" and "Last year" end at the moment they are asked.
  const kinds = [
    { name: 'month (30 days)', days: 30, chatbotId: '' },
    { name: 'year (365 days)', days: 365, chatbotId: '' },
    { name: `one chatbot's month (${ONE_CHATBOT})`, days: 30, chatbotId: ONE_CHATBOT },
  ];
  const range = (days: number) => {
    const end = last - Math.floor(rng() * 7 * DAY_MS);
    return { start: new Date(end - days * DAY_MS), end: new Date(end) };
  };

  for (const kind of kinds) {
    checkStop();
    let records = 0;
    let requests = 0;
    const call = async () => {
      const { start, end } = range(kind.days);
      const t0 = performance.now();
      const report = await client.getUsageReport({
        ownerId: OWNER,
        startTime: timestampFromDate(start),
        endTime: timestampFromDate(end),
        chatbotId: kind.chatbotId,
      });
      const elapsed = performance.now() - t0;
      records = report.records.length;
      requests = Number(report.totals?.requestCount ?? 0);
      return elapsed;
    };
    for (let i = 0; i < WARMUP; i++) await call();
    const samples: number[] = [];
    serverTimes.length = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      checkStop();
      samples.push(await call());
    }
    const server = latencies(serverTimes);
    // The use case alone (the same queries, without HTTP and protobuf), for comparison.
    const direct: number[] = [];
    for (let i = 0; i < Math.min(ITERATIONS, 100); i++) {
      const { start, end } = range(kind.days);
      const t0 = performance.now();
      await getUsageReport(
        { prisma: billing.prisma, initialCredit: '0.01' },
        { ownerId: OWNER, startTime: start, endTime: end, chatbotId: kind.chatbotId },
      );
      direct.push(performance.now() - t0);
    }
    const l = latencies(samples);
    const d = latencies(direct);
    console.log(
      `GetUsageReport, ${kind.name}: ${int(requests)} requests in the range, ${records} records listed (${ITERATIONS} calls after ${WARMUP} warm-up)\n` +
        `  server time   p50 ${ms(server.p50)} ms, p95 ${ms(server.p95)} ms, p99 ${ms(server.p99)} ms, max ${ms(server.max)} ms — target p95 ≤ ${TARGET_P95_MS} ms: ${verdict(server.p95 <= TARGET_P95_MS)}\n` +
        `  round trip    p50 ${ms(l.p50)} ms, p95 ${ms(l.p95)} ms, p99 ${ms(l.p99)} ms (with the client's decoding, in this same process)\n` +
        `  use case only p50 ${ms(d.p50)} ms, p95 ${ms(d.p95)} ms (the queries and their rows, no HTTP or protobuf); load average ${load()}`,
    );
  }
} catch (error) {
  if (!stop.stopped()) throw error;
  process.exitCode = 130;
} finally {
  await server.close();
  for (const close of billing.closers) await close();
  if (process.env.BENCH_KEEP !== '1') {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    console.log(`dropped schema ${schema}`);
  } else console.log(`kept schema ${schema} (BENCH_SCHEMA=${schema} times the reports again)`);
  await admin.end();
}
