// What the balanced client (services/common/src/transport/balanced.ts) costs a call (a script that
// prints figures, not a test):
//   1. the choice alone: nanoseconds per pick and release, over one endpoint and over three;
//   2. a unary call against one in-process replica, sequential: p50 and p99 with this checkout's
//      client and, with BENCH_BASE=/path/to/another/checkout, that checkout's client, alternated in
//      rounds (base, this, …) in one process against the same server, and the difference of p50s;
//   3. the same with 50 callers at once: calls per second and CPU per call.
//
//   node bench/balanced-client.ts            (or: npm run bench balanced-client)
//
// Listens on a random loopback port; BENCH_SCALE=0.1 runs a tenth of the calls.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AuthService } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { createServiceApp } from '../services/common/src/http.ts';
import { listen } from '../services/common/src/lifecycle.ts';
import { createLogger } from '../services/common/src/logger.ts';
import { createServiceClient } from '../services/common/src/rpc-client.ts';
import { DEVELOPMENT_SERVICE_SECRET } from '../services/common/src/service-auth.ts';
import { EndpointPool } from '../services/common/src/transport/balanced.ts';
import { latencies, load, ms } from './stats.ts';

const scale = Number(process.env.BENCH_SCALE ?? '1');
const PICKS = Math.round(2_000_000 * scale);
const CALLS = Math.max(500, Math.round(5_000 * scale));
const ROUNDS = 4;

function choiceCost(endpoints: number): number {
  const pool = new EndpointPool(Array.from({ length: endpoints }, (_, i) => `http://127.0.0.1:${1000 + i}`).join(','));
  const started = process.hrtime.bigint();
  for (let i = 0; i < PICKS; i++) {
    const ep = pool.pick()!;
    ep.inFlight++;
    pool.release(ep, false);
  }
  const ns = Number(process.hrtime.bigint() - started) / PICKS;
  pool.close();
  return ns;
}

console.log(`Balanced client — load ${load()}`);
console.log(`choice alone: ${choiceCost(1).toFixed(0)} ns per call with one endpoint, ${choiceCost(3).toFixed(0)} ns with three`);

const app = createServiceApp({
  logger: createLogger('bench', 'silent'),
  trust: { secret: DEVELOPMENT_SERVICE_SECRET, callers: ['gateway'] },
  readiness: [],
  routes: (router) => {
    router.service(AuthService, {
      authenticate: () => ({ user: { id: '1', name: 'replica' } }),
    });
  },
});
const server = await listen(app, 0, '127.0.0.1');
const address = server.address();
if (!address || typeof address === 'string') throw new Error('no address');
const url = `http://127.0.0.1:${address.port}`;

type Factory = typeof createServiceClient;
const clients: { name: string; create: Factory }[] = [];
if (process.env.BENCH_BASE) {
  const base = (await import(pathToFileURL(join(process.env.BENCH_BASE, 'services/common/src/rpc-client.ts')).href)) as {
    createServiceClient: Factory;
  };
  clients.push({ name: 'base', create: base.createServiceClient });
}
clients.push({ name: 'this', create: createServiceClient });

const samples = new Map<string, number[]>(clients.map((c) => [c.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const { name, create } of clients) {
    const auth = create(AuthService, url);
    for (let i = 0; i < 200; i++) await auth.authenticate({ token: 'warm' });
    const out = samples.get(name)!;
    for (let i = 0; i < CALLS / ROUNDS; i++) {
      const started = performance.now();
      await auth.authenticate({ token: 't' });
      out.push(performance.now() - started);
    }
  }
}
// 50 callers at once: calls per second and CPU per call (client and server, both in this process).
const throughput = new Map<string, { rate: number; cpu: number }[]>(clients.map((c) => [c.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const { name, create } of clients) {
    const auth = create(AuthService, url);
    const per = Math.round(CALLS / 50);
    const started = performance.now();
    const cpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        for (let i = 0; i < per; i++) await auth.authenticate({ token: 't' });
      }),
    );
    const used = process.cpuUsage(cpu);
    const seconds = (performance.now() - started) / 1000;
    throughput.get(name)!.push({ rate: (per * 50) / seconds, cpu: (used.user + used.system) / 1000 / (per * 50) });
  }
}
for (const [name, runs] of throughput) {
  const mean = (k: 'rate' | 'cpu') => runs.reduce((sum, r) => sum + r[k], 0) / runs.length;
  console.log(
    `${name}: 50 callers at once, ${ROUNDS} rounds: ${mean('rate').toFixed(0)} calls/s, CPU ${(mean('cpu') * 1000).toFixed(0)} µs a call`,
  );
}

const p50s = new Map<string, number>();
for (const [name, values] of samples) {
  const l = latencies(values);
  p50s.set(name, l.p50);
  console.log(`${name}: one unary call against one replica, ${values.length} calls: p50 ${ms(l.p50)} ms, p99 ${ms(l.p99)} ms`);
}
if (p50s.has('base')) console.log(`this − base, p50: ${((p50s.get('this')! - p50s.get('base')!) * 1000).toFixed(0)} µs`);
server.closeAllConnections();
server.close();
