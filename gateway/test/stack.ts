// Starts the real auth and billing services in-process (fresh schemas, a unique queue/key prefix) and
// the gateway in front of them, each on a random port, so test files run in parallel in isolation.
// Billing and the gateway share one PUBLIC_URL and the stack's queue prefix, so checkout URLs and
// Stripe events flow between them as in production.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { createLogger } from '@parley/common/logger.ts';
import { QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import type { ServiceParts } from '@parley/common/service.ts';
import { createTestSchema, testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import { serveApp } from '@parley/common/testing/serve.ts';
import { readAuthConfig } from '@parley/auth/config.ts';
import { createAuthService, MIGRATIONS_DIR as AUTH_MIGRATIONS } from '@parley/auth/service.ts';
import { readBillingConfig } from '@parley/billing/config.ts';
import { createBillingService, MIGRATIONS_DIR as BILLING_MIGRATIONS } from '@parley/billing/service.ts';
import { readChatConfig } from '@parley/chat/config.ts';
import { createChatService, MIGRATIONS_DIR as CHAT_MIGRATIONS } from '@parley/chat/service.ts';
import { readChatbotConfig } from '@parley/chatbot/config.ts';
import { createChatbotService, MIGRATIONS_DIR as CHATBOT_MIGRATIONS } from '@parley/chatbot/service.ts';
import { createGateway } from '../src/http/app.ts';
import { readGatewayConfig } from '../src/config.ts';

const silent = (name: string) => createLogger(name, 'silent');

/**
 * The stack's SERVICE_SECRET: not the development default, so a process that forgot to sign its
 * calls with its configured secret gets 401 here, and a gateway may run with NODE_ENV=production.
 */
export const TEST_SERVICE_SECRET = 'parley-gateway-test-stack-service-secret';

/** A temporary built web app: index.html and one hashed asset. */
export function fakeWebDist(): string {
  // Under a dot-directory, as a checkout may be (send's dotfile rules must not apply above the root).
  const dir = join(mkdtempSync(join(tmpdir(), 'parley-web-')), '.checkout', 'dist');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Parley</title><div id="root"></div>');
  writeFileSync(join(dir, 'chat.html'), '<!doctype html><title>Chat</title><div id="root" data-page="chat"></div>');
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("parley")');
  return dir;
}

/** Starts a gateway in front of the given service URLs. */
export async function startGateway(env: Record<string, string>) {
  const config = readGatewayConfig({ LOG_LEVEL: 'silent', SERVICE_SECRET: TEST_SERVICE_SECRET, ...env });
  const parts = await createGateway(config, { logger: silent('gateway-test') });
  const server = await serveApp(parts.app);
  return {
    url: server.url,
    config,
    async close() {
      for (const stop of parts.background ?? []) await stop();
      await server.close();
      for (const close of parts.closers) await close();
    },
  };
}

async function serve(parts: ServiceParts) {
  const server = await serveApp(parts.app);
  return {
    url: server.url,
    async close() {
      await server.close();
      for (const close of parts.closers) await close();
    },
  };
}

export interface StackOptions {
  authEnv?: Record<string, string>;
  chatbotEnv?: Record<string, string>;
  /** The chat service's environment (OPENAI_BASE_URL and OPENAI_API_KEY point it at a fake model). */
  chatEnv?: Record<string, string>;
  gatewayEnv?: Record<string, string>;
  /** Billing's environment (STRIPE_SECRET_KEY and STRIPE_API_BASE point it at a fake Stripe). */
  billingEnv?: Record<string, string>;
}

/** The product's public address in a test stack: checkout return URLs must be on its origin. */
export const TEST_PUBLIC_URL = 'http://localhost:8080';

export async function startStack(opts: StackOptions = {}) {
  const { redisUrl } = await testInfra();
  const prefix = uniqueName('gwtest');
  const [authSchema, billingSchema, chatbotSchema, chatSchema] = await Promise.all([
    createTestSchema('gw_auth', AUTH_MIGRATIONS),
    createTestSchema('gw_billing', BILLING_MIGRATIONS),
    createTestSchema('gw_chatbot', CHATBOT_MIGRATIONS),
    createTestSchema('gw_chat', CHAT_MIGRATIONS),
  ]);
  // Mails go to a temporary outbox unless a test gives auth an SMTP server; the gateway shows the same folder.
  const mailOutboxDir = mkdtempSync(join(tmpdir(), 'parley-mail-'));
  const auth = await serve(
    await createAuthService(
      readAuthConfig({
        DATABASE_URL: authSchema.databaseUrl,
        REDIS_URL: redisUrl,
        AUTH_DB_SCHEMA: authSchema.schema,
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'silent',
        SERVICE_SECRET: TEST_SERVICE_SECRET,
        // Every test signs up from 127.0.0.1; the per-IP sign-up limit is auth's own test's business.
        REGISTRATIONS_MAX_PER_IP: '100000',
        MAIL_OUTBOX_DIR: mailOutboxDir,
        ...opts.authEnv,
      }),
      { logger: silent('auth-test') },
    ),
  );
  const billingConfig = readBillingConfig({
    DATABASE_URL: billingSchema.databaseUrl,
    REDIS_URL: redisUrl,
    BILLING_DB_SCHEMA: billingSchema.schema,
    QUEUE_PREFIX: prefix,
    PUBLIC_URL: TEST_PUBLIC_URL,
    LOG_LEVEL: 'silent',
    SERVICE_SECRET: TEST_SERVICE_SECRET,
    ...opts.billingEnv,
  });
  const billingParts = await createBillingService(billingConfig, { logger: silent('billing-test') });
  const billing = await serve(billingParts);
  const mediaDir = mkdtempSync(join(tmpdir(), 'parley-media-'));
  const chatbot = await serve(
    await createChatbotService(
      readChatbotConfig({
        DATABASE_URL: chatbotSchema.databaseUrl,
        REDIS_URL: redisUrl,
        CHATBOT_DB_SCHEMA: chatbotSchema.schema,
        QUEUE_PREFIX: prefix,
        BILLING_URL: billing.url,
        MEDIA_DIR: mediaDir,
        LOG_LEVEL: 'silent',
        SERVICE_SECRET: TEST_SERVICE_SECRET,
        ...opts.chatbotEnv,
      }),
      { logger: silent('chatbot-test') },
    ),
  );
  const chat = await serve(
    await createChatService(
      readChatConfig({
        DATABASE_URL: chatSchema.databaseUrl,
        REDIS_URL: redisUrl,
        CHAT_DB_SCHEMA: chatSchema.schema,
        QUEUE_PREFIX: prefix,
        CHATBOT_URL: chatbot.url,
        BILLING_URL: billing.url,
        LOG_LEVEL: 'silent',
        SERVICE_SECRET: TEST_SERVICE_SECRET,
        ...opts.chatEnv,
      }),
      { logger: silent('chat-test') },
    ),
  );
  const webDistDir = fakeWebDist();
  // Known to the tests, so they can sign deliveries as Stripe would.
  const webhookSecret = `whsec_test_${prefix.replace(/[^A-Za-z0-9]/g, '')}`;
  const gatewayEnv: Record<string, string> = {
    AUTH_URL: auth.url,
    BILLING_URL: billing.url,
    CHATBOT_URL: chatbot.url,
    CHAT_URL: chat.url,
    WEB_DIST_DIR: webDistDir,
    MEDIA_DIR: mediaDir,
    MAIL_OUTBOX_DIR: mailOutboxDir,
    // Tests act as the one proxy in front of the gateway, choosing client IPs with X-Forwarded-For.
    TRUST_PROXY: '1',
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    PUBLIC_URL: TEST_PUBLIC_URL,
    STRIPE_WEBHOOK_SECRET: webhookSecret,
    ...opts.gatewayEnv,
  };
  const gateway = await startGateway(gatewayEnv);

  return {
    url: gateway.url,
    authUrl: auth.url,
    billingUrl: billing.url,
    chatbotUrl: chatbot.url,
    chatUrl: chat.url,
    /** The billing schema, for tests that change an owner's plan directly (as a payment would). */
    billingDatabase: billingSchema,
    /** Billing's configuration and parts (its Prisma client and queue workers), for tests that stop and restart a worker. */
    billingConfig,
    billingParts,
    /** The chat schema, for tests that look at stored conversations directly. */
    chatDatabase: chatSchema,
    /** The auth and chatbot schemas, for tests that check what an account deletion left behind. */
    authDatabase: authSchema,
    chatbotDatabase: chatbotSchema,
    /** Redis and the queue prefix every service of this stack uses, for tests that publish or inspect jobs. */
    redisUrl,
    queuePrefix: prefix,
    /** The gateway's STRIPE_WEBHOOK_SECRET (unless gatewayEnv replaced it). */
    webhookSecret: gateway.config.STRIPE_WEBHOOK_SECRET,
    publicUrl: TEST_PUBLIC_URL,
    /** The gateway's environment, for tests that start a second gateway with one thing changed. */
    gatewayEnv,
    webDistDir,
    mediaDir,
    /** Where auth writes the mails it sends (and the gateway's /dev/mail reads them). */
    mailOutboxDir,
    async close() {
      await gateway.close();
      await auth.close();
      await chat.close();
      await chatbot.close();
      await billing.close();
      const redis = createRedis(redisUrl);
      for (const name of Object.values(QUEUES)) {
        const queue = new Queue(name, { connection: redis, prefix });
        await queue.obliterate({ force: true });
        await queue.close();
      }
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
      await Promise.all([authSchema.drop(), billingSchema.drop(), chatbotSchema.drop(), chatSchema.drop()]);
      rmSync(webDistDir, { recursive: true, force: true });
      rmSync(mediaDir, { recursive: true, force: true });
      rmSync(mailOutboxDir, { recursive: true, force: true });
    },
  };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** How many jobs parley.channel-inbound holds in this stack, in any state: a refused webhook call adds none. */
export async function inboundJobCount(stack: Stack): Promise<number> {
  const redis = createRedis(stack.redisUrl);
  const queue = new Queue(QUEUES.channelInbound, { connection: redis, prefix: stack.queuePrefix });
  try {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  } finally {
    await queue.close();
    await redis.quit();
  }
}

/** Reads until `ready` holds (every 50 ms, for at most `timeoutMs`): a queued message is answered in the worker's own time. */
export async function pollUntil<T>(read: () => Promise<T> | T, ready: (v: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ready(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // Tests assert on shapes; the body is whatever JSON the server sent.
  body: any;
}

/** A JSON call to the gateway, as the web app makes it. */
export async function api(
  baseUrl: string,
  path: string,
  opts: { method?: string; body?: unknown; rawBody?: string; token?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.body !== undefined || opts.rawBody !== undefined) headers['content-type'] ??= 'application/json';
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(baseUrl + path, {
    method: opts.method ?? (opts.body !== undefined || opts.rawBody !== undefined ? 'POST' : 'GET'),
    headers,
    body: opts.rawBody ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body };
}

/** A GraphQL operation over POST with a JSON content type (what Apollo's CSRF guard expects). */
export async function gql(baseUrl: string, query: string, variables: Record<string, unknown> = {}, token?: string): Promise<ApiResponse> {
  return api(baseUrl, '/graphql', { body: { query, variables }, token });
}

let counter = 0;
export const uniqueEmail = (tag = 'owner') => `${tag}.${Date.now().toString(36)}${(counter++).toString(36)}@example.com`;
