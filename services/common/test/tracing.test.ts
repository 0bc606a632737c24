import { execFileSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { create } from '@bufbuild/protobuf';
import { timestampNow } from '@bufbuild/protobuf/wkt';
import { AuthService, UserSchema } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { ChatbotDeletedSchema } from '@parley/proto/parley/events/v1/chatbot_deleted_pb.js';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config.ts';
import { currentTrace, parseTraceparent, runWithRequestId, type TraceContext } from '../src/context.ts';
import { createServiceApp } from '../src/http.ts';
import { createLogger } from '../src/logger.ts';
import { createProducer, createWorker, QUEUES } from '../src/queues.ts';
import { createRedis, type Redis } from '../src/redis.ts';
import { createServiceClient } from '../src/rpc-client.ts';
import { DEVELOPMENT_SERVICE_SECRET } from '../src/service-auth.ts';
import { testInfra, uniqueName } from '../src/testing/infra.ts';
import { serveApp } from '../src/testing/serve.ts';
import { instanceId, startTracing } from '../src/tracing.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

describe('traceparent', () => {
  it('is read as the W3C specification says, and refused when malformed', () => {
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-01`)).toEqual({ traceId: TRACE, spanId: PARENT, flags: '01' });
    // A later version is read for the fields it shares with version 00.
    expect(parseTraceparent(`01-${TRACE}-${PARENT}-00-more`)).toEqual({ traceId: TRACE, spanId: PARENT, flags: '00' });
    for (const bad of [
      undefined,
      '',
      `ff-${TRACE}-${PARENT}-01`,
      `00-${'0'.repeat(32)}-${PARENT}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE}-${PARENT}-01-extra`,
      `00-${TRACE.slice(1)}-${PARENT}-01`,
      `00-${TRACE}-${PARENT}-01${'x'.repeat(300)}`,
      'not a traceparent',
    ])
      expect(parseTraceparent(bad), String(bad)).toBeUndefined();
  });
});

describe('trace context', () => {
  let url: string;
  let close: () => Promise<void>;
  const lines: Record<string, unknown>[] = [];
  const seen: (TraceContext | undefined)[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const logger = createLogger('traced', 'info', sink);
    const app = createServiceApp({
      logger,
      trust: { secret: DEVELOPMENT_SERVICE_SECRET, callers: ['gateway'] },
      readiness: [],
      routes: (router) =>
        router.service(AuthService, {
          async authenticate() {
            seen.push(currentTrace());
            logger.info('inside the call');
            return { user: create(UserSchema, { id: '1' }) };
          },
        }),
    });
    ({ url, close } = await serveApp(app));
  });

  afterAll(() => close());

  it('travels with each RPC call as a child span, and every log line of the call carries its trace id and the instance', async () => {
    const caller: TraceContext = { traceId: TRACE, spanId: PARENT, flags: '01' };
    for (const transport of ['lean', 'library'] as const) {
      seen.length = 0;
      await runWithRequestId(
        'req-1',
        () => createServiceClient(AuthService, url, { unaryTransport: transport }).authenticate({ token: 't' }),
        caller,
      );
      expect(seen[0]?.traceId, transport).toBe(TRACE);
      // The service's span is its own, neither the caller's nor all zeros.
      expect(seen[0]?.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(seen[0]?.spanId).not.toBe(PARENT);
    }
    const inside = lines.filter((l) => l.msg === 'inside the call');
    expect(inside).toHaveLength(2);
    for (const line of inside)
      expect(line).toMatchObject({ traceId: TRACE, requestId: 'req-1', instance: instanceId(), service: 'traced' });
  });

  it('starts a new trace for a call that brings none', async () => {
    seen.length = 0;
    await createServiceClient(AuthService, url).authenticate({ token: 't' });
    await createServiceClient(AuthService, url).authenticate({ token: 't' });
    expect(seen[0]?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(seen[1]?.traceId).not.toBe(seen[0]?.traceId);
  });
});

describe('a queue job', () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = createRedis((await testInfra()).redisUrl);
  });
  afterAll(() => redis.quit());

  it("carries the publisher's trace outside its payload, and its worker continues it", async () => {
    const prefix = uniqueName('tqt');
    const traces: (TraceContext | undefined)[] = [];
    const worker = createWorker(
      redis,
      QUEUES.chatbotDeleted,
      ChatbotDeletedSchema,
      async () => {
        traces.push(currentTrace());
      },
      { prefix, logger: createLogger('test', 'silent') },
    );
    const producer = createProducer(redis, QUEUES.chatbotDeleted, ChatbotDeletedSchema, { prefix });
    const queue = new Queue(QUEUES.chatbotDeleted, { connection: redis, prefix });
    try {
      const event = create(ChatbotDeletedSchema, { chatbotId: 'c1', ownerId: 'o1', occurredAt: timestampNow() });
      await runWithRequestId('req-2', () => producer.publish(event, 'chatbot-deleted.c1'), { traceId: TRACE, spanId: PARENT, flags: '01' });
      await producer.publish({ ...event, chatbotId: 'c2' }, 'chatbot-deleted.c2');
      for (const end = Date.now() + 10_000; traces.length < 2 && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
      expect(traces.map((t) => t?.traceId)).toContain(TRACE);
      // Published outside any request: a trace of its own.
      expect(traces.find((t) => t?.traceId !== TRACE)?.traceId).toMatch(/^[0-9a-f]{32}$/);
      // The payload is the event alone; the trace is in the job's options.
      const job = await queue.getJob('chatbot-deleted.c1');
      expect(Object.keys(job!.data as object).sort()).toEqual(['chatbotId', 'occurredAt', 'ownerId']);
      expect(job!.opts.telemetry?.metadata).toBe(`00-${TRACE}-${PARENT}-01`);
    } finally {
      await worker.close();
      await producer.close();
      await queue.close();
    }
  });
});

describe('settings', () => {
  it('refuse a malformed OTEL_EXPORTER_OTLP_ENDPOINT or INSTANCE_ID, and need no exporter without an endpoint', async () => {
    await expect(startTracing('test', { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).rejects.toThrowError(ConfigError);
    expect(() => instanceId({ INSTANCE_ID: 'two words' })).toThrowError(/INSTANCE_ID must be/);
    expect(instanceId({ INSTANCE_ID: 'chat-7d9f-x2' })).toBe('chat-7d9f-x2');
    expect(instanceId({})).toMatch(new RegExp(`-${process.pid}$`));
    const stop = await startTracing('test', {});
    await stop();
  });
});

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it("loads none of OpenTelemetry's SDK or exporter, and with it loads them", () => {
    // A process of its own that records every module it resolves, starts tracing, and serves a call.
    const script = `
      import { registerHooks } from 'node:module';
      const loaded = new Set();
      registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); loaded.add(r.url); return r; } });
      const { startTracing } = await import(${JSON.stringify(new URL('../src/tracing.ts', import.meta.url).href)});
      await import(${JSON.stringify(new URL('../src/http.ts', import.meta.url).href)});
      const stop = await startTracing('probe');
      await stop();
      console.log(JSON.stringify([...loaded].filter((u) => /@opentelemetry\\/(sdk-|exporter-|resources|otlp-)/.test(u))));
    `;
    const run = (env: NodeJS.ProcessEnv) =>
      JSON.parse(
        execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...env }, encoding: 'utf8' }),
      ) as string[];
    const { OTEL_EXPORTER_OTLP_ENDPOINT: _unset, ...without } = process.env;
    expect(run({ ...without, OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toEqual([]);
    expect(run({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }).length).toBeGreaterThan(0);
  });
});
