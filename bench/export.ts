// Conversation export benchmark (a script that prints figures, not a test). Starts the whole product
// (startStack, as `npm start` runs it) on a database of its own, signs up an owner on the Pro plan
// with one chatbot, seeds 100,000 conversations of 5 messages each into the chat service's tables
// (visitor questions and longer answers, some with quotes, commas and line breaks, a fifth of the
// answers rated) in bulk SQL, then downloads GET /api/chatbot/{id}/conversations/export through the
// gateway as CSV and as JSONL into a counting sink, and reads the chat service's and the gateway's
// peak RSS from /proc (VmHWM: the most the process has held since it started).
//
// In one run the stack runs twice on the same data: with the memory settings every process of the
// product runs with (PROCESS_MEMORY in scripts/stack.ts), and with the runtimes' own sizing.
//
//   npm run bench export            (or: node bench/export.ts)
//
// DATABASE_URL's server is used (default postgresql://postgres@127.0.0.1:5432) with a database of
// its own (parley_bench_export, dropped at the end unless BENCH_KEEP=1; BENCH_REUSE=1 exports a kept
// one again without seeding); the stack listens 400 above the default ports. BENCH_SCALE=0.1 seeds a tenth.
// Targets (ADR 20): ≥ 20,000 messages/s and peak RSS ≤ 200 MB for 100,000 conversations.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { createRedis, unlinkMatching } from '../services/common/src/redis.ts';
import { startStack, type RunningStack, type StackOptions } from '../scripts/stack.ts';
import { freshDatabase, postJson, stackChildren } from './bench-stack.ts';
import { int, mb } from './stats.ts';

const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
const DATABASE = 'parley_bench_export';
const PORT_OFFSET = 400;
const scale = Number(process.env.BENCH_SCALE ?? '1');
const reuse = process.env.BENCH_REUSE === '1';
const CONVERSATIONS = Math.round(100_000 * scale);
const PER_CONVERSATION = 5;
const OWNER_EMAIL = 'bench-export-owner@example.com';
const OWNER_PASSWORD = 'bench-export-password-2026';
const TARGET_MESSAGES_PER_S = 20_000;
const TARGET_PEAK_RSS_MB = 200;
/** The processes an export goes through, as the stack names them. */
const EXPORTING = ['chat', 'gateway'] as const;
type Memory = NonNullable<StackOptions['memory']>;
const MEMORY_LABEL: Record<Memory, string> = {
  parley: "with Parley's memory settings",
  'runtime-defaults': "with the runtimes' own sizing",
};

async function seed(db: pg.Client, chatbotId: string, ownerId: string) {
  const started = performance.now();
  console.log(`seeding ${int(CONVERSATIONS)} conversations of ${PER_CONVERSATION} messages (load average ${loadavg()[0].toFixed(2)})`);
  await db.query('SELECT setseed(0.2026)');
  const batch = 20_000;
  for (let first = 1; first <= CONVERSATIONS; first += batch) {
    const last = Math.min(CONVERSATIONS, first + batch - 1);
    // Over the last year, a conversation every ~5 minutes; messages 12 s apart.
    await db.query(
      `WITH c AS (
         INSERT INTO chat."Conversation" ("id", "chatbotId", "ownerId", "sessionId", "userIp", "userAgent", "messageCount", "createdAt", "updatedAt")
         SELECT gen_random_uuid(), $1::uuid, $2, 'session-' || g || '-' || md5(g::text), '198.51.' || (g % 256) || '.' || (g * 7 % 256),
                'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36', $3,
                now() - interval '365 days' + g * interval '315 seconds', now() - interval '365 days' + g * interval '315 seconds' + interval '60 seconds'
           FROM generate_series($4::int, $5::int) AS g
         RETURNING "id", "createdAt"
       )
       INSERT INTO chat."Message" ("conversationId", "role", "content", "createdAt", "rating")
       SELECT c."id", (CASE WHEN i % 2 = 1 THEN 'user' ELSE 'assistant' END)::chat."MessageRole",
              CASE WHEN i % 2 = 1 THEN 'Hi, do you ship to Canada, and how long does it take? I ordered "the blue one" last week.'
                   ELSE 'Yes, we ship to Canada. Standard delivery takes 5–7 business days, express 2–3.' || E'\\n' ||
                        'You can track your order from the link in your confirmation email; if it has not arrived within ' ||
                        'ten business days, reply here with your order number and we will look into it, or ask for a refund.' END,
              c."createdAt" + i * interval '12 seconds', CASE WHEN i % 2 = 0 AND random() < 0.2 THEN 'up' END
         FROM c, generate_series(1, $3::int) AS i`,
      [chatbotId, ownerId, PER_CONVERSATION, first, last],
    );
  }
  console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await db.query('VACUUM (ANALYZE) chat."Conversation", chat."Message"');
}

