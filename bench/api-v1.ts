// Developer API benchmark (a script that prints figures, not a test). Starts the whole product with
// startStack against a local fake of the OpenAI API (zero latency, in this process), then measures:
//   1. the key check a call of /api/v1 adds, cache warm: the gateway's own key checker (keys.ts,
//      against the running auth) and its rate-limit script (rate-limit.ts, against Redis), each timed
//      alone in this process; then GET /api/v1/chatbots with a key against GET /api/chatbot with a
//      session (the same ListChatbots behind both), alternated;
//   2. a chat message through POST /api/v1/chatbots/{id}/chat against the same message through the
//      public chat's POST /api/chatbot/public/{uniqueId}/chat, alternated in rounds in one run, one
//      client at a time (the latency each path adds over the same chat service call).
//
//   node bench/api-v1.ts            (or: npm run bench api-v1)
//
// Uses its own database (parley_bench_api, or BENCH_DATABASE), dropped at the end, ports 400 above
// the defaults (or BENCH_PORT_OFFSET) and its own key prefix. BENCH_SCALE=0.1 runs a tenth of the requests.
import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import pg from 'pg';
import { createRedis, unlinkMatching } from '../services/common/src/redis.ts';
import { createServiceClient } from '../services/common/src/rpc-client.ts';
import { startFakeOpenAI } from '../services/common/src/testing/fake-openai.ts';
import { ApiKeyService } from '../proto/gen/parley/auth/v1/api_keys_pb.js';
import { createClients } from '../gateway/src/http/clients.ts';
import { keyChecker } from '../gateway/src/access/api-keys.ts';
import { keyRateLimiter } from '../gateway/src/v1/rate-limit.ts';
import { PROCESSES, startStack } from '../scripts/stack.ts';
import { freshDatabase, postJson } from './bench-stack.ts';
import { latencies, ms } from './stats.ts';

const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
const DATABASE = process.env.BENCH_DATABASE ?? 'parley_bench_api';
if (!/^[a-z_][a-z0-9_]*$/.test(DATABASE)) throw new Error(`BENCH_DATABASE must be a plain database name, got "${DATABASE}"`);
const PORT_OFFSET = Number(process.env.BENCH_PORT_OFFSET ?? '400');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const scale = Number(process.env.BENCH_SCALE ?? '1');
const CHECKS = Math.max(200, Math.round(5_000 * scale));
const READS = Math.max(50, Math.round(1_000 * scale));
const ROUNDS = 4;
const MESSAGES_PER_ROUND = Math.max(10, Math.round(250 * scale));

const { url: databaseUrl, admin } = await freshDatabase(BASE_DATABASE_URL, DATABASE);
const model = await startFakeOpenAI({ delayMs: 0, chunkDelayMs: 0 });
const prefix = `benchapi${randomBytes(4).toString('hex')}`;
const serviceSecret = randomBytes(32).toString('base64url');
const stack = await startStack({
  portOffset: PORT_OFFSET,
  output: process.env.BENCH_LOGS ? 'inherit' : 'quiet',
  env: {
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    PORT: '',
    OPENAI_API_KEY: 'bench-key',
    OPENAI_BASE_URL: model.url,
    CHAT_RATE_PER_VISITOR: '1000000',
    CHAT_RATE_PER_BOT: '10000000',
    API_RATE_LIMIT: '1000000',
    SERVICE_SECRET: serviceSecret,
  },
});
const gateway = stack.url.replace('localhost', '127.0.0.1');
const authUrl = `http://127.0.0.1:${PROCESSES.find((p) => p.name === 'auth')!.defaultPort + PORT_OFFSET}`;
const redis = createRedis(REDIS_URL);

