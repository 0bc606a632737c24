// Accounts end to end through the gateway (docs/product.md, Password reset and the account page, Account deletion): password reset by a real mail through a local
// SMTP server, the account page's changes and sessions, the owner's data export, and account
// deletion removing the owner's data from every service's schema (checked in the database), also
// when the AccountDeleted event is delivered again.
import { readdirSync } from 'node:fs';
import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { timestampNow } from '@bufbuild/protobuf/wkt';
import { AccountDeletedSchema } from '@parley/proto/parley/events/v1/account_deleted_pb.js';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { createRedis, type Redis } from '@parley/common/redis.ts';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { startSmtpCatcher, type CaughtMail } from '@parley/common/testing/smtp-catcher.ts';
import { RESET_REQUESTED_MESSAGE } from '../src/features/account/account.ts';
import { api, startStack, uniqueEmail, type Stack } from './stack.ts';
import { PASSWORD, pictureForm, pngImage, postForm, registerOwner, type Owner } from './chatbot-fixtures.ts';

let stack: Stack;
let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;
let model: FakeOpenAI;
let redis: Redis;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  model = await startFakeOpenAI({ reply: () => 'We open at nine.' });
  stack = await startStack({
    authEnv: { SMTP_URL: smtp.url, PUBLIC_URL: 'http://localhost:8080' },
    chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: model.url },
  });
  redis = createRedis(stack.redisUrl);
});
afterAll(async () => {
  await redis?.quit();
  await stack?.close();
  await model?.close();
  await smtp?.close();
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);
const gql = (query: string, variables: Record<string, unknown>, token?: string) => call('/graphql', { body: { query, variables }, token });
const login = (email: string, password: string) => call('/api/auth/login', { body: { email, password } });

async function rows(database: { databaseUrl: string; schema: string }, sql: string, params: unknown[] = []): Promise<any[]> {
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql.replaceAll('$schema', `"${database.schema}"`), params)).rows;
  } finally {
    await client.end();
  }
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const resetLink = (mail: CaughtMail) => {
  const m = /http:\/\/localhost:8080\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(mail.text);
  if (!m) throw new Error(`no reset link in: ${mail.text}`);
  return m[1]!;
};

