// Conversation export benchmark (a script that prints figures, not a test). Seeds one chatbot with
// 100,000 conversations of 5 messages each (visitor questions and longer answers, some with quotes,
// commas and line breaks, a fifth of the answers rated) in bulk SQL, then downloads
// GET /api/chatbot/{id}/conversations/export as CSV and as JSONL. The exporting side runs as in
// production, in two processes: the chat service (ExportConversations over Connect) and the gateway's
// export route in front of it, with the chatbot and billing services and the signed-in owner stood in
// for (ownership and plan are answered at once; they are one call each per export). This process
// reads the download into a counting sink and each process's peak RSS from /proc (VmHWM).
//
//   npm run bench export            (or: node bench/export.ts)
//
// DATABASE_URL defaults to postgresql://postgres@127.0.0.1:5432/parley_bench and REDIS_URL to
// redis://127.0.0.1:6379; a fresh schema is created and dropped at the end (BENCH_KEEP=1 keeps it;
// BENCH_SCHEMA=<kept schema> exports again without seeding). BENCH_SCALE=0.1 seeds a tenth.
// Targets (issue 15): ≥ 20,000 messages/s and peak RSS ≤ 200 MB for 100,000 conversations.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import express from 'express';
import pg from 'pg';
import { Plan } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { createLogger } from '../services/common/src/logger.ts';
import { ensureDatabase, migrate } from '../services/common/src/migrations.ts';
import { createServiceClient } from '../services/common/src/rpc-client.ts';
import { serveApp } from '../services/common/src/testing/serve.ts';
import { readChatConfig } from '../services/chat/src/config.ts';
import { createChatService, MIGRATIONS_DIR } from '../services/chat/src/service.ts';
import { conversationExportRoutes } from '../gateway/src/rest/conversation-export.ts';
import type { Clients } from '../gateway/src/clients.ts';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_bench';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const scale = Number(process.env.BENCH_SCALE ?? '1');
const CONVERSATIONS = Math.round(100_000 * scale);
const PER_CONVERSATION = 5;
const OWNER = 'bench-export-owner';
const CHATBOT_ID = '3d6f1c1e-5b7a-4c59-9a43-0c1d2e3f4a5b';
const TARGET_MESSAGES_PER_S = 20_000;
const TARGET_PEAK_RSS_MB = 200;
/** Node flags of the exporting process, e.g. BENCH_CHILD_FLAGS=--max-old-space-size=64 to show the heap it needs. */
const childFlags = (process.env.BENCH_CHILD_FLAGS ?? '').split(' ').filter(Boolean);

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

// ---- the child: chat service + the gateway's export route ----

const chatbots = {
  listChatbots: async () => ({ chatbots: [{ id: CHATBOT_ID, name: 'Bench Support Bot' }] }),
} as unknown as Parameters<typeof createChatService>[1]['chatbots'];

/** The chat service's process. */
async function serveChat(schema: string) {
  const logger = createLogger('bench-export', 'warn');
  const billing = {
    getAccount: async () => ({ account: { userId: OWNER, plan: Plan.PRO } }),
  } as unknown as Parameters<typeof createChatService>[1]['billing'];
  const config = readChatConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    CHAT_DB_SCHEMA: schema,
    QUEUE_PREFIX: `bench-export-${process.pid}`,
    CHATBOT_URL: 'http://127.0.0.1:9',
    BILLING_URL: 'http://127.0.0.1:9',
    LOG_LEVEL: 'warn',
  });
  const chat = await createChatService(config, { logger, workers: false, chatbots, billing, model: null });
  const chatServer = await serveApp(chat.app);
  process.send!({ url: chatServer.url });
  process.on('SIGTERM', async () => {
    await chatServer.close();
    for (const close of chat.closers) await close();
    process.exit(0);
  });
}

/** The gateway's process (its export route only). */
async function serveGateway(chatUrl: string) {
  const logger = createLogger('bench-export', 'warn');
  const clients = {
    chat: createServiceClient(ChatService, chatUrl),
    chatbot: chatbots,
    auth: { authenticate: async () => ({ user: { id: OWNER } }) },
  } as unknown as Clients;
  const app = express();
  app.use('/api/chatbot', conversationExportRoutes(clients, { logger }));
  const gateway = await serveApp(app);
  process.send!({ url: gateway.url });
  process.on('SIGTERM', async () => {
    await gateway.close();
    process.exit(0);
  });
}

/** Starts this script as one of the exporting processes; resolves with it and the URL it serves. */
async function start(args: string[]): Promise<{ child: ReturnType<typeof spawn>; url: string }> {
  const child = spawn(process.execPath, [...childFlags, fileURLToPath(import.meta.url), ...args], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m: { url: string }) => resolve(m.url));
    child.once('exit', (code) => reject(new Error(`the exporting process ${args[0]} exited (${code})`)));
  });
  return { child, url };
}

// ---- the parent: seed, start the child, download, measure ----

