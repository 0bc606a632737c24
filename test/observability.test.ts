// What an operator sees of one public chat message on the real stack (scripts/stack.ts, every process
// on its own): the gateway's /metrics on its internal METRICS_PORT (and not on its public port) and a
// service's on its own port, both in strict Prometheus text format, each counting the request; one
// trace id for the message in the gateway's, the chat service's and its jobs' consumers' log lines; and the same trace's spans sent over OTLP to a receiver this test runs.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../services/common/src/testing/fake-openai.ts';
import { parsePrometheusText, sampleValue } from '../services/common/src/testing/prometheus-text.ts';
import { GATEWAY_METRICS_PORT, PROCESSES, startStack, type RunningStack } from '../scripts/stack.ts';

const PORT_OFFSET = 820;
const DATABASE = 'parley_test_observability';
const port = (name: string) => PROCESSES.find((p) => p.name === name)!.defaultPort + PORT_OFFSET;
const gatewayUrl = `http://127.0.0.1:${port('gateway')}`;
const gatewayMetrics = `http://127.0.0.1:${GATEWAY_METRICS_PORT + PORT_OFFSET}/metrics`;

/** Every JSON log line of every process, with the process's name. */
const logs: { process: string; line: Record<string, unknown> }[] = [];
/** Every span the processes exported: trace id, span id, parent, name and the service that sent it. */
const spans: { traceId: string; spanId: string; parentSpanId: string; name: string; service: string }[] = [];

let receiver: Server | undefined;
let model: FakeOpenAI | undefined;
let stack: RunningStack | undefined;
let admin: pg.Client | undefined;
let uniqueId = '';

/** A local OTLP/HTTP receiver (JSON, as the exporter sends it): it keeps the spans it is sent. */
async function startReceiver(): Promise<string> {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: {
            resource: { attributes: { key: string; value: { stringValue?: string } }[] };
            scopeSpans: { spans: { traceId: string; spanId: string; parentSpanId?: string; name: string }[] }[];
          }[];
        };
        for (const rs of body.resourceSpans) {
          const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
              spans.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, service });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
}

async function api<T>(method: string, path: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

async function until<T>(what: string, find: () => T | undefined | Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await find();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not seen in time`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const scrape = async (url: string) => {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await res.text());
};

beforeAll(async () => {
  const otlp = await startReceiver();
  const base = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
  const adminUrl = new URL(base);
  adminUrl.pathname = '/postgres';
  admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  const databaseUrl = new URL(base);
  databaseUrl.pathname = `/${DATABASE}`;

  model = await startFakeOpenAI({ delayMs: 0, chunkDelayMs: 0 });
  stack = await startStack({
    portOffset: PORT_OFFSET,
    output: (name, text) => {
      try {
        logs.push({ process: name, line: JSON.parse(text) as Record<string, unknown> });
      } catch {
        // Not a log line (a tool's own output).
      }
    },
    env: {
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: `obs${randomBytes(3).toString('hex')}`,
      // The consumers say at debug level which job they processed.
      LOG_LEVEL: 'debug',
      PORT: '',
      METRICS_PORT: '',
      OPENAI_API_KEY: 'observability-key',
      OPENAI_BASE_URL: model.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      // Spans leave in batches: at once, not after the exporter's usual five seconds.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
  });

  const { token, user } = await api<{ token: string; user: { id: string } }>('POST', '/api/auth/register', {
    email: `observability-${randomBytes(4).toString('hex')}@example.com`,
    password: 'observability-password-2026',
    password2: 'observability-password-2026',
  });
  const bot = await api<{ _id: string; uniqueId: string }>('POST', '/api/chatbot', { name: 'Observed assistant' }, token);
  await api(
    'POST',
    `/api/chatbot/${bot._id}/knowledge-base/text`,
    { text: 'Opening hours: every day from 9:00 to 18:00.', append: true },
    token,
  );
  uniqueId = bot.uniqueId;
  const db = new pg.Client({ connectionString: databaseUrl.toString() });
  await db.connect();
  try {
    await until('the owner account', async () => {
      const { rowCount } = await db.query(`UPDATE billing."Account" SET "creditBalance" = 1000 WHERE "userId" = $1`, [user.id]);
      return rowCount === 1 || undefined;
    });
  } finally {
    await db.end();
  }
}, 150_000);

afterAll(async () => {
  await stack?.stop();
  await model?.close();
  await new Promise((r) => receiver?.close(r));
  await admin?.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`).catch(() => {});
  await admin?.end();
}, 60_000);

