// Requests an attacker or a broken client sends: truncated uploads, malformed URLs and encodings,
// control characters in text, and GraphQL operations built to amplify. Each is answered with a
// clear 4xx and the gateway stays up for everyone else.
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pictureForm, pngImage, postForm, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { OPERATION_BOUNDS } from '../src/http/graphql-limits.ts';
import { api, gql, startGateway, startStack, type Stack } from './stack.ts';

let stack: Stack;
let owner: Owner;
let chatbotId: string;

beforeAll(async () => {
  stack = await startStack();
  owner = await registerOwner(stack, 'hardening');
  const created = await api(stack.url, '/api/chatbot', { body: { name: 'Helper' }, token: owner.token });
  expect(created.status).toBe(201);
  chatbotId = created.body._id;
});
afterAll(async () => {
  await stack?.close();
});

/**
 * Sends one HTTP request over a plain socket, exactly as given (the body may be cut anywhere), and
 * reads the answer until the server closes. `declaredLength` may exceed the body: the client then
 * hangs up mid-body and no answer is expected.
 */
function rawRequest(
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  declaredLength = body.length,
): Promise<{ status: number; body: any } | undefined> {
  const { hostname, port } = new URL(stack.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text) return resolve(undefined);
      const status = Number(text.slice(9, 12));
      const rawBody = text.slice(text.indexOf('\r\n\r\n') + 4);
      let parsed: unknown = rawBody;
      try {
        parsed = JSON.parse(rawBody);
      } catch {
        // not JSON: keep the text
      }
      resolve({ status, body: parsed });
    });
    const head = Object.entries({ host: `${hostname}:${port}`, connection: 'close', 'content-length': String(declaredLength), ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
    socket.write(body);
    if (declaredLength > body.length) setTimeout(() => socket.end(), 50);
  });
}

