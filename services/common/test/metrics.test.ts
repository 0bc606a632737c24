import { create } from '@bufbuild/protobuf';
import { AuthService, UserSchema } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgPool, prismaAdapter } from '../src/database.ts';
import { createServiceApp } from '../src/http.ts';
import { createLogger } from '../src/logger.ts';
import { counter, METRICS_CONTENT_TYPE, metricsText } from '../src/metrics.ts';
import { parsePrometheusText, sampleValue } from '../src/testing/prometheus-text.ts';
import { createServiceClient } from '../src/rpc-client.ts';
import { DEVELOPMENT_SERVICE_SECRET } from '../src/service-auth.ts';
import { testInfra, uniqueName } from '../src/testing/infra.ts';
import { serveApp } from '../src/testing/serve.ts';

/** The lines of the process's exposition that belong to `name`. */
const linesOf = (text: string, name: string) =>
  text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.endsWith(` ${name} counter`) || l.startsWith(`# HELP ${name} `));

/** The value of one series in the exposition, 0 when absent. */
const valueOf = (text: string, series: string) =>
  Number(
    text
      .split('\n')
      .find((l) => l.startsWith(`${series} `))
      ?.split(' ')[1] ?? 0,
  );

describe('counters', () => {
  it('are served in Prometheus text format, with label values escaped', async () => {
    const name = uniqueName('parley_test_things').replace(/-/g, '_') + '_total';
    const things = counter(name, 'Things counted.\nTwo lines of help, a \\ too.', ['kind', 'queue']);
    things.series({ kind: 'plain', queue: 'a' }).inc();
    const odd = things.series({ kind: 'odd "quoted" \\ \n', queue: 'b' });
    odd.inc(2);
    odd.inc();
    expect(odd.value).toBe(3);
    expect(linesOf(await metricsText(), name).sort()).toEqual([
      `# HELP ${name} Things counted.\\nTwo lines of help, a \\\\ too.`,
      `# TYPE ${name} counter`,
      `${name}{kind="odd \\"quoted\\" \\\\ \\n",queue="b"} 3`,
      `${name}{kind="plain",queue="a"} 1`,
    ]);
  });

  it('are one per name: asking again continues the same series, asking with other labels is refused', async () => {
    const name = `${uniqueName('parley_test_again')}_total`;
    counter(name, 'Again.', ['queue']).series({ queue: 'q' }).inc();
    counter(name, 'Again.', ['queue']).series({ queue: 'q' }).inc();
    expect(valueOf(await metricsText(), `${name}{queue="q"}`)).toBe(2);
    expect(() => counter(name, 'Again.', ['other'])).toThrowError(/already registered/);
    expect(() => counter('not a name', 'x', [])).toThrowError(/invalid metric name/);
  });
});