async function seed(admin: pg.Client) {
  const started = performance.now();
  console.log(`seeding ${int(CONVERSATIONS)} conversations of ${PER_CONVERSATION} messages (load average ${loadavg()[0].toFixed(2)})`);
  await admin.query('SELECT setseed(0.2026)');
  const batch = 20_000;
  for (let first = 1; first <= CONVERSATIONS; first += batch) {
    const last = Math.min(CONVERSATIONS, first + batch - 1);
    // Over the last year, a conversation every ~5 minutes; messages 2–20 s apart.
    await admin.query(
      `WITH c AS (
         INSERT INTO "Conversation" ("id", "chatbotId", "ownerId", "sessionId", "userIp", "userAgent", "messageCount", "createdAt", "updatedAt")
         SELECT gen_random_uuid(), $1::uuid, $2, 'session-' || g || '-' || md5(g::text), '198.51.' || (g % 256) || '.' || (g * 7 % 256),
                'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36', $3,
                now() - interval '365 days' + g * interval '315 seconds', now() - interval '365 days' + g * interval '315 seconds' + interval '60 seconds'
           FROM generate_series($4::int, $5::int) AS g
         RETURNING "id", "createdAt"
       )
       INSERT INTO "Message" ("conversationId", "role", "content", "createdAt", "rating")
       SELECT c."id", (CASE WHEN i % 2 = 1 THEN 'user' ELSE 'assistant' END)::"MessageRole",
              CASE WHEN i % 2 = 1 THEN 'Hi, do you ship to Canada, and how long does it take? I ordered "the blue one" last week.'
                   ELSE 'Yes, we ship to Canada. Standard delivery takes 5–7 business days, express 2–3.' || E'\\n' ||
                        'You can track your order from the link in your confirmation email; if it has not arrived within ' ||
                        'ten business days, reply here with your order number and we will look into it, or ask for a refund.' END,
              c."createdAt" + i * interval '12 seconds', CASE WHEN i % 2 = 0 AND random() < 0.2 THEN 'up' END
         FROM c, generate_series(1, $3::int) AS i`,
      [CHATBOT_ID, OWNER, PER_CONVERSATION, first, last],
    );
  }
  console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await admin.query('VACUUM (ANALYZE) "Conversation", "Message"');
}

function status(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)![1]) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

async function main() {
  const reuse = process.env.BENCH_SCHEMA;
  const schema = reuse ?? `bench_export_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(databaseUrl);
  const admin = new pg.Client({ connectionString: databaseUrl, options: `-c search_path="${schema}"` });
  await admin.connect();
  const children: ReturnType<typeof spawn>[] = [];
  try {
    console.log(`conversation export benchmark, ${new Date().toISOString()}, ${cpus().length} CPUs, schema ${schema}`);
    if (!reuse) {
      await migrate({ databaseUrl, schema, migrationsDir: MIGRATIONS_DIR });
      await seed(admin);
    }
    const { rows } = await admin.query(
      `SELECT (SELECT count(*) FROM "Message")::int AS messages, pg_total_relation_size('"Message"')::float8 AS size`,
    );
    console.log(`data: ${int(rows[0].messages)} messages, Message table ${mb(rows[0].size)}`);

    const chat = await start(['--serve-chat', schema]);
    children.push(chat.child);
    const gateway = await start(['--serve-gateway', chat.url]);
    children.push(gateway.child);
    const url = gateway.url;
    const processes = { 'chat service': chat.child.pid!, gateway: gateway.child.pid! };
    console.log(
      `exporting processes: ${Object.entries(processes)
        .map(([name, pid]) => `${name} ${pid} RSS at start ${mb(status(pid).rss)}`)
        .join(', ')}`,
    );

    for (const format of ['csv', 'jsonl'] as const) {
      for (const round of ['warm-up', 'measured'] as const) {
        const before = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, status(pid)]));
        const started = performance.now();
        const res = await fetch(`${url}/api/chatbot/${CHATBOT_ID}/conversations/export?format=${format}`, {
          headers: { authorization: 'Bearer bench' },
        });
        if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
        let bytes = 0;
        let newlines = 0;
        for await (const chunk of res.body!) {
          bytes += chunk.byteLength;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
        }
        const seconds = (performance.now() - started) / 1000;
        const messages = rows[0].messages as number;
        const rate = messages / seconds;
        console.log(
          `${format} ${round}: ${int(messages)} messages, ${mb(bytes)} (${int(newlines)} line breaks) in ${seconds.toFixed(2)} s → ` +
            `${int(rate)} messages/s (target ≥ ${int(TARGET_MESSAGES_PER_S)}: ${rate >= TARGET_MESSAGES_PER_S ? 'met' : 'NOT met'})`,
        );
        // VmHWM is the process's peak since it started: after the first export it is that export's peak or an earlier one's.
        for (const [name, pid] of Object.entries(processes)) {
          const after = status(pid);
          console.log(
            `  ${name}: RSS ${mb(before[name].rss)} before, peak so far ${mb(after.hwm)} (target ≤ ${TARGET_PEAK_RSS_MB} MB: ` +
              `${after.hwm <= TARGET_PEAK_RSS_MB * 2 ** 20 ? 'met' : 'NOT met'})`,
          );
        }
      }
    }
  } finally {
    for (const child of children.reverse()) {
      if (child.exitCode !== null) continue;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    if (!reuse && !process.env.BENCH_KEEP) {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      console.log(`dropped schema ${schema}`);
    } else console.log(`kept schema ${schema} (BENCH_SCHEMA=${schema} exports again)`);
    await admin.end();
  }
}

if (process.argv[2] === '--serve-chat') await serveChat(process.argv[3]!);
else if (process.argv[2] === '--serve-gateway') await serveGateway(process.argv[3]!);
else await main();
