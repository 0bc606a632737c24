// The kit's process lifecycle on a real child process (test/fixtures/lifecycle-process.ts): probes
// while starting, and what SIGTERM does: readiness fails at once, the process keeps serving for the
// drain delay, then takes no new connection and no new queue job, finishes what is in flight, closes
// its pools and exits 0. A second signal or the deadline forces exit 1.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request } from 'node:http';
import { create } from '@bufbuild/protobuf';
import { timestampNow } from '@bufbuild/protobuf/wkt';
import { UserRegisteredSchema } from '@parley/proto/parley/events/v1/user_registered_pb.js';
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { createProducer, QUEUES } from '../src/queues.ts';
import { createRedis } from '../src/redis.ts';
import { testInfra, uniqueName } from '../src/testing/infra.ts';

const fixture = new URL('./fixtures/lifecycle-process.ts', import.meta.url).pathname;
const children: ChildProcessWithoutNullStreams[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

interface Demo {
  child: ChildProcessWithoutNullStreams;
  port: number;
  /** Every log line so far. */
  out: () => string;
  exited: Promise<number | null>;
  release: () => void;
}

async function startDemo(env: Record<string, string> = {}): Promise<Demo> {
  const child = spawn(process.execPath, [fixture], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await until(() => /"port":\d+/.test(out) || child.exitCode !== null);
  const port = Number(/"port":(\d+)/.exec(out)?.[1]);
  if (!port) throw new Error(`the demo did not start: ${out}`);
  return { child, port, out: () => out, exited, release: () => child.stdin.write('release\n') };
}

async function until(cond: () => boolean | Promise<boolean>, what = 'condition'): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`${what}: not met in time`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A GET on a new connection: status, `connection` header and body, or the connection error's code. */
function get(port: number, path: string): Promise<{ status: number; connection?: string; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end();
  });
}

/** A request whose body streams: resolves `started` with the first chunk, `body` with all of it. */
function hold(port: number) {
  let body = '';
  let started!: () => void;
  const first = new Promise<void>((r) => (started = r));
  const done = new Promise<string>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/hold', agent: false }, (res) => {
      res.on('data', (d) => {
        body += d;
        started();
      });
      res.on('end', () => resolve(body));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  done.catch(() => {});
  return { started: first, done };
}

describe('process lifecycle', () => {
  it('answers the probes while it starts: alive, not started, not ready; then started and ready', async () => {
    const demo = await startDemo({ HOLD_START: '1' });
    expect(await get(demo.port, '/healthz')).toMatchObject({ status: 200 });
    expect(await get(demo.port, '/startupz')).toMatchObject({ status: 503 });
    expect(await get(demo.port, '/readyz')).toMatchObject({ status: 503, body: JSON.stringify({ status: 'starting' }) });
    expect(await get(demo.port, '/ping')).toMatchObject({ status: 503 });
    demo.release();
    await until(async () => ((await get(demo.port, '/startupz')) as { status?: number }).status === 200, 'started');
    expect(await get(demo.port, '/readyz')).toMatchObject({ status: 200 });
    expect(await get(demo.port, '/ping')).toMatchObject({ status: 200, body: 'pong' });
    demo.child.kill('SIGTERM');
    expect(await demo.exited).toBe(0);
  });

  it('on SIGTERM: not ready at once, serving through the drain delay with Connection: close, then no new connection; the answer in flight finishes, pools close last, exit 0', async () => {
    const demo = await startDemo({ DRAIN_MS: '3000' });
    const inFlight = hold(demo.port);
    await inFlight.started;
    demo.child.kill('SIGTERM');
    await until(() => demo.out().includes('shutting down'), 'signal handled');
    // Within the drain delay: still serving, but not ready, and every answer closes its connection.
    expect(await get(demo.port, '/readyz')).toMatchObject({
      status: 503,
      connection: 'close',
      body: JSON.stringify({ status: 'draining' }),
    });
    expect(await get(demo.port, '/startupz')).toMatchObject({ status: 200 });
    // After it: the listener is closed while the answer is still in flight.
    await until(async () => 'error' in (await get(demo.port, '/ping')), 'listener closed');
    expect(await get(demo.port, '/ping')).toEqual({ error: 'ECONNREFUSED' });
    expect(demo.child.exitCode).toBeNull();
    demo.release();
    expect(await inFlight.done).toBe('started\ndone\n');
    expect(await demo.exited).toBe(0);
    const out = demo.out();
    expect(out.indexOf('pool closed')).toBeGreaterThan(out.indexOf('shutting down'));
  });

  it('a second signal forces exit 1 with a log line', async () => {
    const demo = await startDemo();
    const inFlight = hold(demo.port);
    await inFlight.started;
    demo.child.kill('SIGTERM');
    await until(() => demo.out().includes('finishing the work in flight'), 'draining');
    demo.child.kill('SIGTERM');
    expect(await demo.exited).toBe(1);
    expect(demo.out()).toContain('second signal: exiting now');
    expect(demo.out()).not.toContain('pool closed');
  });

  it('the shutdown deadline forces exit 1 with a log line when work in flight does not end', async () => {
    const demo = await startDemo({ TIMEOUT_MS: '1000' });
    const inFlight = hold(demo.port);
    await inFlight.started;
    demo.child.kill('SIGTERM');
    expect(await demo.exited).toBe(1);
    expect(demo.out()).toContain('shutdown deadline passed');
  });

  it('a queue worker takes no new job after SIGTERM but finishes the one in hand', async () => {
    const { redisUrl } = await testInfra();
    const prefix = uniqueName('lc');
    const redis = createRedis(redisUrl);
    const producer = createProducer(redis, QUEUES.userRegistered, UserRegisteredSchema, { prefix });
    const queue = new Queue(QUEUES.userRegistered, { connection: redis, prefix });
    try {
      const demo = await startDemo({ REDIS_URL: redisUrl, QUEUE_PREFIX: prefix });
      const event = (userId: string) =>
        create(UserRegisteredSchema, { userId, email: `${userId}@example.com`, name: userId, occurredAt: timestampNow() });
      await producer.publish(event('in-hand'), 'in-hand');
      await until(() => demo.out().includes('"userId":"in-hand","msg":"job started"'), 'job taken');
      demo.child.kill('SIGTERM');
      await until(() => demo.out().includes('finishing the work in flight'), 'draining');
      await producer.publish(event('after-signal'), 'after-signal');
      demo.release();
      expect(await demo.exited).toBe(0);
      expect(demo.out()).toContain('"userId":"in-hand","msg":"job done"');
      expect(demo.out()).not.toContain('after-signal');
      expect(await queue.getJobState('in-hand')).toBe('completed');
      expect(await queue.getJobState('after-signal')).toBe('waiting');
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      await producer.close();
      redis.disconnect();
    }
  });
});