describe('a service', () => {
  let url: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const app = createServiceApp({
      logger: createLogger('test', 'silent'),
      trust: { secret: DEVELOPMENT_SERVICE_SECRET, callers: ['gateway'] },
      readiness: [],
      routes: (router) =>
        router
          .service(AuthService, {
            async authenticate() {
              return { user: create(UserSchema, { id: '1' }) };
            },
          })
          .service(ChatService, {
            async *streamMessage() {
              yield { event: { case: 'delta', value: 'hi' } };
            },
          }),
    });
    ({ url, close } = await serveApp(app));
  });

  afterAll(() => close());

  it('answers GET /metrics without a service token', async () => {
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(METRICS_CONTENT_TYPE);
    expect(await res.text()).toContain('# TYPE parley_rpc_served_total counter');
  });

  it('serves every metric in strict Prometheus text format, a request counted in its duration histogram by procedure', async () => {
    const scrape = async () => parsePrometheusText(await fetch(`${url}/metrics`).then((r) => r.text()));
    const authenticate = { route: 'parley.auth.v1.AuthService/Authenticate', method: 'POST', status: '200' };
    const count = 'parley_http_request_duration_seconds_count';
    const before = sampleValue(await scrape(), count, authenticate) ?? 0;
    await createServiceClient(AuthService, url).authenticate({ token: 't' });
    // Refused before any handler, at a path of the caller's making: counted as 'other', never by its path.
    expect((await fetch(`${url}/made-up/12345`, { method: 'POST' })).status).toBe(401);
    const after = await scrape();
    expect(sampleValue(after, count, authenticate)).toBe(before + 1);
    expect(sampleValue(after, 'parley_http_request_duration_seconds_bucket', { ...authenticate, le: '+Inf' })).toBe(before + 1);
    expect(sampleValue(after, count, { route: 'other', status: '401' })).toBeGreaterThanOrEqual(1);
    const histogram = after.get('parley_http_request_duration_seconds')!;
    expect(histogram.type).toBe('histogram');
    expect(histogram.samples.every((s) => !s.labels.route.includes('12345'))).toBe(true);
    // The calling side: the client's own histogram, by procedure and Connect code.
    expect(
      sampleValue(after, 'parley_rpc_client_duration_seconds_count', {
        service: 'parley.auth.v1.AuthService',
        method: 'Authenticate',
        code: 'ok',
      }),
    ).toBeGreaterThanOrEqual(1);
    // Node's own metrics, under their usual names.
    expect(after.get('process_resident_memory_bytes')?.type).toBe('gauge');
    expect(after.get('nodejs_heap_size_used_bytes')?.type).toBe('gauge');
  });

  it('serves only the families asked for by name (a scrape that runs no query)', async () => {
    const text = await fetch(`${url}/metrics?name=parley_rpc_served_total&name=parley_no_such_metric`).then((r) => r.text());
    expect([...parsePrometheusText(text).keys()]).toEqual(['parley_rpc_served_total']);
  });

  it('counts the calls it serves by service and method, unary and streaming, whichever handler answers', async () => {
    const authenticate = 'parley_rpc_served_total{service="parley.auth.v1.AuthService",method="Authenticate"}';
    const stream = 'parley_rpc_served_total{service="parley.chat.v1.ChatService",method="StreamMessage"}';
    const read = async () => fetch(`${url}/metrics`).then((r) => r.text());
    const before = await read();
    const lean = createServiceClient(AuthService, url);
    const library = createServiceClient(AuthService, url, { unaryTransport: 'library' });
    await lean.authenticate({ token: 't' });
    await lean.authenticate({ token: 't' });
    await library.authenticate({ token: 't' });
    for await (const _ of createServiceClient(ChatService, url).streamMessage({ uniqueId: 'x', message: 'hi' }));
    // Refused before any handler: not served.
    expect((await fetch(`${url}/parley.auth.v1.AuthService/Authenticate`, { method: 'POST' })).status).toBe(401);
    const after = await read();
    expect(valueOf(after, authenticate) - valueOf(before, authenticate)).toBe(3);
    expect(valueOf(after, stream) - valueOf(before, stream)).toBe(1);
  });
});

describe('database pools', () => {
  it("count each statement their connections send, transactions' BEGIN and COMMIT included, by schema", async () => {
    const { databaseUrl } = await testInfra();
    const schema = uniqueName('t_count');
    const series = `parley_sql_statements_total{schema="${schema}"}`;
    const pool = pgPool({ databaseUrl, schema });
    try {
      await pool.query('SELECT 1');
      const client = await pool.connect();
      await client.query('BEGIN');
      await client.query('SELECT 2');
      await client.query('COMMIT');
      client.release();
      expect(valueOf(await metricsText(), series)).toBe(4);
      // Its use is read when scraped: one connection, idle again.
      const use = parsePrometheusText(await metricsText());
      expect(sampleValue(use, 'parley_db_pool_connections', { schema, pool: 'pg', state: 'open' })).toBe(1);
      expect(sampleValue(use, 'parley_db_pool_connections', { schema, pool: 'pg', state: 'idle' })).toBe(1);
      expect(sampleValue(use, 'parley_db_pool_connections', { schema, pool: 'pg', state: 'waiting' })).toBe(0);
      expect(sampleValue(use, 'parley_db_pool_connections', { schema, pool: 'pg', state: 'max' })).toBe(2);
    } finally {
      await pool.end();
    }
    // An ended pool leaves the metric.
    expect(
      sampleValue(parsePrometheusText(await metricsText()), 'parley_db_pool_connections', { schema, pool: 'pg', state: 'open' }),
    ).toBeUndefined();

    // Prisma's adapter builds its own pool from the same settings: its queries and transactions count too.
    const adapter = await prismaAdapter({ databaseUrl, schema }).connect();
    try {
      await adapter.queryRaw({ sql: 'SELECT 1', args: [], argTypes: [] });
      const tx = await adapter.startTransaction();
      await tx.executeRaw({ sql: 'COMMIT', args: [], argTypes: [] });
      await tx.commit();
      expect(valueOf(await metricsText(), series)).toBe(4 + 3);
    } finally {
      await adapter.dispose();
    }
  });
});
