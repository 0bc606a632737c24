// What a round trip costs on this machine when the processes involved were idle, against the same
// round trip back to back (a script that prints figures, not a test). On a virtual machine a
// process woken from idle pays for the wake-up, so a request that crosses several processes at a
// low rate (the public chat's paced visitors) costs more per hop than the same request under load.
//
//   npm run bench wakeups              (or: node bench/wakeups.ts)
//
// Uses Redis (REDIS_URL, default redis://127.0.0.1:6379) under its own key prefix, and the
// `postgres` database of DATABASE_URL's server (default postgresql://postgres@127.0.0.1:5432).
import { Queue } from 'bullmq';
import pg from 'pg';
import { prismaAdapter } from '../services/common/src/database.ts';
import { createRedis } from '../services/common/src/redis.ts';
import { PrismaClient } from '../services/chat/src/generated/prisma/client.ts';
import { percentile } from './stats.ts';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const databaseUrl = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
databaseUrl.pathname = '/postgres';
const prefix = `bench-wakeups-${process.pid}`;

const redis = createRedis(redisUrl);
const queue = new Queue('wakeups', { connection: redis, prefix });
const pool = new pg.Pool({ connectionString: databaseUrl.toString(), max: 2 });
const prisma = new PrismaClient({ adapter: prismaAdapter({ databaseUrl: databaseUrl.toString(), schema: 'public' }) });

const operations: [string, () => Promise<unknown>][] = [
  ['Redis PING', () => redis.ping()],
  ['SELECT 1 (pg)', () => pool.query('SELECT 1')],
  ['SELECT 1 (Prisma, raw)', () => prisma.$queryRawUnsafe('SELECT 1')],
  ['BullMQ add', () => queue.add('job', { a: 1, b: 'hello' }, { removeOnComplete: true })],
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ms = (n: number) => n.toFixed(3);

try {
  console.log('round trips, back to back (1,000 each) and after 40 ms idle (150 each), after 50 warm-up calls:');
  for (const [name, op] of operations) {
    for (let i = 0; i < 50; i++) await op();
    const times = async (count: number, gapMs: number) => {
      const out: number[] = [];
      for (let i = 0; i < count; i++) {
        if (gapMs) await sleep(gapMs);
        const t0 = performance.now();
        await op();
        out.push(performance.now() - t0);
      }
      return out.sort((a, b) => a - b);
    };
    const hot = await times(1000, 0);
    const cold = await times(150, 40);
    console.log(
      `  ${name.padEnd(24)} back to back p50 ${ms(percentile(hot, 50))} ms, p90 ${ms(percentile(hot, 90))} ms;` +
        ` after idle p50 ${ms(percentile(cold, 50))} ms, p90 ${ms(percentile(cold, 90))} ms`,
    );
  }
} finally {
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  await redis.quit();
  await pool.end();
  await prisma.$disconnect();
}