describe('password reset by email', () => {
  it('answers known and unknown emails alike, mails a link that resets once, and signs out every session', async () => {
    const owner = await registerOwner(stack, 'reset');
    const other = await login(owner.email, PASSWORD);
    expect(other.status).toBe(200);

    const known = await call('/api/auth/forgot-password', { body: { email: owner.email.toUpperCase() } });
    const unknown = await call('/api/auth/forgot-password', { body: { email: uniqueEmail('nobody') } });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual({ message: RESET_REQUESTED_MESSAGE });
    expect(unknown.body).toEqual(known.body);

    const mail = await smtp.waitForMail((m) => m.to.includes(owner.email));
    expect(mail.subject).toMatch(/reset/i);
    expect(mail.html).toBeTruthy();
    const token = resetLink(mail);

    const mismatch = await call('/api/auth/reset-password', { body: { token, password: 'new-pass-1', password2: 'other' } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.message).toBe('Passwords do not match');

    const reset = await call('/api/auth/reset-password', { body: { token, password: 'new-pass-1', password2: 'new-pass-1' } });
    expect(reset.status).toBe(200);
    expect(reset.body.message).toMatch(/reset/);

    const again = await call('/api/auth/reset-password', { body: { token, password: 'new-pass-2', password2: 'new-pass-2' } });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('This reset link has already been used.');
    const forged = await call('/api/auth/reset-password', {
      body: { token: 'x'.repeat(43), password: 'new-pass-2', password2: 'new-pass-2' },
    });
    expect(forged.status).toBe(400);
    expect(forged.body.message).toBe('This reset link is invalid.');

    // Every session of the account is gone; only the new password signs in.
    expect((await call('/api/auth/current', { token: owner.token })).status).toBe(401);
    expect((await call('/api/auth/current', { token: other.body.token })).status).toBe(401);
    expect((await login(owner.email, PASSWORD)).status).toBe(401);
    expect((await login(owner.email, 'new-pass-1')).status).toBe(200);
    // No mail ever went to the unknown address.
    expect(smtp.mails.filter((m) => m.to.some((to) => to.startsWith('nobody'))).length).toBe(0);
  });

  it('has the same answer over GraphQL', async () => {
    const res = await gql('mutation ($email: String!) { requestPasswordReset(email: $email) }', { email: uniqueEmail('gql') });
    expect(res.body).toEqual({ data: { requestPasswordReset: RESET_REQUESTED_MESSAGE } });
  });
});

describe('the account page', () => {
  const ME = '{ me { id name email createdAt } }';

  it('changes the name, the email (with the current password) and the password, and signs other devices out', async () => {
    const owner = await registerOwner(stack, 'account');
    const laptop = (await login(owner.email, PASSWORD)).body.token as string;
    const phone = (await login(owner.email, PASSWORD)).body.token as string;

    const me = await gql(ME, {}, owner.token);
    expect(me.body.data.me.name).toBe('');
    expect(Date.parse(me.body.data.me.createdAt)).toBeGreaterThan(Date.now() - 60_000);

    const renamed = await gql(
      'mutation ($name: String!) { updateProfile(name: $name) { name } }',
      { name: '  Ada Lovelace ' },
      owner.token,
    );
    expect(renamed.body.data.updateProfile.name).toBe('Ada Lovelace');
    expect((await call('/api/auth/current', { token: owner.token })).body.name).toBe('Ada Lovelace');

    const newEmail = uniqueEmail('moved');
    const wrong = await call('/api/user/email', {
      method: 'PUT',
      token: owner.token,
      body: { email: newEmail, currentPassword: 'not-it' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('Current password is incorrect');
    const taken = await call('/api/user/email', {
      method: 'PUT',
      token: owner.token,
      body: { email: (await registerOwner(stack, 'taken')).email, currentPassword: PASSWORD },
    });
    expect(taken.status).toBe(409);
    const moved = await call('/api/user/email', {
      method: 'PUT',
      token: owner.token,
      body: { email: newEmail, currentPassword: PASSWORD },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.email).toBe(newEmail);
    await smtp.waitForMail((m) => m.to.includes(owner.email) && /email/i.test(m.subject));

    const sessions = await gql('{ mySessions { id current clientIp } }', {}, owner.token);
    expect(sessions.body.data.mySessions).toHaveLength(3);
    expect(sessions.body.data.mySessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);

    const signedOut = await gql('mutation { signOutOtherSessions }', {}, laptop);
    expect(signedOut.body.data.signOutOtherSessions).toBe(2);
    expect((await call('/api/auth/current', { token: owner.token })).status).toBe(401);
    expect((await call('/api/auth/current', { token: phone })).status).toBe(401);
    expect((await call('/api/auth/current', { token: laptop })).status).toBe(200);

    const tablet = (await login(newEmail, PASSWORD)).body.token as string;
    const changed = await call('/api/user/password', {
      method: 'PUT',
      token: laptop,
      body: { currentPassword: PASSWORD, password: 'brand-new', password2: 'brand-new' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.revokedSessions).toBe(1);
    expect((await call('/api/auth/current', { token: tablet })).status).toBe(401);
    expect((await call('/api/auth/current', { token: laptop })).status).toBe(200);
    expect((await login(newEmail, 'brand-new')).status).toBe(200);
  });

  it('refuses every account call without a valid token', async () => {
    for (const [method, path] of [
      ['PUT', '/api/user/profile'],
      ['GET', '/api/user/sessions'],
      ['DELETE', '/api/user/account'],
      ['GET', '/api/user/export'],
      ['POST', '/api/payment/portal-session'],
    ] as const) {
      const res = await call(path, { method, token: 'forged-token', body: method === 'GET' ? undefined : {} });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it('has no subscription to manage on the free plan', async () => {
    const owner = await registerOwner(stack, 'portal');
    const res = await call('/api/payment/portal-session', { method: 'POST', token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('You have no subscription to manage.');
  });
});

/** An owner with a chatbot, knowledge, a picture, a visitor's conversation and its usage record. */
async function ownerWithData(tag: string): Promise<Owner & { chatbotId: string }> {
  const owner = await registerOwner(stack, tag);
  const created = await call('/api/chatbot', { token: owner.token, body: { name: 'Front desk' } });
  expect(created.status).toBe(201);
  const chatbot = created.body;
  expect(
    (
      await call(`/api/chatbot/${chatbot._id}/knowledge-base/text`, {
        token: owner.token,
        body: { text: 'We open at nine.', append: true },
      })
    ).status,
  ).toBe(200);
  expect(
    (await postForm(stack, `/api/chatbot/${chatbot._id}/profile-picture`, pictureForm(pngImage()), { token: owner.token })).status,
  ).toBe(200);
  const chat = await call(`/api/chatbot/public/${chatbot.uniqueId}/chat`, { body: { message: 'When do you open?', model: 'gpt-4o-mini' } });
  expect(chat.status).toBe(200);
  await eventually(
    () => rows(stack.billingDatabase, 'SELECT 1 FROM $schema."UsageRecord" WHERE "userId" = $1', [owner.userId]),
    (r) => r.length === 1,
    'the usage record',
  );
  return { ...owner, chatbotId: chatbot._id };
}

describe("the owner's data export", () => {
  it('is one JSON file with the account, chatbots with their knowledge, and the usage', async () => {
    const owner = await ownerWithData('export');
    const res = await fetch(`${stack.url}/api/user/export`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="parley-data-\d{4}-\d{2}-\d{2}\.json"$/);
    const data = await res.json();
    expect(data.account).toMatchObject({ id: owner.userId, email: owner.email });
    expect(data.account.sessions.length).toBeGreaterThan(0);
    expect(data.billing.subscription).toBe('free');
    expect(data.chatbots).toHaveLength(1);
    expect(data.chatbots[0].knowledgeBase.textEntries[0].content).toBe('We open at nine.');
    // The bot's widget settings go with it.
    expect(data.chatbots[0]).toMatchObject({
      appearance: { position: 'right', hideBranding: false },
      allowedDomains: [],
      standalonePage: true,
      limits: { visitorMessagesPerDay: 100, dailySpendLimit: '5.00', proofOfWork: false },
    });
    expect(data.usageRecords).toHaveLength(1);
    expect(data.usageRecords[0]).toMatchObject({ chatbotId: owner.chatbotId, model: 'gpt-4o-mini' });
    expect(typeof data.usageRecords[0].totalCost).toBe('string');
  });
});

describe('deleting an account', () => {
  const remaining = async (owner: Owner & { chatbotId: string }) => ({
    users: (await rows(stack.authDatabase, 'SELECT 1 FROM $schema."User" WHERE id = $1', [owner.userId])).length,
    sessions: (await rows(stack.authDatabase, 'SELECT 1 FROM $schema."Session" WHERE "userId" = $1', [owner.userId])).length,
    chatbots: (await rows(stack.chatbotDatabase, 'SELECT 1 FROM $schema."Chatbot" WHERE "ownerId" = $1', [owner.userId])).length,
    knowledge: (await rows(stack.chatbotDatabase, 'SELECT 1 FROM $schema."KnowledgeEntry" WHERE "chatbotId" = $1', [owner.chatbotId]))
      .length,
    conversations: (await rows(stack.chatDatabase, 'SELECT 1 FROM $schema."Conversation" WHERE "ownerId" = $1', [owner.userId])).length,
    accounts: (await rows(stack.billingDatabase, 'SELECT 1 FROM $schema."Account" WHERE "userId" = $1', [owner.userId])).length,
    usage: (await rows(stack.billingDatabase, 'SELECT 1 FROM $schema."UsageRecord" WHERE "userId" = $1', [owner.userId])).length,
    pictures: readdirSync(`${stack.mediaDir}/chatbots`, { withFileTypes: true }).length,
  });

  it('needs the password, then removes the data from every service, keeping only anonymised usage', async () => {
    const owner = await ownerWithData('leaving');
    const bystander = await ownerWithData('staying');
    const picturesBefore = (await remaining(owner)).pictures;

    const wrong = await call('/api/user/account', { method: 'DELETE', token: owner.token, body: { password: 'not-it' } });
    expect(wrong.status).toBe(400);
    expect((await call('/api/auth/current', { token: owner.token })).status).toBe(200);

    const deleted = await call('/api/user/account', { method: 'DELETE', token: owner.token, body: { password: PASSWORD } });
    expect(deleted.status).toBe(200);
    expect(deleted.body.message).toBe('Your account has been deleted.');
    expect((await call('/api/auth/current', { token: owner.token })).status).toBe(401);
    expect((await login(owner.email, PASSWORD)).status).toBe(401);

    const gone = {
      users: 0,
      sessions: 0,
      chatbots: 0,
      knowledge: 0,
      conversations: 0,
      accounts: 0,
      usage: 0,
      pictures: picturesBefore - 1,
    };
    await eventually(
      () => remaining(owner),
      (r) => JSON.stringify(r) === JSON.stringify(gone),
      'the data to be gone everywhere',
    );
    // The usage ledger stays only as an anonymised accounting record: same cost, no owner, no name.
    const anonymised = await rows(
      stack.billingDatabase,
      'SELECT "userId", "chatbotName" FROM $schema."UsageRecord" WHERE "chatbotId" = $1',
      [owner.chatbotId],
    );
    expect(anonymised).toHaveLength(1);
    expect(anonymised[0].userId).not.toBe(owner.userId);
    expect(anonymised[0].chatbotName).toBe('');

    // The bystander keeps everything.
    const kept = await remaining(bystander);
    expect(kept).toMatchObject({ users: 1, chatbots: 1, knowledge: 1, conversations: 1, accounts: 1, usage: 1 });

    // A retried AccountDeleted (a redelivery, under new job ids) changes nothing and fails no job.
    const event = create(AccountDeletedSchema, { userId: owner.userId, occurredAt: timestampNow() });
    for (const name of [QUEUES.accountDeletedChatbot, QUEUES.accountDeletedChat, QUEUES.accountDeletedBilling]) {
      const producer = createProducer(redis, name, AccountDeletedSchema, { prefix: stack.queuePrefix });
      await producer.publish(event, `retry-${owner.userId}`);
      await producer.close();
      const queue = new Queue(name, { connection: redis, prefix: stack.queuePrefix });
      const job = await eventually(
        () => queue.getJob(`retry-${owner.userId}`),
        (j) => !!j && j.finishedOn !== undefined,
        `the retried job on ${name}`,
      );
      expect(job?.failedReason, name).toBeUndefined();
      await queue.close();
    }
    expect(await remaining(owner)).toEqual(gone);
    expect(await rows(stack.billingDatabase, 'SELECT 1 FROM $schema."UsageRecord" WHERE "chatbotId" = $1', [owner.chatbotId])).toHaveLength(
      1,
    );
  });
});

describe('the local mail outbox page', () => {
  it('is answered only to a browser on this machine', async () => {
    const local = await fetch(`${stack.url}/dev/mail`);
    expect(local.status).toBe(200);
    expect(await local.text()).toContain('Local mail outbox');
    const proxied = await fetch(`${stack.url}/dev/mail`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(proxied.status).toBe(404);
  });
});