const sleep = (msecs: number) => new Promise((resolve) => setTimeout(resolve, msecs));
const timed = async (fn: () => Promise<unknown>) => {
  const started = performance.now();
  await fn();
  return performance.now() - started;
};
const line = (name: string, samples: number[], unit: 'ms' | 'µs' = 'ms') => {
  const l = latencies(samples);
  const f = (n: number) => (unit === 'ms' ? `${ms(n)} ms` : `${Math.round(n * 1000)} µs`);
  console.log(`  ${name.padEnd(44)} p50 ${f(l.p50)}   p95 ${f(l.p95)}   p99 ${f(l.p99)}   (n=${samples.length})`);
};
const get = async (path: string, token: string) => {
  const res = await fetch(`${gateway}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
};

try {
  // An owner with a chatbot, its limits lifted, and credit that never runs out.
  const { token, user } = await postJson<{ token: string; user: { id: string } }>(gateway, '/api/auth/register', {
    email: `bench-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench-password-2026',
    password2: 'bench-password-2026',
  });
  const bot = await postJson<{ _id: string; uniqueId: string }>(gateway, '/api/chatbot', { name: 'Bench shop' }, token);
  await postJson(
    gateway,
    `/api/chatbot/${bot._id}/knowledge-base/text`,
    { text: 'We open at nine and close at six, Monday to Saturday.' },
    token,
  );
  const lifted = await fetch(`${gateway}/api/chatbot/${bot._id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ limits: { visitorMessagesPerDay: null, dailySpendLimit: null } }),
  });
  if (!lifted.ok) throw new Error(`could not lift the limits: ${lifted.status}`);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  for (
    let tries = 0;
    (await db.query(`UPDATE billing."Account" SET "creditBalance" = 1000 WHERE "userId" = $1`, [user.id])).rowCount !== 1;
    tries++
  ) {
    if (tries > 50) throw new Error('no billing account for the bench owner');
    await sleep(200);
  }
  await db.end();
  const apiKeys = createServiceClient(ApiKeyService, authUrl, {
    timeoutMs: 5000,
    credentials: { caller: 'gateway', secret: serviceSecret },
  });
  const { secret } = await apiKeys.createApiKey({
    actor: { userId: user.id, workspaceId: user.id, clientIp: '127.0.0.1' },
    name: 'bench',
    scopes: ['chat', 'chatbots:read'],
  });

  console.log(`Developer API benchmark (scale ${scale}; ${new Date().toISOString()})`);
  console.log('1. The key check, cache warm');
  const clients = createClients({
    AUTH_URL: authUrl,
    BILLING_URL: authUrl,
    CHATBOT_URL: authUrl,
    CHAT_URL: authUrl,
    RPC_TIMEOUT_MS: 5000,
    SERVICE_SECRET: serviceSecret,
  });
  const checker = keyChecker(clients, { cacheMs: 5000 });
  const cold = await timed(() => checker.authenticate(secret));
  const warm: number[] = [];
  for (let i = 0; i < CHECKS; i++) warm.push(await timed(() => checker.authenticate(secret)));
  console.log(`  key check, first (AuthenticateApiKey call)    ${ms(cold)} ms`);
  line('key check, cache warm (in process)', warm, 'µs');
  const limiter = keyRateLimiter(redis, { prefix, limit: 1_000_000_000, windowMs: 60_000 });
  const headers = { setHeader: () => undefined } as unknown as Response;
  const counted: number[] = [];
  for (let i = 0; i < CHECKS; i++) counted.push(await timed(() => limiter.admit('bench-key', headers)));
  line('rate-limit script (one Redis round trip)', counted, 'µs');
  const viaKey: number[] = [];
  const viaSession: number[] = [];
  for (let i = 0; i < READS; i++) {
    viaKey.push(await timed(() => get('/api/v1/chatbots', secret)));
    viaSession.push(await timed(() => get('/api/chatbot', token)));
  }
  line('GET /api/v1/chatbots (key)', viaKey);
  line('GET /api/chatbot (session)', viaSession);

  console.log('2. A chat message, zero-latency model, one client, alternated rounds');
  const api: number[] = [];
  const pub: number[] = [];
  const send = async (path: string, body: unknown, auth?: string) => {
    const res = await fetch(`${gateway}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  // A warm-up of each, unmeasured.
  for (let i = 0; i < 10; i++) {
    await send(`/api/v1/chatbots/${bot._id}/chat`, { message: 'When do you open?' }, secret);
    await send(`/api/chatbot/public/${bot.uniqueId}/chat`, { message: 'When do you open?' });
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < MESSAGES_PER_ROUND; i++)
      api.push(await timed(() => send(`/api/v1/chatbots/${bot._id}/chat`, { message: `When do you open? ${i}` }, secret)));
    for (let i = 0; i < MESSAGES_PER_ROUND; i++)
      pub.push(await timed(() => send(`/api/chatbot/public/${bot.uniqueId}/chat`, { message: `When do you open? ${i}` })));
  }
  line('POST /api/v1/chatbots/{id}/chat', api);
  line('POST /api/chatbot/public/{uniqueId}/chat', pub);
  const p50 = (xs: number[]) => latencies(xs).p50;
  console.log(`  difference of the p50s (API − public)           ${ms(p50(api) - p50(pub))} ms`);
} finally {
  await stack.stop();
  await model.close();
  await unlinkMatching(redis, `${prefix}:*`).catch(() => 0);
  await redis.quit();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.end();
}
