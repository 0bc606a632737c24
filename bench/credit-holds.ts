// Credit holds benchmark (a script that prints figures, not a test): what billing's hold_credit
// statement costs for a batch of holds on one owner's account, as a burst of first messages to one
// chatbot makes them (billing's group commit sends up to HOLD_BATCH_MAX holds in one statement), with
// the function as it was before its account row was written once per batch (the migrations up to
// 20261202130000) against the function as it is (every migration). In one run, alternated round by
// round, each on a schema of its own with the same rows: one owner, a balance that covers every hold,
// a batch of 1, 10 and HOLD_BATCH_MAX holds at the default model's price, each batch's holds released
// after it (as their answers settle them) so every round starts from the same account. Real PostgreSQL.
//
//   npm run bench credit-holds        (or: node bench/credit-holds.ts)
//
// DATABASE_URL defaults to postgresql://postgres@127.0.0.1:5432/parley_bench; two fresh schemas,
// dropped at the end. BENCH_ROUNDS (default 30) rounds per variant and batch size, after 3 warm-up rounds.
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ensureDatabase, migrate } from '../services/common/src/migrations.ts';
import { MIGRATIONS_DIR } from '../services/billing/src/service.ts';
import { CREDIT_HOLD_TTL_MS, HOLD_BATCH_MAX } from '../services/billing/src/credit/reserve-credit.ts';
import { latencies, load, ms } from './stats.ts';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_bench';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? '30');
const WARMUP = 3;
const SIZES = [1, 10, HOLD_BATCH_MAX];
/** The last migration of the function before this change: the baseline's schema stops there. */
const BEFORE_LAST = '20261202130000_usage_retention';
const OWNER = 'bench-owner';

const tag = randomUUID().slice(0, 8);
const variants = [
  { name: 'before', schema: `bench_holds_before_${tag}` },
  { name: 'after', schema: `bench_holds_after_${tag}` },
] as const;

await ensureDatabase(databaseUrl);
const beforeDir = mkdtempSync(join(tmpdir(), 'parley-holds-'));
for (const name of readdirSync(MIGRATIONS_DIR))
  if (name <= BEFORE_LAST) cpSync(join(MIGRATIONS_DIR, name), join(beforeDir, name), { recursive: true });
await migrate({ databaseUrl, schema: variants[0].schema, migrationsDir: beforeDir });
await migrate({ databaseUrl, schema: variants[1].schema, migrationsDir: MIGRATIONS_DIR });

const clients = new Map<string, pg.Client>();
try {
  for (const v of variants) {
    const client = new pg.Client({ connectionString: databaseUrl, options: `-c search_path="${v.schema}"` });
    await client.connect();
    clients.set(v.name, client);
    await client.query(`INSERT INTO "Account" ("userId", "creditBalance", "updatedAt") VALUES ($1, 1000000, now())`, [OWNER]);
  }

  /** One batch of `size` holds in one statement (as billing sends it), then its holds released: the statement's time in ms. */
  async function batch(client: pg.Client, size: number): Promise<number> {
    const holds = Array.from({ length: size }, () => ({
      requestId: randomUUID(),
      userId: OWNER,
      model: 'gpt-4o-mini',
      maxPromptTokens: 4000,
      maxCompletionTokens: 1000,
      chatbotId: 'bench-chatbot',
      dailySpendLimit: null,
      ownKeyFee: null,
    }));
    const started = performance.now();
    const { rows } = await client.query<{ o_outcome: string }>('SELECT * FROM hold_credit($1::jsonb, $2::bigint)', [
      JSON.stringify(holds),
      CREDIT_HOLD_TTL_MS,
    ]);
    const took = performance.now() - started;
    if (rows.length !== size || rows.some((r) => r.o_outcome !== 'held')) throw new Error(`a hold was refused: ${JSON.stringify(rows[0])}`);
    await client.query(`DELETE FROM "CreditReservation"`);
    await client.query(`UPDATE "Account" SET "reservedCredit" = 0 WHERE "userId" = $1`, [OWNER]);
    return took;
  }

  console.log(`credit holds benchmark: load ${load()}; ${ROUNDS} rounds per variant and batch size, alternated, one owner's account`);
  for (const size of SIZES) {
    const samples: Record<string, number[]> = { before: [], after: [] };
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
        const took = await batch(clients.get(v.name)!, size);
        if (round >= WARMUP) samples[v.name].push(took);
      }
    }
    const [b, a] = [latencies(samples.before), latencies(samples.after)];
    console.log(
      `  ${size} hold${size === 1 ? '' : 's'} a statement: before p50 ${ms(b.p50)} ms, p95 ${ms(b.p95)} ms; after p50 ${ms(a.p50)} ms, ` +
        `p95 ${ms(a.p95)} ms; after ÷ before p50 ${(a.p50 / b.p50).toFixed(2)}`,
    );
  }
  console.log(`  load at the end ${load()}`);
} finally {
  for (const client of clients.values()) await client.end();
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  for (const v of variants) await admin.query(`DROP SCHEMA IF EXISTS "${v.schema}" CASCADE`);
  await admin.end();
  rmSync(beforeDir, { recursive: true, force: true });
}
