// An expired session is refused like a revoked one, on both REST and GraphQL. The auth service runs
// with two-second sessions here, which is why this lives in its own file and stack.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, gql, startStack, uniqueEmail, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ authEnv: { SESSION_TTL_SECONDS: '2' } });
});
afterAll(async () => {
  await stack?.close();
});

it('refuses a token once its session has expired', async () => {
  const reg = await api(stack.url, '/api/auth/register', {
    body: { email: uniqueEmail('ttl'), password: 'secret-pass', password2: 'secret-pass' },
  });
  expect(reg.status).toBe(201);
  const { token } = reg.body;
  // Valid at first, so the refusal below is the expiry and nothing else.
  expect((await api(stack.url, '/api/auth/current', { token })).status).toBe(200);

  await sleep(2500);
  const current = await api(stack.url, '/api/auth/current', { token });
  expect(current.status).toBe(401);
  expect(current.body).toEqual({ message: 'Session expired. Please login again.' });
  const me = await gql(stack.url, '{ me { id } }', {}, token);
  expect(me.body.errors[0]).toMatchObject({ message: 'Session expired. Please login again.', extensions: { code: 'UNAUTHENTICATED' } });
});
