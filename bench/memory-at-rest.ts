// Memory at rest of the five processes (a script that prints figures, not a test): starts the whole
// product with startStack against a local fake of the OpenAI API, registers an owner with a chatbot,
// sends 50 public chat messages (10 visitors at once), waits REST_MS (default 3 s) of quiet, then
// reads each process's PSS (`Pss:` of /proc/PID/smaps_rollup: a shared page divided among the
// processes sharing it) and RSS. BENCH_BASE=/path/to/another/checkout (its node_modules and generated
// clients in place) alternates that checkout's stack with this one's (base, this, base, this) and
// prints the means and this − base per process (docs/adr/0068-memory-at-rest.md).
//
//   BENCH_BASE=<checkout of main> node bench/memory-at-rest.ts
//
// Uses its own database (parley_bench_rest, or BENCH_DATABASE), dropped at the end, ports 880 above
// the defaults (or BENCH_PORT_OFFSET) and its own queue prefix.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { startFakeOpenAI } from '../services/common/src/testing/fake-openai.ts';
import { PROCESSES, root, startStack } from '../scripts/stack.ts';
import { freshDatabase } from './bench-stack.ts';

const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
const DATABASE = process.env.BENCH_DATABASE ?? 'parley_bench_rest';
if (!/^[a-z_][a-z0-9_]*$/.test(DATABASE)) throw new Error(`BENCH_DATABASE must be a plain database name, got "${DATABASE}"`);
const PORT_OFFSET = Number(process.env.BENCH_PORT_OFFSET ?? '880');
const REST_MS = Number(process.env.REST_MS ?? '3000');
const MESSAGES = 50;
const BASE = process.env.BENCH_BASE;

const sleep = (n: number) => new Promise<void>((r) => setTimeout(r, n));
const kb = (pid: number, file: string, field: string) =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'))![1]) / 1024;

type Starter = typeof startStack;
const starters: [string, Starter][] = [['this', startStack]];
if (BASE) {
  const base = (await import(pathToFileURL(join(BASE, 'scripts/stack.ts')).href)) as { startStack: Starter };
  starters.unshift(['base', base.startStack]);
}

const model = await startFakeOpenAI();
const { url: databaseUrl, admin } = await freshDatabase(BASE_DATABASE_URL, DATABASE);
const rounds: Record<string, Record<string, { pss: number; rss: number }>[]> = {};
try {
  for (const [kind, start] of [...starters, ...starters]) {
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${DATABASE}`);
    const stack = await start({
      portOffset: PORT_OFFSET,
      output: process.env.BENCH_LOGS ? 'inherit' : 'quiet',
      env: {
        DATABASE_URL: databaseUrl,
        QUEUE_PREFIX: `benchrest${randomBytes(4).toString('hex')}`,
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
        PORT: '',
        OPENAI_API_KEY: 'bench-key',
        OPENAI_BASE_URL: model.url,
        CHAT_RATE_PER_VISITOR: '1000000',
        CHAT_RATE_PER_BOT: '10000000',
        TRUST_PROXY: '1',
      },
    });
    try {
      const gateway = stack.url.replace('localhost', '127.0.0.1');
      const call = async <T>(path: string, body: unknown, token?: string, method = 'POST'): Promise<T> => {
        const res = await fetch(`${gateway}${path}`, {
          method,
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        });
        const json = (await res.json()) as T;
        if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
        return json;
      };
      const password = 'bench-password-2026';
      const email = `rest-${randomBytes(4).toString('hex')}@example.com`;
      const { token, user } = await call<{ token: string; user: { id: string } }>('/api/auth/register', {
        email,
        password,
        password2: password,
      });
      const bot = await call<{ _id: string; uniqueId: string }>('/api/chatbot', { name: 'Bench shop assistant' }, token);
      await call(
        `/api/chatbot/${bot._id}/knowledge-base/text`,
        { text: 'The shop opens at nine and ships worldwide within three days.', append: true },
        token,
      );
      await call(`/api/chatbot/${bot._id}`, { limits: { visitorMessagesPerDay: null, dailySpendLimit: null } }, token, 'PUT');
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        // Billing opens the account when it hears of the new user (a queue): given 10 s to do so.
        for (let tries = 0; ; tries++, await sleep(200)) {
          const { rowCount } = await db.query(`UPDATE billing."Account" SET "creditBalance" = 1000 WHERE "userId" = $1`, [user.id]);
          if (rowCount === 1) break;
          if (tries > 50) throw new Error('no billing account for the bench owner');
        }
      } finally {
        await db.end();
      }
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          for (let i = 0; i < MESSAGES / 10; i++)
            await call(`/api/chatbot/public/${bot.uniqueId}/chat`, { message: `Where do you ship? (${i})` });
        }),
      );
      await sleep(REST_MS);
      const round: Record<string, { pss: number; rss: number }> = {};
      for (const p of PROCESSES) {
        const pid = stack.pid(p.name)!;
        round[p.name] = { pss: kb(pid, 'smaps_rollup', 'Pss'), rss: kb(pid, 'status', 'VmRSS') };
      }
      (rounds[kind] ??= []).push(round);
      const total = (f: 'pss' | 'rss') => Object.values(round).reduce((n, m) => n + m[f], 0);
      console.log(
        `${kind}: PSS ${total('pss').toFixed(0)} MB, RSS ${total('rss').toFixed(0)} MB at rest (PSS/RSS ` +
          `${PROCESSES.map((p) => `${p.name} ${round[p.name].pss.toFixed(0)}/${round[p.name].rss.toFixed(0)}`).join(', ')})`,
      );
    } finally {
      await stack.stop();
    }
  }
  const kinds = Object.keys(rounds);
  const mean = (kind: string, name: string, f: 'pss' | 'rss') => rounds[kind].reduce((n, r) => n + r[name][f], 0) / rounds[kind].length;
  const names = [...PROCESSES.map((p) => p.name), 'total'];
  const of = (kind: string, name: string, f: 'pss' | 'rss') =>
    name === 'total' ? PROCESSES.reduce((n, p) => n + mean(kind, p.name, f), 0) : mean(kind, name, f);
  console.log(`\nmeans of ${rounds.this.length} rounds, PSS / RSS at rest (MB), ${root}:`);
  console.log(`| process | ${kinds.join(' | ')} |${BASE ? ' this − base |' : ''}`);
  console.log(`| --- | ${kinds.map(() => '---').join(' | ')} |${BASE ? ' --- |' : ''}`);
  for (const name of names) {
    const cells = kinds.map((k) => `${of(k, name, 'pss').toFixed(0)} / ${of(k, name, 'rss').toFixed(0)}`);
    const diff = BASE
      ? ` ${(of('this', name, 'pss') - of('base', name, 'pss')).toFixed(0)} / ${(of('this', name, 'rss') - of('base', name, 'rss')).toFixed(0)} |`
      : '';
    console.log(`| ${name} | ${cells.join(' | ')} |${diff}`);
  }
} finally {
  await model.close();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.end();
}