describe('one public chat message, observed', () => {
  it("is counted in the gateway's /metrics (internal port only) and the chat service's, both in Prometheus text format", async () => {
    const route = { route: '/api/chatbot/public/:uniqueid/chat', method: 'POST', status: '200' };
    const procedure = { route: 'parley.chat.v1.ChatService/SendMessage', method: 'POST', status: '200' };
    const chatMetrics = `http://127.0.0.1:${port('chat')}/metrics`;
    const count = 'parley_http_request_duration_seconds_count';
    const before = [
      sampleValue(await scrape(gatewayMetrics), count, route) ?? 0,
      sampleValue(await scrape(chatMetrics), count, procedure) ?? 0,
    ];

    await api('POST', `/api/chatbot/public/${uniqueId}/chat`, { message: 'When are you open?' });

    const gateway = await scrape(gatewayMetrics);
    const chat = await scrape(chatMetrics);
    expect(sampleValue(gateway, count, route)).toBe(before[0] + 1);
    expect(sampleValue(chat, count, procedure)).toBe(before[1] + 1);
    expect(gateway.get('parley_http_request_duration_seconds')?.type).toBe('histogram');
    // Every process: Node's own metrics, and the chat service's model, answers and pools.
    expect(gateway.get('process_cpu_user_seconds_total')?.type).toBe('counter');
    expect(chat.get('nodejs_eventloop_lag_seconds')?.type).toBe('gauge');
    expect(sampleValue(chat, 'parley_model_time_to_first_token_seconds_count', { mode: 'json' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(chat, 'parley_model_tokens_total', { kind: 'completion' })).toBeGreaterThan(0);
    expect(sampleValue(chat, 'parley_chat_answers_in_flight', { mode: 'json' })).toBe(0);
    expect(sampleValue(chat, 'parley_db_pool_connections', { schema: 'chat', pool: 'prisma', state: 'open' })).toBeGreaterThan(0);
    expect(
      sampleValue(gateway, 'parley_rpc_client_duration_seconds_count', {
        service: 'parley.chat.v1.ChatService',
        method: 'SendMessage',
        code: 'ok',
      }),
    ).toBeGreaterThanOrEqual(1);
    // Billing consumes the usage queue: its depth is on billing's /metrics.
    const billing = await scrape(`http://127.0.0.1:${port('billing')}/metrics`);
    expect(sampleValue(billing, 'parley_queue_jobs', { queue: 'parley.usage-recorded', state: 'failed' })).toBe(0);

    // The public port does not serve the metrics.
    expect((await fetch(`${gatewayUrl}/metrics`)).headers.get('content-type')).not.toMatch(/version=0\.0\.4/);
  });

  it("carries one trace id from the caller through the gateway, the chat service and the usage job's consumer, in logs and exported spans", async () => {
    const traceId = randomBytes(16).toString('hex');
    const res = await fetch(`${gatewayUrl}/api/chatbot/public/${uniqueId}/chat`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      },
      body: JSON.stringify({ message: 'Are you open on Sundays?' }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('event: done');

    const lines = (process: string) => logs.filter((l) => l.process === process && l.line.traceId === traceId).map((l) => l.line);
    await until("the gateway's request line", () => lines('gateway').find((l) => l.msg === 'request'));
    await until("the chat service's request line", () => lines('chat').find((l) => l.msg === 'request'));
    const consumed = await until("the usage job's consumer line", () =>
      lines('billing').find((l) => l.msg === 'job processed' && l.queue === 'parley.usage-recorded'),
    );
    expect(consumed.instance).toEqual(expect.any(String));
    // The chat service's own analytics consumer continues the same trace.
    await until("the analytics job's consumer line", () =>
      lines('chat').find((l) => l.msg === 'job processed' && l.queue === 'parley.chatbot-interaction.analytics'),
    );
    // Every line of the message is stamped with its process's instance.
    for (const line of [...lines('gateway'), ...lines('chat')]) expect(line.instance).toEqual(expect.any(String));

    const traced = await until('the spans of the message', () => {
      const of = spans.filter((s) => s.traceId === traceId);
      const services = new Set(of.map((s) => s.service));
      return ['parley-gateway', 'parley-chat', 'parley-billing'].every((s) => services.has(s)) &&
        of.some((s) => s.name === 'language model')
        ? of
        : undefined;
    });
    // The gateway's request span continues the caller's; every other span has a parent in the trace.
    const ids = new Set(traced.map((s) => s.spanId));
    const root = traced.find((s) => s.service === 'parley-gateway' && s.name.startsWith('POST '))!;
    expect(root.name).toBe('POST /api/chatbot/public/:uniqueid/chat');
    for (const s of traced)
      if (s !== root) expect(ids.has(s.parentSpanId), `${s.service} ${s.name} has its parent in the trace`).toBe(true);
    expect(traced.map((s) => s.name)).toEqual(
      expect.arrayContaining(['parley.chat.v1.ChatService/StreamMessage', 'process parley.usage-recorded']),
    );
  });
});
