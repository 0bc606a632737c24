// Starts the architecture floor (bench/architecture-floor/): the smallest system of Parley's shape
// for a public chat message, three plain node:http processes, edge → chat → billing, with signed
// keep-alive calls between them, its own database (created afresh here) and its own Redis key
// prefix. It measures what the shape itself costs (two hops, a hold committed before the model, an
// event settled later), beside bench/floor.ts, the one process doing only the irreducible work.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import pg from 'pg';
import { PROCESS_MEMORY } from '../../scripts/stack.ts';
import { freshDatabase } from '../bench-stack.ts';

export const ARCHITECTURE_FLOOR_PROCESSES = ['billing', 'chat', 'edge'] as const;
export type ArchitectureFloorProcess = (typeof ARCHITECTURE_FLOOR_PROCESSES)[number];

export interface ArchitectureFloorOptions {
  /** A PostgreSQL URL of the server to use; `database` is created on it afresh. */
  baseDatabaseUrl: string;
  database: string;
  redisUrl: string;
  /** The OpenAI-compatible endpoint (the benchmark's fake), ending in /v1. */
  modelUrl: string;
  botName: string;
  knowledge: { title: string; text: string }[];
  /** Messages per visitor per minute (the benchmark lifts the product's limit as far). */
  ratePerMinute: number;
  /** Prefix of every Redis key the floor writes, for the benchmark to delete. */
  keyPrefix: string;
  /** NODE_OPTIONS of the three processes (a profiler's flags). */
  nodeOptions?: string;
}

export interface RunningArchitectureFloor {
  url: string;
  uniqueId: string;
  pids: Record<ArchitectureFloorProcess, number>;
  /**
   * Waits until billing has settled every usage event (no hold left, the stream empty), then checks
   * the books: the balance is the starting credit less the recorded usage's cost. Returns the usage
   * records; false when not settled within `timeoutMs`.
   */
  settled(timeoutMs: number): Promise<number | false>;
  stop(): Promise<void>;
}

/** The owner's starting credit, in dollars. */
const CREDIT = 1000;

const SCHEMA = `
  CREATE SCHEMA chat;
  CREATE SCHEMA billing;
  CREATE TABLE chat.chatbot (id uuid PRIMARY KEY, unique_id text UNIQUE NOT NULL, owner_id uuid NOT NULL, name text NOT NULL);
  CREATE TABLE chat.knowledge (id bigserial PRIMARY KEY, chatbot_id uuid NOT NULL REFERENCES chat.chatbot,
    title text NOT NULL, content text NOT NULL);
  CREATE INDEX ON chat.knowledge (chatbot_id);
  CREATE TABLE chat.message (id bigserial PRIMARY KEY, chatbot_id uuid NOT NULL, session_id text NOT NULL, visitor_ip text NOT NULL,
    role text NOT NULL, content text NOT NULL, request_id text, prompt_tokens int, completion_tokens int, created_at timestamptz NOT NULL);
  CREATE INDEX ON chat.message (chatbot_id, session_id, created_at);
  CREATE TABLE billing.account (owner_id uuid PRIMARY KEY, balance numeric(20, 8) NOT NULL);
  CREATE TABLE billing.hold (request_id text PRIMARY KEY, owner_id uuid NOT NULL REFERENCES billing.account,
    amount numeric(20, 8) NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE billing.usage (request_id text PRIMARY KEY, owner_id uuid NOT NULL, chatbot_id uuid NOT NULL,
    prompt_tokens int NOT NULL, completion_tokens int NOT NULL, cost numeric(20, 8) NOT NULL, occurred_at timestamptz NOT NULL);`;

