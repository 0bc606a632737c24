// GraphQL me/register/login/logout through the gateway: the same behaviour and messages as REST,
// with extensions.code and extensions.http.status on every error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, startStack, uniqueEmail, type Stack } from './stack.ts';

let stack: Stack;
const password = 'secret-pass';

beforeAll(async () => {
  stack = await startStack({ authEnv: { LOGIN_MAX_FAILURES_PER_ACCOUNT: '2' } });
});
afterAll(async () => {
  await stack?.close();
});

const USER_FIELDS = 'id email name subscription usage { creditBalance lastCreditRefill }';
const REGISTER = `mutation Register($input: RegisterInput!) { register(input: $input) { token user { ${USER_FIELDS} } } }`;
const LOGIN = `mutation Login($input: LoginInput!) { login(input: $input) { token user { ${USER_FIELDS} } } }`;
const ME = `query Me { me { ${USER_FIELDS} } }`;
const LOGOUT = 'mutation Logout { logout }';

const run = (query: string, variables: Record<string, unknown> = {}, token?: string) => gql(stack.url, query, variables, token);

async function register(email = uniqueEmail('gql')) {
  const res = await run(REGISTER, { input: { email, password, password2: password } });
  expect(res.body.errors).toBeUndefined();
  return { email, token: res.body.data.register.token as string, user: res.body.data.register.user };
}

/** Asserts the response failed with one error carrying this message, code and status. */
function expectError(res: { status: number; body: any }, message: string | RegExp, code: string, status: number) {
  expect(res.status).toBe(200);
  expect(res.body.errors).toHaveLength(1);
  const [error] = res.body.errors;
  if (typeof message === 'string') expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
  expect(error.extensions).toEqual({ code, http: { status } });
  expect(JSON.stringify(res.body)).not.toMatch(/stacktrace|at .*\.ts:\d+/);
}

describe('register', () => {
  it('returns a token and the user, with billing fields as exact strings', async () => {
    const email = uniqueEmail('gql');
    const res = await run(REGISTER, { input: { email, password, password2: password } });
    expect(res.status).toBe(200);
    const { token, user } = res.body.data.register;
    expect(token).toEqual(expect.any(String));
    expect(user).toEqual({
      id: expect.any(String),
      email,
      name: '',
      subscription: 'free',
      usage: { creditBalance: '0.01', lastCreditRefill: expect.any(String) },
    });
  });

  it.each([
    [{ email: '', password, password2: password }, 'Please enter all required fields'],
    [{ email: uniqueEmail(), password, password2: 'different' }, 'Passwords do not match'],
    [{ email: uniqueEmail(), password: 'abc', password2: 'abc' }, 'Password must be at least 6 characters'],
  ])('refuses %j with BAD_USER_INPUT "%s"', async (input, message) => {
    expectError(await run(REGISTER, { input }), message, 'BAD_USER_INPUT', 400);
  });

  it('refuses a taken email with CONFLICT', async () => {
    const { email } = await register();
    // With the account's own password it would be a retried sign-up, which signs in.
    const other = `${password}-other`;
    expectError(
      await run(REGISTER, { input: { email, password: other, password2: other } }),
      'An account with this email already exists',
      'CONFLICT',
      409,
    );
  });

  it('refuses input of the wrong type before any resolver runs', async () => {
    const res = await run(REGISTER, { input: { email: 42, password, password2: password } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('login', () => {
  it('signs in case-insensitively and returns the same user', async () => {
    const { email, user } = await register();
    const res = await run(LOGIN, { input: { email: email.toUpperCase(), password } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.login.user).toEqual(user);
  });

  it('refuses missing fields, wrong credentials and then throttles', async () => {
    const { email } = await register();
    expectError(await run(LOGIN, { input: { email, password: '' } }), 'Please enter all fields', 'BAD_USER_INPUT', 400);
    for (let i = 0; i < 2; i++) {
      expectError(await run(LOGIN, { input: { email, password: 'wrong-password' } }), 'Invalid credentials', 'UNAUTHENTICATED', 401);
    }
    expectError(
      await run(LOGIN, { input: { email, password } }),
      /^Too many failed login attempts\. Please try again in \d+ minutes?\.$/,
      'TOO_MANY_REQUESTS',
      429,
    );
  });
});

describe('me and logout', () => {
  it('me returns the signed-in user; logout revokes the token', async () => {
    const { token, user } = await register();
    const me = await run(ME, {}, token);
    expect(me.body).toEqual({ data: { me: user } });

    expect((await run(LOGOUT, {}, token)).body).toEqual({ data: { logout: true } });
    expectError(await run(ME, {}, token), 'Session expired. Please login again.', 'UNAUTHENTICATED', 401);
  });

  it('me without a token fails with UNAUTHENTICATED "Not authorized, no token"', async () => {
    expectError(await run(ME), 'Not authorized, no token', 'UNAUTHENTICATED', 401);
  });

  it('me with a forged token fails with UNAUTHENTICATED', async () => {
    expectError(await run(ME, {}, 'forged-token-0123456789'), 'Session expired. Please login again.', 'UNAUTHENTICATED', 401);
  });

  it('logout succeeds without a token', async () => {
    expect((await run(LOGOUT)).body).toEqual({ data: { logout: true } });
  });

  it('fetches only identity when billing fields are not asked for', async () => {
    const { token, user } = await register();
    expect((await run('{ me { id email } }', {}, token)).body).toEqual({ data: { me: { id: user.id, email: user.email } } });
  });
});

describe('the endpoint', () => {
  it('supports introspection', async () => {
    const res = await run('{ __schema { queryType { name } mutationType { name } } }');
    expect(res.body.data.__schema).toEqual({ queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } });
  });

  it('keeps CSRF prevention on: a simple GET without a preflight header is refused', async () => {
    const res = await api(stack.url, `/graphql?query=${encodeURIComponent('{ __typename }')}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/Cross-Site Request Forgery/);
  });

  it('answers a syntax error with GRAPHQL_PARSE_FAILED and a malformed body with BAD_REQUEST', async () => {
    const parse = await run('{ me {');
    expect(parse.status).toBe(400);
    expect(parse.body.errors[0].extensions).toEqual({ code: 'GRAPHQL_PARSE_FAILED', http: { status: 400 } });
    const malformed = await api(stack.url, '/graphql', { rawBody: '{"query": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({
      errors: [{ message: 'Malformed JSON body', extensions: { code: 'BAD_REQUEST', http: { status: 400 } } }],
    });
  });
});
