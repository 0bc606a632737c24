// Exchange store benchmark (a script that prints figures, not a test): what the deleted-chatbot
// check costs the statement that stores every answered exchange (conversation-store.ts). In one run,
// alternated round by round on the same pool (the service's exchange pool: its size and session
// settings), the statement as it was before the check (kept below, only here) against
// recordExchange as it is, each exchange opening or extending one of a few hundred conversations,
// with DeletedChatbot holding 10,000 deleted chatbots. Real PostgreSQL.
//
//   npm run bench exchange-store        (or: node bench/exchange-store.ts)
//
// DATABASE_URL defaults to postgresql://postgres@127.0.0.1:5432/parley_bench; a fresh schema,
// dropped at the end. BENCH_EXCHANGES (default 4000) per variant, after 400 warm-up exchanges each.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { pgPool } from '../services/common/src/database.ts';
import { ensureDatabase, migrate } from '../services/common/src/migrations.ts';
import { storedSources } from '../services/chat/src/public-chat/message-sources.ts';
import {
  EXCHANGE_POOL_SIZE,
  EXCHANGE_SESSION_SETTINGS,
  recordExchange,
  type Exchange,
  type ExchangePool,
} from '../services/chat/src/public-chat/conversation-store.ts';
import { MIGRATIONS_DIR } from '../services/chat/src/service.ts';
import { latencies, load, ms, mulberry32 } from './stats.ts';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_bench';
const EXCHANGES = Number(process.env.BENCH_EXCHANGES ?? '4000');
const WARMUP = 400;
const ROUND = 200;
const CHATBOTS = 20;
const SESSIONS_PER_CHATBOT = 20;
const DELETED_CHATBOTS = 10_000;

/** The statement before the deleted-chatbot check (commit 7d1179b): the baseline. */
async function recordExchangeBefore(db: ExchangePool, x: Exchange): Promise<string> {
  const { rows } = await db.query<{ id: string; role: string }>(
    `WITH conversation AS (
      INSERT INTO "Conversation" ("id", "chatbotId", "ownerId", "sessionId", "userIp", "userAgent", "visitorId", "visitorName",
                                  "messageCount", "createdAt", "updatedAt")
      VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, $7, $8, 2, $9::timestamptz, $10::timestamptz)
      ON CONFLICT ("chatbotId", "sessionId") DO UPDATE
        SET "messageCount" = "Conversation"."messageCount" + 2, "updatedAt" = EXCLUDED."updatedAt"
      RETURNING "id"
    )
    INSERT INTO "Message" ("conversationId", "role", "content", "createdAt", "answered", "sources")
    SELECT conversation."id", m."role"::"MessageRole", m."content", m."createdAt", m."answered", m."sources"
      FROM conversation,
           (VALUES (1, 'user', $11, $9::timestamptz, NULL::boolean, NULL::jsonb),
                   (2, 'assistant', $12, $10::timestamptz, $13::boolean, $14::jsonb))
             AS m("order", "role", "content", "createdAt", "answered", "sources")
     ORDER BY m."order"
    RETURNING "id", "role"::text AS "role"`,
    [
      randomUUID(),
      x.chatbotId,
      x.ownerId,
      x.sessionId,
      x.clientIp,
      x.userAgent,
      x.visitorId ?? null,
      x.visitorName ?? null,
      x.receivedAt.toISOString(),
      x.answeredAt.toISOString(),
      x.message,
      x.answer,
      x.answered,
      storedSources(x.sources),
    ],
  );
  return rows.find((r) => r.role === 'assistant')!.id;
}

const variants = { before: recordExchangeBefore, after: recordExchange } as const;
type Variant = keyof typeof variants;

const schema = `bench_exchange_${process.pid}`;
await ensureDatabase(databaseUrl);
await migrate({ databaseUrl, schema, migrationsDir: MIGRATIONS_DIR });
const db = pgPool({ databaseUrl, schema, poolSize: EXCHANGE_POOL_SIZE, settings: EXCHANGE_SESSION_SETTINGS });
try {
  await db.query(`INSERT INTO "DeletedChatbot" ("chatbotId") SELECT gen_random_uuid() FROM generate_series(1, ${DELETED_CHATBOTS})`);
  const chatbots = Array.from({ length: CHATBOTS }, () => randomUUID());
  const random = mulberry32(15);
  const exchange = (): Exchange => {
    const chatbotId = chatbots[Math.floor(random() * CHATBOTS)];
    const now = new Date();
    return {
      chatbotId,
      ownerId: `owner-${chatbotId.slice(0, 8)}`,
      sessionId: `session-${Math.floor(random() * SESSIONS_PER_CHATBOT)}`,
      clientIp: '203.0.113.7',
      userAgent: 'Mozilla/5.0 (bench)',
      message: 'When do you open on Sundays?',
      receivedAt: now,
      answer: 'We open at ten on Sundays [1].',
      answeredAt: now,
      answered: true,
      sources: [{ entryId: randomUUID(), title: 'Opening hours', url: '' }],
    };
  };
  /** `count` exchanges through one variant, EXCHANGE_POOL_SIZE at a time (the pool's size): each one's time. */
  const run = async (variant: Variant, count: number): Promise<number[]> => {
    const times: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: EXCHANGE_POOL_SIZE }, async () => {
        while (next++ < count) {
          const x = exchange();
          const started = performance.now();
          await variants[variant](db, x);
          times.push(performance.now() - started);
        }
      }),
    );
    return times;
  };

  for (const variant of ['before', 'after'] as const) await run(variant, WARMUP);
  const samples: Record<Variant, number[]> = { before: [], after: [] };
  const elapsed: Record<Variant, number> = { before: 0, after: 0 };
  for (let done = 0; done < EXCHANGES; done += ROUND) {
    for (const variant of done % (2 * ROUND) ? (['after', 'before'] as const) : (['before', 'after'] as const)) {
      const started = performance.now();
      samples[variant].push(...(await run(variant, ROUND)));
      elapsed[variant] += performance.now() - started;
    }
  }

  console.log(`Exchange store: ${EXCHANGES} exchanges per variant, ${EXCHANGE_POOL_SIZE} at a time, alternated in rounds of ${ROUND}`);
  console.log(`load average ${load()}; ${DELETED_CHATBOTS.toLocaleString('en-US')} deleted chatbots recorded`);
  console.log('variant                               p50 ms   p95 ms   p99 ms   exchanges/s');
  for (const variant of ['before', 'after'] as const) {
    const l = latencies(samples[variant]);
    const label = variant === 'before' ? 'before (no deleted-chatbot check)' : 'after (recordExchange, with the check)';
    const rate = (samples[variant].length / elapsed[variant]) * 1000;
    console.log(
      `${label.padEnd(38)}${ms(l.p50).padStart(6)}${ms(l.p95).padStart(9)}${ms(l.p99).padStart(9)}${rate.toFixed(0).padStart(14)}`,
    );
  }
} finally {
  await db.end();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
