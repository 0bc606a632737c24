// Contract tests of the REST auth paths (docs/product.md, Accounts and sessions) through the gateway, against the real auth and
// billing services.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, startStack, uniqueEmail, type Stack } from './stack.ts';

let stack: Stack;
const password = 'secret-pass';

beforeAll(async () => {
  stack = await startStack({
    authEnv: { LOGIN_MAX_FAILURES_PER_ACCOUNT: '3', LOGIN_MAX_FAILURES_PER_IP: '10' },
  });
});
afterAll(async () => {
  await stack?.close();
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);

async function registered(email = uniqueEmail()) {
  const res = await call('/api/auth/register', { body: { email, password, password2: password } });
  expect(res.status).toBe(201);
  return { email, token: res.body.token as string, user: res.body.user };
}

function expectUserShape(user: any, email: string) {
  expect(user).toEqual({
    id: expect.any(String),
    _id: user.id,
    email,
    // Sign-up asks for no name; the product greets "User" until the account page sets one.
    name: '',
    subscription: 'free',
    usage: { creditBalance: 0.01, lastCreditRefill: expect.any(String) },
  });
  expect(new Date(user.usage.lastCreditRefill).toISOString()).toBe(user.usage.lastCreditRefill);
}

describe('POST /api/auth/register', () => {
  it('creates the account: 201 with a token and the user composed from auth and billing', async () => {
    const email = uniqueEmail();
    const res = await call('/api/auth/register', { body: { email, password, password2: password } });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['token', 'user']);
    expect(res.body.token).toEqual(expect.any(String));
    expect(res.body.token.length).toBeGreaterThanOrEqual(20);
    expectUserShape(res.body.user, email);
  });

  it.each([
    [{ password, password2: password }, 'Please enter all required fields'],
    [{ email: uniqueEmail(), password2: password }, 'Please enter all required fields'],
    [{ email: '', password: '', password2: '' }, 'Please enter all required fields'],
    [{}, 'Please enter all required fields'],
    [{ email: uniqueEmail(), password, password2: 'other-pass' }, 'Passwords do not match'],
    [{ email: uniqueEmail(), password }, 'Passwords do not match'],
    [{ email: uniqueEmail(), password: 'abc', password2: 'abc' }, 'Password must be at least 6 characters'],
    [{ email: 'not-an-email', password, password2: password }, 'Please enter a valid email address'],
  ])('refuses %j with 400 "%s"', async (body, message) => {
    const res = await call('/api/auth/register', { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
  });

  it('refuses a second account with the same email, whatever its case: 409', async () => {
    const { email } = await registered();
    // With the account's own password it would be a retried sign-up, which signs in.
    const other = `${password}-other`;
    const res = await call('/api/auth/register', { body: { email: email.toUpperCase(), password: other, password2: other } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: 'An account with this email already exists' });
  });

  it.each([
    [{ email: 42, password, password2: password }, 'email must be a string'],
    [{ email: uniqueEmail(), password: ['x'], password2: password }, 'password must be a string'],
    [{ email: uniqueEmail(), password, password2: { a: 1 } }, 'password2 must be a string'],
  ])('refuses wrongly typed fields %j with 400', async (body, message) => {
    const res = await call('/api/auth/register', { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
  });
});

describe('POST /api/auth/register while billing is down', () => {
  it('answers 503, and the same request succeeds once billing is back', async () => {
    // A gateway whose billing address refuses connections: auth commits the account, composing the user fails.
    const down = await startGateway({ ...stack.gatewayEnv, BILLING_URL: 'http://127.0.0.1:1' });
    try {
      const email = uniqueEmail();
      const body = { email, password, password2: password };
      const failed = await api(down.url, '/api/auth/register', { body });
      expect(failed.status).toBe(503);
      expect(failed.body).toEqual({ message: 'Service temporarily unavailable. Please try again.' });
      const retried = await call('/api/auth/register', { body });
      expect(retried.status).toBe(201);
      expectUserShape(retried.body.user, email);
    } finally {
      await down.close();
    }
  });
});

describe('POST /api/auth/login', () => {
  it('signs in: 200 with a new token and the user', async () => {
    const { email, token: first } = await registered();
    const res = await call('/api/auth/login', { body: { email, password } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['token', 'user']);
    expect(res.body.token).not.toBe(first);
    expectUserShape(res.body.user, email);
  });

  it('treats the email case-insensitively', async () => {
    const { email, user } = await registered(uniqueEmail('MixedCase'));
    const res = await call('/api/auth/login', { body: { email: email.toUpperCase(), password } });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
  });

  it.each([[{ password }], [{ email: 'someone@example.com' }], [{ email: '', password: '' }], [{}]])(
    'refuses missing fields %j with 400 "Please enter all fields"',
    async (body) => {
      const res = await call('/api/auth/login', { body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Please enter all fields' });
    },
  );

  it('answers a wrong password and an unknown email alike: 401 "Invalid credentials"', async () => {
    const { email } = await registered();
    const wrong = await call('/api/auth/login', { body: { email, password: 'not-the-password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: 'Invalid credentials' });
    const unknown = await call('/api/auth/login', { body: { email: uniqueEmail('nobody'), password } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ message: 'Invalid credentials' });
  });

  it('refuses a non-string password with 400', async () => {
    const res = await call('/api/auth/login', { body: { email: 'a@example.com', password: 123456 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'password must be a string' });
  });

  it('throttles an account after repeated failures: 429 with the wait, even for the right password', async () => {
    const { email } = await registered();
    const ip = { 'x-forwarded-for': '198.51.100.1' };
    for (let i = 0; i < 3; i++) {
      const res = await call('/api/auth/login', { body: { email, password: 'wrong-password' }, headers: ip });
      expect(res.status).toBe(401);
    }
    const blocked = await call('/api/auth/login', { body: { email, password }, headers: ip });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ message: 'Too many failed login attempts. Please try again in 15 minutes.' });
  });

  it('throttles by client IP taken from X-Forwarded-For (TRUST_PROXY=1), leaving other IPs alone', async () => {
    const { email } = await registered();
    const attacker = { 'x-forwarded-for': '203.0.113.9' };
    for (let i = 0; i < 10; i++) {
      const res = await call('/api/auth/login', { body: { email: uniqueEmail('probe'), password }, headers: attacker });
      expect(res.status).toBe(401);
    }
    const blocked = await call('/api/auth/login', { body: { email, password }, headers: attacker });
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toMatch(/^Too many failed login attempts\. Please try again in \d+ minutes?\.$/);
    const other = await call('/api/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': '203.0.113.10' } });
    expect(other.status).toBe(200);
  });
});

describe('GET /api/auth/current', () => {
  it('returns the signed-in user', async () => {
    const { email, token, user } = await registered();
    const res = await call('/api/auth/current', { token });
    expect(res.status).toBe(200);
    expectUserShape(res.body, email);
    expect(res.body).toEqual(user);
  });

  it('answers 401 "Not authorized, no token" without a bearer token', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Basic abc' }, { authorization: 'Bearer ' }]) {
      const res = await call('/api/auth/current', { headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Not authorized, no token' });
    }
  });

  it('answers 401 "Session expired. Please login again." for a forged token', async () => {
    const res = await call('/api/auth/current', { token: 'forged-token-0123456789abcdef' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Session expired. Please login again.' });
  });
});

describe('GET /api/auth/logout', () => {
  it('revokes the token: 200, then current answers 401', async () => {
    const { token } = await registered();
    const res = await call('/api/auth/logout', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Logged out' });
    const after = await call('/api/auth/current', { token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ message: 'Session expired. Please login again.' });
  });

  it('revokes only that session: another login of the same user stays valid', async () => {
    const { email, token } = await registered();
    const second = await call('/api/auth/login', { body: { email, password } });
    await call('/api/auth/logout', { token });
    expect((await call('/api/auth/current', { token: second.body.token })).status).toBe(200);
  });

  it('answers 200 without a token, and for an unknown or already revoked one', async () => {
    expect(await call('/api/auth/logout')).toMatchObject({ status: 200, body: { message: 'Logged out' } });
    expect(await call('/api/auth/logout', { token: 'unknown-token-xyz' })).toMatchObject({ status: 200, body: { message: 'Logged out' } });
    const { token } = await registered();
    await call('/api/auth/logout', { token });
    expect(await call('/api/auth/logout', { token })).toMatchObject({ status: 200, body: { message: 'Logged out' } });
  });
});
