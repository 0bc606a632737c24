// The gateway's HTTP behaviour around the documented paths: body handling, unknown paths, security
// headers, request ids, the web app and its SPA fallback, health and readiness.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, startStack, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { BODY_LIMIT: '1kb' } });
});
afterAll(async () => {
  await stack?.close();
});

describe('request bodies', () => {
  it('answers malformed JSON with 400 "Malformed JSON body"', async () => {
    const res = await api(stack.url, '/api/auth/login', { rawBody: '{"email": "a@example.com",' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Malformed JSON body' });
  });

  it('answers a body over BODY_LIMIT with 413 "Request body too large"', async () => {
    const res = await api(stack.url, '/api/auth/register', {
      body: { email: 'a@example.com', password: 'x'.repeat(2000), password2: 'x' },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'Request body too large' });
  });

  it('answers a JSON body that is not an object with 400', async () => {
    const res = await api(stack.url, '/api/auth/login', { rawBody: '["a@example.com", "secret"]' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Request body must be a JSON object' });
  });

  it('answers wrongly typed fields with 400 naming the field', async () => {
    const res = await api(stack.url, '/api/auth/login', { body: { email: { $ne: null }, password: 'secret-pass' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'email must be a string' });
  });

  it('reads a body sent without a JSON content type as empty, so the service explains what is missing', async () => {
    const res = await api(stack.url, '/api/auth/login', {
      rawBody: 'email=a@example.com',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Please enter all fields' });
  });
});

describe('unknown paths', () => {
  it.each([
    ['GET', '/api/nope'],
    ['POST', '/api/auth/nope'],
    ['DELETE', '/api/auth/current'],
    ['PUT', '/api'],
    ['GET', '/api/auth/register'],
  ])('%s %s answers 404 JSON', async (method, path) => {
    const res = await api(stack.url, path, { method });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ message: 'Not found' });
  });
});

describe('headers', () => {
  it('sets security headers with a CSP fit for the built web app, and no x-powered-by', async () => {
    const res = await fetch(`${stack.url}/api/auth/current`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("img-src 'self' data: blob:");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('echoes a caller-supplied x-request-id and makes one up otherwise', async () => {
    const given = await fetch(`${stack.url}/api/auth/current`, { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-abc.123');
    const made = await fetch(`${stack.url}/healthz`);
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await fetch(`${stack.url}/healthz`, { headers: { 'x-request-id': 'bad id <script>' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('forwards the request id to the services it calls, after the body has been parsed', async () => {
    // A stand-in auth service that records what it receives and answers as an unavailable one.
    const seen: (string | undefined)[] = [];
    const fake = createServer((req, res) => {
      seen.push(req.headers['x-request-id'] as string | undefined);
      req.resume();
      res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const gateway = await startGateway({
      AUTH_URL: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
      BILLING_URL: stack.billingUrl,
    });
    try {
      const res = await api(gateway.url, '/api/auth/login', {
        body: { email: 'a@example.com', password: 'secret-pass' },
        headers: { 'x-request-id': 'login-req-1' },
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('x-request-id')).toBe('login-req-1');
      expect(seen).toEqual(['login-req-1']);
    } finally {
      await gateway.close();
      await new Promise((resolve) => fake.close(resolve));
    }
  });
});

describe('the web app', () => {
  it('serves index.html for client-side routes, not cached', async () => {
    for (const path of ['/', '/dashboard', '/chatbots/abc123', '/chatbots', '/chatter']) {
      const res = await fetch(stack.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<div id="root"></div>');
    }
  });

  it('serves chat.html, the public chat page, for /chat/*, not cached', async () => {
    for (const path of ['/chat/xyz', '/chat/xyz?x=1', '/chat/xyz/']) {
      const res = await fetch(stack.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('data-page="chat"');
    }
    const head = await fetch(`${stack.url}/chat/xyz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('serves hashed assets with long-lived immutable caching, and a real 404 for a missing one', async () => {
    const res = await fetch(`${stack.url}/assets/index-abc123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await res.text()).toBe('console.log("parley")');
    expect((await fetch(`${stack.url}/assets/missing-000.js`)).status).toBe(404);
  });

  it('never answers API, GraphQL or media paths with the app', async () => {
    expect((await api(stack.url, '/api/unknown')).body).toEqual({ message: 'Not found' });
    const media = await fetch(`${stack.url}/media/nothing.png`);
    expect(media.status).toBe(404);
    expect(await media.text()).not.toContain('<div id="root">');
  });

  it('answers 503 with a hint when the web app has not been built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'parley-noweb-'));
    const gateway = await startGateway({ AUTH_URL: stack.authUrl, BILLING_URL: stack.billingUrl, WEB_DIST_DIR: join(empty, 'dist') });
    try {
      const res = await fetch(`${gateway.url}/dashboard`);
      expect(res.status).toBe(503);
      expect(await res.text()).toMatch(/web app is not built.*npm run build --workspace web/);
    } finally {
      await gateway.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('health', () => {
  it('/healthz answers ok', async () => {
    const res = await api(stack.url, '/healthz');
    expect(res).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('/readyz is ready when its Redis answers', async () => {
    const res = await api(stack.url, '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { redis: 'ok' } });
  });

  it('/readyz answers 503 naming Redis when its Redis does not answer', async () => {
    // Port 9 (discard) on localhost refuses connections. The gateway is left to the end of the run:
    // closing its Redis client would wait for a server that never comes.
    const noRedis = await startGateway({ REDIS_URL: 'redis://127.0.0.1:9' });
    const res = await api(noRedis.url, '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('not ready');
    expect(res.body.checks.redis).toMatch(/^error/);
  });

  describe('with every service down', () => {
    let down: Awaited<ReturnType<typeof startGateway>>;
    beforeAll(async () => {
      // Port 9 (discard) on localhost refuses connections.
      const nowhere = 'http://127.0.0.1:9';
      down = await startGateway({ AUTH_URL: nowhere, BILLING_URL: nowhere, CHATBOT_URL: nowhere, CHAT_URL: nowhere });
    });
    afterAll(async () => {
      await down.close();
    });

    it('/readyz stays ready: a service down fails only the calls that need it', async () => {
      const res = await api(down.url, '/readyz');
      expect(res).toMatchObject({ status: 200, body: { status: 'ready', checks: { redis: 'ok' } } });
    });

    it('a public chat message, JSON or streamed, gets a clear 503, not a 500', async () => {
      const body = JSON.stringify({ message: 'Are you open on Sundays?' });
      for (const accept of ['application/json', 'text/event-stream']) {
        const res = await fetch(`${down.url}/api/chatbot/public/some-chatbot/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept },
          body,
        });
        expect(res.status, accept).toBe(503);
        expect(await res.json()).toEqual({ message: 'Service temporarily unavailable. Please try again.' });
      }
    });

    it('REST and GraphQL answer "Service temporarily unavailable" without internals', async () => {
      const rest = await api(down.url, '/api/auth/login', { body: { email: 'a@example.com', password: 'secret-pass' } });
      expect(rest.status).toBe(503);
      expect(rest.body).toEqual({ message: 'Service temporarily unavailable. Please try again.' });
      const graph = await api(down.url, '/graphql', { body: { query: '{ me { id } }' }, token: 'some-token' });
      expect(graph.body.errors[0]).toMatchObject({
        message: 'Service temporarily unavailable. Please try again.',
        extensions: { code: 'SERVICE_UNAVAILABLE', http: { status: 503 } },
      });
    });
  });
});