const BOUNDARY = '----parleyBoundary7MA4YWxkTrZu0gW';
const partHead = (field: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="avatar.png"\r\nContent-Type: image/png\r\n\r\n`;

async function expectStillServing(): Promise<void> {
  expect((await api(stack.url, '/healthz')).status).toBe(200);
  const upload = await postForm(stack, `/api/chatbot/${chatbotId}/profile-picture`, pictureForm(pngImage()), { token: owner.token });
  expect(upload.status).toBe(200);
}

describe('truncated multipart uploads', () => {
  const png = Buffer.from(pngImage());
  const shapes: Array<[string, Buffer]> = [
    ['ends before the closing boundary', Buffer.concat([Buffer.from(partHead('profilePicture')), png])],
    ['ends right after the part headers', Buffer.from(partHead('profilePicture'))],
    ['ends inside the part headers', Buffer.from(partHead('profilePicture').slice(0, 60))],
    ['ends inside a part of another field', Buffer.concat([Buffer.from(partHead('somethingElse')), png.subarray(0, 10)])],
    [
      'ends after a complete part, before the next',
      Buffer.concat([Buffer.from(partHead('profilePicture')), png, Buffer.from(`\r\n--${BOUNDARY}\r\n`)]),
    ],
  ];

  it.each(shapes)('a body that %s answers 400 and the gateway stays up', async (_shape, body) => {
    const res = await rawRequest(
      `/api/chatbot/${chatbotId}/profile-picture`,
      { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, authorization: `Bearer ${owner.token}` },
      body,
    );
    expect(res?.status).toBe(400);
    expect(res?.body).toEqual({ message: 'The upload was incomplete' });
    await expectStillServing();
  });

  it('a client that hangs up mid-upload does not take the gateway down', async () => {
    const body = Buffer.concat([Buffer.from(partHead('profilePicture')), png.subarray(0, 20)]);
    await rawRequest(
      `/api/chatbot/${chatbotId}/profile-picture`,
      { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, authorization: `Bearer ${owner.token}` },
      body,
      body.length + 5000,
    );
    await expectStillServing();
  });
});

describe('malformed URLs', () => {
  it.each([
    ['GET', '/api/chatbot/%ZZ'],
    ['PUT', '/api/chatbot/%E0%A4%A'],
    ['GET', '/api/chatbot/%ZZ/conversations/abc'],
    ['DELETE', '/api/chatbot/abc/knowledge-base/text-entries/%ZZ'],
    ['GET', '/api/chatbot/public/%ZZ'],
  ])('%s %s answers 400 "Malformed URL"', async (method, path) => {
    const res = await api(stack.url, path, { method, token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Malformed URL' });
  });

  it.each([
    ['GET', '/api/chatbot/%00'],
    ['PUT', '/api/chatbot/a%00b'],
    ['GET', '/api/chatbot/abc/conversations/%1F'],
    ['GET', '/api/chatbot/public/%00'],
    ['POST', '/api/chatbot/public/%00/chat'],
  ])('%s %s (a control character in a path id) answers 400 "Malformed URL"', async (method, path) => {
    const res = await api(stack.url, path, {
      method,
      token: owner.token,
      body: method === 'GET' ? undefined : { name: 'x', sessionId: 's', message: 'hi', model: 'gpt-4o-mini' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Malformed URL' });
  });

  it.each(['/api/user/usage?chatbotId=%00', '/api/user/usage?startDate=%00'])(
    'GET %s (a control character in the query) answers 400',
    async (path) => {
      const res = await api(stack.url, path, { token: owner.token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: expect.any(String) });
    },
  );

  it('the test checkout page answers a malformed session id with 400 "Malformed URL"', async () => {
    const res = await api(stack.url, '/checkout/test/%ZZ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Malformed URL' });
  });

  it.each(['/media/%ZZ', '/media/chatbots/%ZZ.png', '/chat/%ZZ', '/dashboard/%ZZ', '/assets/%ZZ'])(
    'GET %s is never a 5xx',
    async (path) => {
      const res = await api(stack.url, path);
      expect(res.status).toBeLessThan(500);
    },
  );
});

describe('content encodings', () => {
  it('a gzip Content-Encoding on a body that is not gzip answers 400', async () => {
    const res = await api(stack.url, '/api/auth/login', {
      rawBody: '{"email":"a@example.com","password":"x"}',
      headers: { 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Request body does not match its Content-Encoding' });
  });

  it('a truncated gzip body answers 400', async () => {
    const zipped = gzipSync('{"email":"a@example.com","password":"secret-pass"}');
    const res = await rawRequest(
      '/api/auth/login',
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      zipped.subarray(0, zipped.length - 6),
    );
    expect(res?.status).toBe(400);
    expect(res?.body).toEqual({ message: 'Request body does not match its Content-Encoding' });
  });

  it('GraphQL answers a broken gzip body with 400 too', async () => {
    const res = await api(stack.url, '/graphql', { rawBody: '{"query":"{ me { id } }"}', headers: { 'content-encoding': 'gzip' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('Request body does not match its Content-Encoding');
  });

  it('a real gzip body is still read', async () => {
    const zipped = gzipSync(JSON.stringify({ email: owner.email, password: 'wrong-password' }));
    const res = await rawRequest('/api/auth/login', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, zipped);
    expect(res?.status).toBe(401);
    expect(res?.body).toEqual({ message: 'Invalid credentials' });
  });
});

describe('control characters in text', () => {
  const bad = [
    ['NUL', 'a\u0000b'],
    ['a bell', 'a\u0007b'],
    ['DEL', 'a\u007Fb'],
    ['a lone surrogate', 'a\uD800b'],
  ];

  it.each(bad)('REST login with %s in the email answers 400', async (_what, text) => {
    const res = await api(stack.url, '/api/auth/login', { body: { email: `x${text}@example.com`, password: 'secret-pass' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Text must not contain control characters' });
  });

  it.each([
    [
      'POST /api/auth/register',
      '/api/auth/register',
      'POST',
      () => ({ email: 'a\u0000@example.com', password: 'secret-pass', password2: 'secret-pass' }),
    ],
    ['POST /api/chatbot', '/api/chatbot', 'POST', () => ({ name: 'Bot\u0000' })],
    ['PUT /api/chatbot/:id', '/api/chatbot/:id', 'PUT', () => ({ name: 'Bot\u0000' })],
    ['POST knowledge text', '/api/chatbot/:id/knowledge-base/text', 'POST', () => ({ text: 'Facts\u0000', append: true })],
    [
      'POST public chat message',
      '/api/chatbot/public/:id/chat',
      'POST',
      () => ({ sessionId: 's1', message: 'hi\u0000', model: 'gpt-4o-mini' }),
    ],
  ])('%s with NUL answers 400', async (_name, path, method, body) => {
    const res = await api(stack.url, path.replace(':id', chatbotId), { method, body: body(), token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Text must not contain control characters' });
  });

  it('tabs and newlines are text', async () => {
    const res = await api(stack.url, '/api/chatbot/' + chatbotId + '/knowledge-base/text', {
      body: { text: 'line one\n\tline two\r\n', append: true },
      token: owner.token,
    });
    expect(res.status).toBe(200);
  });

  it.each(bad)('GraphQL variables with %s answer 400 BAD_USER_INPUT', async (_what, text) => {
    const res = await gql(stack.url, 'mutation ($input: LoginInput!) { login(input: $input) { token } }', {
      input: { email: `x${text}@example.com`, password: 'secret-pass' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      message: 'Text must not contain control characters',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('GraphQL string literals with NUL answer 400', async () => {
    const res = await gql(stack.url, 'mutation { createChatbot(input: { name: "Bot\\u0000" }) { id } }', {}, owner.token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      message: 'Text must not contain control characters',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('GraphQL knowledge text with NUL answers 400, and clean text is added', async () => {
    const query = 'mutation ($id: ID!, $text: String!) { addTextEntry(chatbotId: $id, text: $text) { text } }';
    const bad = await gql(stack.url, query, { id: chatbotId, text: 'Facts\u0000' }, owner.token);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toBe('Text must not contain control characters');
    const good = await gql(stack.url, query, { id: chatbotId, text: 'Facts\tmore' }, owner.token);
    expect(good.body.errors).toBeUndefined();
    expect(good.body.data.addTextEntry.text).toContain('Facts\tmore');
  });

  it('GraphQL nested input objects are checked too', async () => {
    const res = await gql(
      stack.url,
      'mutation ($input: CreateChatbotInput!) { createChatbot(input: $input) { id } }',
      { input: { name: 'Bot\u0000' } },
      owner.token,
    );
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('Text must not contain control characters');
  });
});

describe('GraphQL limits', () => {
  it('refuses a subscription with 400', async () => {
    const res = await gql(stack.url, 'subscription { me { id } }', {}, owner.token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('refuses very deep nesting with 400, not a stack overflow', async () => {
    const depth = 5000;
    const res = await gql(stack.url, `{ ${'me { '.repeat(depth)}id${' }'.repeat(depth)} }`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toMatch(/call stack/i);
  });

  it('refuses nesting within the token limit but far past the depth limit with 400', async () => {
    const depth = 600;
    const res = await gql(stack.url, `{ ${'chatbots { '.repeat(depth)}id${' }'.repeat(depth)} }`, {}, owner.token);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toMatch(/call stack/i);
  });

  it('refuses deeply nested list arguments with 400', async () => {
    const res = await gql(stack.url, `{ chatbot(id: ${'['.repeat(900)}1${']'.repeat(900)}) { id } }`, {}, owner.token);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toMatch(/call stack/i);
  });

  const VALUES_TOO_DEEP = `Lists and input objects may be nested at most ${OPERATION_BOUNDS.maxValueDepth} deep`;
  const SELECTIONS_TOO_DEEP = `Selection sets may be nested at most ${OPERATION_BOUNDS.maxSelectionSetDepth} deep`;
  /** A runtime's own words or a stack frame: never in an answer. */
  const RUNTIME_LEAK = /call stack|RangeError|TypeError|at Object\.|at async|node:internal|\.ts:\d/;
  const refusal = (message: string) => ({ errors: [{ message, extensions: { code: 'BAD_REQUEST', http: { status: 400 } } }] });

  it.each([
    ['an unclosed list argument', `query{chatbot(id:${'['.repeat(5000)}]`, VALUES_TOO_DEEP],
    ['5,000 nested lists, closed', `{ chatbot(id: ${'['.repeat(5000)}"x"${']'.repeat(5000)}) { id } }`, VALUES_TOO_DEEP],
    [
      '5,000 nested input objects',
      `mutation { createChatbot(input: ${'{name: '.repeat(5000)}"x"${'}'.repeat(5000)}) { id } }`,
      VALUES_TOO_DEEP,
    ],
    ['a variable typed as 5,000 nested lists', `query ($id: ${'['.repeat(5000)}ID${']'.repeat(5000)}) { me { id } }`, VALUES_TOO_DEEP],
    ['a directive argument', `{ me @skip(if: ${'['.repeat(3000)}) { id } }`, VALUES_TOO_DEEP],
    ['5,000 nested selection sets, unclosed', `{${'me{'.repeat(5000)}`, SELECTIONS_TOO_DEEP],
    ['5,000 nested inline fragments', `{ ${'... on Query { '.repeat(5000)}me { id }${' }'.repeat(5000)} }`, SELECTIONS_TOO_DEEP],
  ])('refuses %s with 400 naming the limit, before parsing it', async (_what, query, message) => {
    const res = await gql(stack.url, query, {}, owner.token);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refusal(message));
    expect(JSON.stringify(res.body)).not.toMatch(RUNTIME_LEAK);
  });

  it('counts list and object nesting up to the limit as usual, and refuses one level more', async () => {
    const lists = (depth: number) => `{ chatbot(id: ${'['.repeat(depth)}"x"${']'.repeat(depth)}) { id } }`;
    const atLimit = await gql(stack.url, lists(OPERATION_BOUNDS.maxValueDepth), {}, owner.token);
    expect(atLimit.status).toBe(400);
    expect(atLimit.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const past = await gql(stack.url, lists(OPERATION_BOUNDS.maxValueDepth + 1), {}, owner.token);
    expect(past.status).toBe(400);
    expect(past.body).toEqual(refusal(VALUES_TOO_DEEP));
  });

  it('does not count brackets and braces inside strings and comments', async () => {
    const email = `${'['.repeat(40)}${'{'.repeat(40)}@example.com`;
    const res = await gql(
      stack.url,
      `mutation { # ${'['.repeat(40)}\n login(input: { email: ${JSON.stringify(email)}, password: """${'{'.repeat(40)} \\""" [""" }) { token } }`,
    );
    // Parsed and run: the login itself is what fails.
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ message: 'Invalid credentials', extensions: { code: 'UNAUTHENTICATED' } });
  });

  it('refuses variables nested past the limit, in a POST body and in a GET query string', async () => {
    const deep = (depth: number) => `${'{"name":'.repeat(depth)}"x"${'}'.repeat(depth)}`;
    const query = 'mutation ($input: CreateChatbotInput!) { createChatbot(input: $input) { id } }';
    for (const depth of [OPERATION_BOUNDS.maxValueDepth + 1, 5000]) {
      const res = await api(stack.url, '/graphql', {
        rawBody: `{"query":${JSON.stringify(query)},"variables":{"input":${deep(depth)}}}`,
        token: owner.token,
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(refusal(VALUES_TOO_DEEP));
    }
    const get = await api(
      stack.url,
      `/graphql?query=${encodeURIComponent('query ($id: ID!) { chatbot(id: $id) { id } }')}&variables=${encodeURIComponent(`{"id":${'['.repeat(1000)}1${']'.repeat(1000)}}`)}`,
      { token: owner.token, headers: { 'apollo-require-preflight': 'true' } },
    );
    expect(get.status).toBe(400);
    expect(get.body).toEqual(refusal(VALUES_TOO_DEEP));
    // At the limit the variable reaches graphql's own checks (an input object is no string).
    const atLimit = await api(stack.url, '/graphql', {
      rawBody: `{"query":${JSON.stringify(query)},"variables":{"input":{"name":${deep(OPERATION_BOUNDS.maxValueDepth - 1)}}}}`,
      token: owner.token,
    });
    expect(atLimit.status).toBe(400);
    expect(atLimit.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('refuses 1,000 aliases of me with 400 (too many tokens to even parse)', async () => {
    const aliases = Array.from({ length: 1000 }, (_, i) => `m${i}: me { id }`).join(' ');
    const res = await gql(stack.url, `{ ${aliases} }`, {}, owner.token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(res.body.data).toBeUndefined();
  });

  it('refuses 100 aliases of me with 400 before calling the auth service', async () => {
    const aliases = Array.from({ length: 100 }, (_, i) => `m${i}: me { id }`).join(' ');
    const res = await gql(stack.url, `{ ${aliases} }`, {}, owner.token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      message: 'An operation may ask for at most 20 root fields',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expect(res.body.data).toBeUndefined();
  });

  it('refuses 200 aliases of chatbots with their knowledge base', async () => {
    const aliases = Array.from({ length: 200 }, (_, i) => `c${i}: chatbots { knowledgeBase { text } }`).join(' ');
    const res = await gql(stack.url, `{ ${aliases} }`, {}, owner.token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('schema details', () => {
  const introspection = '{ __schema { queryType { name } } }';

  it('outside production, introspection works and errors suggest field names', async () => {
    expect((await gql(stack.url, introspection)).body.data.__schema.queryType.name).toBe('Query');
    const typo = await gql(stack.url, '{ mee { id } }');
    expect(typo.status).toBe(400);
    expect(typo.body.errors[0].message).toMatch(/Did you mean "me"/);
  });

  it('in production, introspection is refused and errors suggest nothing', async () => {
    const gateway = await startGateway({ ...stack.gatewayEnv, NODE_ENV: 'production' });
    try {
      const res = await gql(gateway.url, introspection);
      expect(res.status).toBe(400);
      expect(res.body.data).toBeUndefined();
      const typo = await gql(gateway.url, '{ mee { id } }');
      expect(typo.status).toBe(400);
      expect(typo.body.errors[0].message).not.toMatch(/Did you mean/);
    } finally {
      await gateway.close();
    }
  });
});

describe('caching', () => {
  it.each([
    ['/api/auth/current', 'GET'],
    ['/api/chatbot', 'GET'],
    ['/api/chatbot/:id', 'GET'],
    ['/api/nope', 'GET'],
  ])('%s answers with Cache-Control: no-store', async (path, method) => {
    const res = await api(stack.url, path.replace(':id', chatbotId), { method, token: owner.token });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('GraphQL answers, refusals included, with Cache-Control: no-store', async () => {
    const res = await gql(stack.url, '{ me { id } }', {}, owner.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const refused = await api(stack.url, '/graphql', { rawBody: '{"query":' });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('cache-control')).toBe('no-store');
  });
});