function status(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)![1]) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Downloads one export into a counting sink. */
async function download(url: string, token: string, chatbotId: string, format: 'csv' | 'jsonl') {
  const started = performance.now();
  const res = await fetch(`${url}/api/chatbot/${chatbotId}/conversations/export?format=${format}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
  let bytes = 0;
  let newlines = 0;
  for await (const chunk of res.body!) {
    bytes += chunk.byteLength;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
  }
  return { bytes, newlines, seconds: (performance.now() - started) / 1000 };
}

const { url: databaseUrl, admin } = reuse
  ? { url: Object.assign(new URL(BASE_DATABASE_URL), { pathname: `/${DATABASE}` }).toString(), admin: null }
  : await freshDatabase(BASE_DATABASE_URL, DATABASE);
const db = new pg.Client({ connectionString: databaseUrl });
const queuePrefix = `benchexport${randomBytes(4).toString('hex')}`;
const start = (memory: Memory) =>
  startStack({
    memory,
    portOffset: PORT_OFFSET,
    output: process.env.BENCH_LOGS ? 'inherit' : 'quiet',
    env: { DATABASE_URL: databaseUrl, QUEUE_PREFIX: queuePrefix, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', PORT: '' },
  });

let stack: RunningStack | undefined;
try {
  console.log(`conversation export benchmark, ${new Date().toISOString()}, ${cpus().length} CPUs, database ${DATABASE}`);
  await db.connect();
  const summaries: string[] = [];
  for (const memory of ['runtime-defaults', 'parley'] as const) {
    stack = await start(memory);
    const gateway = stack.url.replace('localhost', '127.0.0.1');
    const api = <T>(path: string, body: unknown, token?: string) => postJson<T>(gateway, path, body, token);
    // The first stack signs the owner up and seeds the data (unless BENCH_REUSE); the second reuses it.
    const setUp = !reuse && memory === 'runtime-defaults';
    if (setUp) {
      await api('/api/auth/register', { email: OWNER_EMAIL, password: OWNER_PASSWORD, password2: OWNER_PASSWORD });
    }
    const { token, user } = await api<{ token: string; user: { id: string } }>('/api/auth/login', {
      email: OWNER_EMAIL,
      password: OWNER_PASSWORD,
    });
    if (setUp) {
      await api('/api/chatbot', { name: 'Bench Support Bot' }, token);
      const { rowCount } = await db.query(`UPDATE billing."Account" SET "plan" = 'pro' WHERE "userId" = $1`, [user.id]);
      if (rowCount !== 1) throw new Error('no billing account for the bench owner');
    }
    const { rows: bots } = await db.query<{ id: string }>(`SELECT "id" FROM chatbot."Chatbot" WHERE "ownerId" = $1`, [user.id]);
    const chatbotId = bots[0].id;
    if (setUp) await seed(db, chatbotId, user.id);
    const { rows } = await db.query<{ messages: number; size: number }>(
      `SELECT (SELECT count(*) FROM chat."Message")::int AS messages, pg_total_relation_size('chat."Message"')::float8 AS size`,
    );
    const messages = rows[0].messages;
    if (memory === 'runtime-defaults') console.log(`data: ${int(messages)} messages, Message table ${mb(rows[0].size)}`);

    console.log(`\n${MEMORY_LABEL[memory]}:`);
    const children = stackChildren();
    const pids = EXPORTING.map((name) => children[name]!);
    const atStart = pids.map((pid) => status(pid).rss);
    console.log(`exporting processes: ${EXPORTING.map((name, i) => `${name} RSS before the first export ${mb(atStart[i])}`).join(', ')}`);
    const rates: string[] = [];
    for (const format of ['csv', 'jsonl'] as const) {
      for (const round of ['warm-up', 'measured'] as const) {
        const run = await download(gateway, token, chatbotId, format);
        const rate = messages / run.seconds;
        console.log(
          `${format} ${round}: ${int(messages)} messages, ${mb(run.bytes)} (${int(run.newlines)} line breaks) in ${run.seconds.toFixed(2)} s → ` +
            `${int(rate)} messages/s (target ≥ ${int(TARGET_MESSAGES_PER_S)}: ${rate >= TARGET_MESSAGES_PER_S ? 'met' : 'NOT met'})`,
        );
        if (round === 'measured') rates.push(`${format} ${int(rate)}`);
      }
    }
    // VmHWM is the process's peak since it started: its start, the sign-in and every export above.
    const peaks = EXPORTING.map((name, i) => {
      const { hwm } = status(pids[i]);
      return `${name} ${mb(atStart[i])} → ${mb(hwm)} (target ≤ ${TARGET_PEAK_RSS_MB} MB: ${hwm <= TARGET_PEAK_RSS_MB * 2 ** 20 ? 'met' : 'NOT met'})`;
    });
    console.log(`RSS before → peak: ${peaks.join(', ')}`);
    summaries.push(`${MEMORY_LABEL[memory]}: messages/s ${rates.join(', ')}; RSS before → peak: ${peaks.join(', ')}`);
    await stack.stop();
    stack = undefined;
  }
  console.log(`\n${summaries.join('\n')}`);
} finally {
  await stack?.stop();
  await db.end().catch(() => {});
  if (admin && process.env.BENCH_KEEP !== '1') {
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  } else console.log(`kept database ${DATABASE} (BENCH_REUSE=1 exports it again)`);
  await admin?.end();
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  await unlinkMatching(redis, `${queuePrefix}:*`);
  await redis.quit();
}