/** Creates the floor's database with one chatbot, its knowledge and its owner's credit, then starts billing, chat and the edge. */
export async function startArchitectureFloor(opts: ArchitectureFloorOptions): Promise<RunningArchitectureFloor> {
  const { url: databaseUrl, admin } = await freshDatabase(opts.baseDatabaseUrl, opts.database);
  await admin.end();
  const uniqueId = randomBytes(12).toString('base64url');
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query(SCHEMA);
    const [owner, bot] = [randomUUID(), randomUUID()];
    await db.query('INSERT INTO billing.account VALUES ($1, $2)', [owner, CREDIT]);
    await db.query('INSERT INTO chat.chatbot VALUES ($1, $2, $3, $4)', [bot, uniqueId, owner, opts.botName]);
    for (const k of opts.knowledge)
      await db.query('INSERT INTO chat.knowledge (chatbot_id, title, content) VALUES ($1, $2, $3)', [bot, k.title, k.text]);
  } finally {
    await db.end();
  }
  // The chatbot's prompt revision, as Parley's chatbot service sets it on every public change (ADR 6).
  const redis = new Redis(opts.redisUrl);
  await redis.set(`${opts.keyPrefix}:revision:${uniqueId}`, randomBytes(8).toString('hex'));
  await redis.quit();

  const env: NodeJS.ProcessEnv = {
    FLOOR_DATABASE_URL: databaseUrl,
    FLOOR_REDIS_URL: opts.redisUrl,
    FLOOR_MODEL_URL: opts.modelUrl,
    FLOOR_RATE_PER_MINUTE: String(opts.ratePerMinute),
    FLOOR_KEY_PREFIX: opts.keyPrefix,
    FLOOR_SECRET: randomBytes(32).toString('base64url'),
    ...(opts.nodeOptions ? { NODE_OPTIONS: opts.nodeOptions } : {}),
  };
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
  };
  try {
    const pids = {} as Record<ArchitectureFloorProcess, number>;
    for (const name of ARCHITECTURE_FLOOR_PROCESSES) {
      const { child, port } = await startProcess(name, env);
      children.push(child);
      pids[name] = child.pid!;
      if (name === 'billing') env.FLOOR_BILLING_URL = `http://127.0.0.1:${port}`;
      if (name === 'chat') env.FLOOR_CHAT_URL = `http://127.0.0.1:${port}`;
      if (name === 'edge') return { url: `http://127.0.0.1:${port}`, uniqueId, pids, settled: (t) => settled(databaseUrl, opts, t), stop };
    }
    throw new Error('the architecture floor has no edge');
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Runs one of the floor's processes with the stack's memory settings (both pay the same) and waits for its port. */
async function startProcess(name: ArchitectureFloorProcess, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...PROCESS_MEMORY.nodeFlags, join(import.meta.dirname, `${name}.ts`)], {
    env: { ...process.env, ...PROCESS_MEMORY.env, ...env, FLOOR_SERVE: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => {
      const listening = /^listening (\d+)$/.exec(line);
      if (listening) resolve(Number(listening[1]));
      else reject(new Error(`the architecture floor's ${name} said: ${line}`));
    });
    void exited.then(() => reject(new Error(`the architecture floor's ${name} exited before listening`)));
    setTimeout(() => reject(new Error(`the architecture floor's ${name} did not listen within 30 s`)), 30_000).unref();
  });
  return { child, port };
}

async function settled(databaseUrl: string, opts: ArchitectureFloorOptions, timeoutMs: number): Promise<number | false> {
  const db = new pg.Client({ connectionString: databaseUrl });
  const redis = new Redis(opts.redisUrl);
  await db.connect();
  try {
    for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 100))) {
      const holds = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM billing.hold')).rows[0].n);
      if (holds === 0 && (await redis.xlen(`${opts.keyPrefix}:usage`)) === 0) break;
      if (Date.now() > deadline) return false;
    }
    const { rows } = await db.query<{ records: string; books: boolean }>(
      `SELECT (SELECT count(*) FROM billing.usage) AS records,
              (SELECT sum(balance) FROM billing.account) = $1 - (SELECT coalesce(sum(cost), 0) FROM billing.usage) AS books`,
      [CREDIT],
    );
    if (!rows[0].books) throw new Error("the architecture floor's balance is not its credit less the recorded usage");
    return Number(rows[0].records);
  } finally {
    await Promise.all([db.end(), redis.quit()]);
  }
}
