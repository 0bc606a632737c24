// Workspaces and the data every service holds (docs/adr/0030-workspaces.md), against the real stack:
// an owner whose chatbots, knowledge, conversations, usage and credit were stored before auth's
// workspaces migration finds all of it in their personal workspace, with and without X-Workspace-Id;
// and deleting a workspace removes its data from every service's schema once, a redelivered
// AccountDeleted changing nothing, the owner's personal workspace untouched.
import { readFileSync } from 'node:fs';
import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { timestampNow } from '@bufbuild/protobuf/wkt';
import { AccountDeletedSchema } from '@parley/proto/parley/events/v1/account_deleted_pb.js';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { createRedis, type Redis } from '@parley/common/redis.ts';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { api, startStack, uniqueEmail, type Stack } from './stack.ts';
import { makePro, PASSWORD, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { gqlIn, inWorkspace, setMembership, setWorkspacePlan, sql } from './workspace-fixtures.ts';

let stack: Stack;
let model: FakeOpenAI;
let redis: Redis;

beforeAll(async () => {
  model = await startFakeOpenAI({ reply: () => 'We open at nine.' });
  stack = await startStack({ chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: model.url } });
  redis = createRedis(stack.redisUrl);
});
afterAll(async () => {
  await redis?.quit();
  await stack?.close();
  await model?.close();
});

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const count = async (database: Stack['authDatabase'], text: string, params: unknown[]) =>
  Number((await sql(database, `SELECT count(*)::int AS n FROM ${text}`, params))[0].n);

/**
 * A chatbot in the workspace (the personal one without `workspaceId`) with a knowledge entry and
 * `chats` visitors' conversations, each answered; waits for their usage records and analytics.
 */
async function chatbotWithData(owner: Owner, workspaceId: string | undefined, name: string, chats = 1) {
  const ownerId = workspaceId ?? owner.userId;
  const usageBefore = await count(stack.billingDatabase, '$schema."UsageRecord" WHERE "userId" = $1', [ownerId]);
  const created = await inWorkspace(stack, workspaceId, '/api/chatbot', { body: { name }, token: owner.token });
  expect(created.status).toBe(201);
  const chatbot: { _id: string; uniqueId: string } = created.body;
  const knowledge = await inWorkspace(stack, workspaceId, `/api/chatbot/${chatbot._id}/knowledge-base/text`, {
    body: { text: `${name} opens at nine.`, append: true },
    token: owner.token,
  });
  expect(knowledge.status).toBe(200);
  for (let i = 0; i < chats; i++) {
    const chat = await api(stack.url, `/api/chatbot/public/${chatbot.uniqueId}/chat`, {
      body: { sessionId: `${name}-visitor-${i}`, message: 'When do you open?', model: 'gpt-4o-mini' },
    });
    expect(chat.status).toBe(200);
  }
  await eventually(
    () => count(stack.billingDatabase, '$schema."UsageRecord" WHERE "userId" = $1', [ownerId]),
    (n) => n === usageBefore + chats,
    `the usage records of ${name}`,
  );
  await eventually(
    () => count(stack.chatDatabase, '$schema."AnalyticsDay" WHERE "chatbotId" = $1', [chatbot._id]),
    (n) => n === 1,
    `the analytics of ${name}`,
  );
  return chatbot;
}

/**
 * Credit for a new workspace (which opens without the starting credit): once billing has opened its
 * account from WorkspaceCreated (or taken back the starting credit a read opened it with), a top-up
 * written in billing's tables as a payment would, its ledger entry with it.
 */
async function fundWorkspace(workspaceId: string): Promise<void> {
  await eventually(
    async () =>
      (
        await sql(
          stack.billingDatabase,
          `SELECT (SELECT count(*)::int FROM $schema."Account" WHERE "userId" = $1) AS accounts,
                  (SELECT count(*)::int FROM $schema."CreditLedgerEntry" WHERE "userId" = $1 AND reason = 'signup_credit') AS granted,
                  (SELECT count(*)::int FROM $schema."CreditLedgerEntry" WHERE "userId" = $1 AND reason = 'workspace_signup_credit_reversed') AS reversed`,
          [workspaceId],
        )
      )[0],
    (r) => r.accounts === 1 && r.granted === r.reversed,
    "the workspace's billing account",
  );
  await sql(
    stack.billingDatabase,
    `WITH entry AS (
       INSERT INTO $schema."CreditLedgerEntry" (id, "userId", amount, reason, reference)
       VALUES (gen_random_uuid(), $1, 10, 'credit_topup', 'test-topup:' || $1) RETURNING amount)
     UPDATE $schema."Account" SET "creditBalance" = "creditBalance" + (SELECT amount FROM entry) WHERE "userId" = $1`,
    [workspaceId],
  );
}

/** The credit balance billing stores for an owner, and the sum of its ledger. */
async function balanceAndLedger(ownerId: string) {
  const [row] = await sql(
    stack.billingDatabase,
    `SELECT a."creditBalance"::text AS balance,
            (SELECT coalesce(sum(amount), 0)::text FROM $schema."CreditLedgerEntry" l WHERE l."userId" = a."userId") AS ledger,
            (SELECT count(*)::int FROM $schema."CreditLedgerEntry" l WHERE l."userId" = a."userId") AS entries
       FROM $schema."Account" a WHERE a."userId" = $1`,
    [ownerId],
  );
  return row as { balance: string; ledger: string; entries: number };
}

describe('data stored before the workspaces migration', () => {
  it("is all in the owner's personal workspace, with and without X-Workspace-Id", async () => {
    const owner = await registerOwner(stack, 'before-workspaces');
    const bystander = await registerOwner(stack, 'before-workspaces-other');
    await makePro(stack, owner);
    const bots = [await chatbotWithData(owner, undefined, 'Front desk', 2), await chatbotWithData(owner, undefined, 'Bookings')];
    await chatbotWithData(bystander, undefined, 'Elsewhere');

    // Back to the state before the migration: no workspace, no membership (their audit log,
    // invitations and keys go with them); then the migration's own INSERTs, as it runs them.
    const registered = await sql(stack.authDatabase, 'SELECT id, name, personal FROM $schema."Workspace" ORDER BY id');
    await sql(stack.authDatabase, 'DELETE FROM $schema."Workspace"');
    expect(await count(stack.authDatabase, '$schema."Membership"', [])).toBe(0);
    const migration = readFileSync(
      new URL('../../services/auth/prisma/migrations/20261128060000_workspaces/migration.sql', import.meta.url),
      'utf8',
    );
    const inserts = migration.slice(migration.indexOf('INSERT INTO "Workspace"'));
    expect(inserts).toMatch(/^INSERT INTO "Workspace"[\s\S]*INSERT INTO "Membership"[\s\S]*FROM "User";\s*$/);
    const client = new pg.Client({ connectionString: stack.authDatabase.databaseUrl });
    await client.connect();
    try {
      await client.query(`SET search_path TO "${stack.authDatabase.schema}"`);
      await client.query(inserts);
    } finally {
      await client.end();
    }
    // The migration gives each account the workspace its registration gave it.
    expect(await sql(stack.authDatabase, 'SELECT id, name, personal FROM $schema."Workspace" ORDER BY id')).toEqual(registered);
    expect(
      await sql(stack.authDatabase, 'SELECT "workspaceId", role FROM $schema."Membership" WHERE "userId" = $1', [owner.userId]),
    ).toEqual([{ workspaceId: owner.userId, role: 'owner' }]);

    for (const workspaceId of [undefined, owner.userId]) {
      const current = await inWorkspace(stack, workspaceId, '/api/workspace', { token: owner.token });
      expect(current.status).toBe(200);
      expect(current.body).toMatchObject({ id: owner.userId, personal: true, role: 'owner', memberCount: 1 });
      const listed = await inWorkspace(stack, workspaceId, '/api/workspaces', { token: owner.token });
      expect(listed.body.map((w: { id: string }) => w.id)).toEqual([owner.userId]);

      const chatbots = await inWorkspace(stack, workspaceId, '/api/chatbot', { token: owner.token });
      expect(chatbots.status).toBe(200);
      expect(chatbots.body.map((c: { _id: string }) => c._id).sort()).toEqual(bots.map((b) => b._id).sort());
      const gql = await gqlIn(stack, workspaceId, owner.token, '{ chatbots { id name } }');
      expect(gql.body.data.chatbots.map((c: { name: string }) => c.name).sort()).toEqual(['Bookings', 'Front desk']);

      const conversations = await Promise.all(
        bots.map((b) => inWorkspace(stack, workspaceId, `/api/chatbot/${b._id}/conversations`, { token: owner.token })),
      );
      expect(conversations.map((c) => [c.status, c.body.length])).toEqual([
        [200, 2],
        [200, 1],
      ]);

      const usage = await inWorkspace(
        stack,
        workspaceId,
        `/api/user/usage?${new URLSearchParams({ startDate: new Date(Date.now() - 86_400_000).toISOString(), endDate: new Date(Date.now() + 60_000).toISOString() })}`,
        {
          token: owner.token,
        },
      );
      expect(usage.status).toBe(200);
      expect(usage.body.recentRequests).toHaveLength(3);
      expect(new Set(usage.body.recentRequests.map((r: { chatbot: { _id: string } }) => r.chatbot._id))).toEqual(
        new Set(bots.map((b) => b._id)),
      );

      // Billing's balance is its ledger's sum, and the one the workspace shows.
      const money = await balanceAndLedger(owner.userId);
      expect(money.entries).toBeGreaterThan(1);
      expect(Number(money.balance)).toBe(Number(money.ledger));
      expect(Number(usage.body.currentCreditBalance)).toBe(Number(money.balance));
    }
  });
});

describe('deleting a workspace', () => {
  /** What every service's schema holds of an owner (its chatbots and conversations named too). */
  async function heldOf(ownerId: string, chatbotIds: string[], conversationIds: string[]) {
    const a = stack.authDatabase;
    const b = stack.billingDatabase;
    const cb = stack.chatbotDatabase;
    const c = stack.chatDatabase;
    return {
      workspaces: await count(a, '$schema."Workspace" WHERE id = $1', [ownerId]),
      memberships: await count(a, '$schema."Membership" WHERE "workspaceId" = $1', [ownerId]),
      invitations: await count(a, '$schema."Invitation" WHERE "workspaceId" = $1', [ownerId]),
      auditEvents: await count(a, '$schema."AuditEvent" WHERE "workspaceId" = $1', [ownerId]),
      chatbots: await count(cb, '$schema."Chatbot" WHERE "ownerId" = $1 OR id = ANY($2::uuid[])', [ownerId, chatbotIds]),
      knowledgeEntries: await count(cb, '$schema."KnowledgeEntry" WHERE "chatbotId" = ANY($1::uuid[])', [chatbotIds]),
      knowledgeChunks: await count(cb, '$schema."KnowledgeChunk" WHERE "chatbotId" = ANY($1::uuid[])', [chatbotIds]),
      conversations: await count(c, '$schema."Conversation" WHERE "ownerId" = $1 OR id = ANY($2::uuid[])', [ownerId, conversationIds]),
      messages: await count(c, '$schema."Message" WHERE "conversationId" = ANY($1::uuid[])', [conversationIds]),
      analyticsDays: await count(c, '$schema."AnalyticsDay" WHERE "ownerId" = $1 OR "chatbotId" = ANY($2::uuid[])', [ownerId, chatbotIds]),
      analyticsVisitors: await count(c, '$schema."AnalyticsVisitor" WHERE "chatbotId" = ANY($1::uuid[])', [chatbotIds]),
      analyticsVisitorYears: await count(c, '$schema."AnalyticsVisitorYear" WHERE "chatbotId" = ANY($1::uuid[])', [chatbotIds]),
      analyticsSessions: await count(c, '$schema."AnalyticsSession" WHERE "chatbotId" = ANY($1::uuid[])', [chatbotIds]),
      questionClusters: await count(c, '$schema."QuestionCluster" WHERE "ownerId" = $1 OR "chatbotId" = ANY($2::uuid[])', [
        ownerId,
        chatbotIds,
      ]),
      accounts: await count(b, '$schema."Account" WHERE "userId" = $1', [ownerId]),
      ledgerEntries: await count(b, '$schema."CreditLedgerEntry" WHERE "userId" = $1', [ownerId]),
      usageRecords: await count(b, '$schema."UsageRecord" WHERE "userId" = $1', [ownerId]),
      usageDays: await count(b, '$schema."UsageDaily" WHERE "userId" = $1', [ownerId]),
    };
  }

  const conversationIdsOf = async (chatbotIds: string[]) =>
    (await sql(stack.chatDatabase, 'SELECT id FROM $schema."Conversation" WHERE "chatbotId" = ANY($1::uuid[])', [chatbotIds])).map(
      (r) => r.id as string,
    );

  it("removes the workspace's data from every service once; a redelivery changes nothing; the personal workspace stays", async () => {
    const owner = await registerOwner(stack, 'team-deleter');
    const personalBot = await chatbotWithData(owner, undefined, 'Personal desk');
    const created = await api(stack.url, '/api/workspaces', { body: { name: 'Doomed team' }, token: owner.token });
    expect(created.status).toBe(201);
    const workspaceId: string = created.body.id;
    await fundWorkspace(workspaceId);
    await setWorkspacePlan(stack, owner, workspaceId, 'pro');
    const teamBot = await chatbotWithData(owner, workspaceId, 'Team desk', 2);
    // A member and a pending invitation (the pro plan's seats).
    const member = await registerOwner(stack, 'team-member');
    await setMembership(stack, workspaceId, member.userId, 'editor');
    const invited = await inWorkspace(stack, workspaceId, '/api/workspace/invitations', {
      body: { email: uniqueEmail('team-invitee'), role: 'viewer' },
      token: owner.token,
    });
    expect(invited.status).toBe(201);

    const teamConversations = await conversationIdsOf([teamBot._id]);
    const personalConversations = await conversationIdsOf([personalBot._id]);
    const teamHeld = () => heldOf(workspaceId, [teamBot._id], teamConversations);
    const personalHeld = () => heldOf(owner.userId, [personalBot._id], personalConversations);
    const before = await teamHeld();
    expect(before).toMatchObject({
      workspaces: 1,
      memberships: 2,
      invitations: 1,
      chatbots: 1,
      knowledgeEntries: 1,
      conversations: 2,
      messages: 4,
      analyticsDays: 1,
      accounts: 1,
      usageRecords: 2,
    });
    expect(before.auditEvents).toBeGreaterThan(0);
    expect(before.analyticsVisitors).toBeGreaterThan(0);
    const personalBefore = await personalHeld();
    const personalMoney = await balanceAndLedger(owner.userId);

    const wrong = await inWorkspace(stack, workspaceId, '/api/workspace', {
      method: 'DELETE',
      body: { password: 'not-it' },
      token: owner.token,
    });
    expect(wrong.status).toBe(400);
    const deleted = await inWorkspace(stack, workspaceId, '/api/workspace', {
      method: 'DELETE',
      body: { password: PASSWORD },
      token: owner.token,
    });
    expect(deleted.status).toBe(200);

    const gone = Object.fromEntries(Object.keys(before).map((k) => [k, 0]));
    await eventually(teamHeld, (held) => JSON.stringify(held) === JSON.stringify(gone), 'the workspace to be gone everywhere');
    // Billing keeps only anonymised accounting records (ADR 13): the usage, under no owner, no name.
    const anonymised = await sql(
      stack.billingDatabase,
      'SELECT "userId", "chatbotName" FROM $schema."UsageRecord" WHERE "chatbotId" = $1',
      [teamBot._id],
    );
    expect(anonymised).toHaveLength(2);
    for (const record of anonymised) expect(record).toMatchObject({ userId: expect.not.stringMatching(workspaceId), chatbotName: '' });
    // The ledger moved with them to the same anonymous id, every entry kept, closed by one entry that
    // takes the balance to 0: the anonymous balance is its ledger's sum.
    const anonymousIds = [...new Set(anonymised.map((r) => r.userId as string))];
    expect(anonymousIds).toHaveLength(1);
    const closed = await balanceAndLedger(anonymousIds[0]);
    expect([Number(closed.balance), Number(closed.ledger), closed.entries]).toEqual([0, 0, before.ledgerEntries + 1]);
    expect(await count(stack.billingDatabase, '$schema."DeletedAccount" WHERE "userId" = $1', [workspaceId])).toBe(1);
    expect((await inWorkspace(stack, workspaceId, '/api/chatbot', { token: owner.token })).status).toBe(404);
    expect((await inWorkspace(stack, workspaceId, '/api/chatbot', { token: member.token })).status).toBe(404);
    // The member keeps their account and their own workspace.
    expect((await api(stack.url, '/api/workspace', { token: member.token })).body).toMatchObject({ id: member.userId, personal: true });
    expect((await api(stack.url, `/api/chatbot/public/${teamBot.uniqueId}`)).status).toBe(404);

    // A redelivered AccountDeleted (under new job ids) changes nothing and fails no job.
    const event = create(AccountDeletedSchema, { userId: workspaceId, occurredAt: timestampNow() });
    for (const name of [QUEUES.accountDeletedChatbot, QUEUES.accountDeletedChat, QUEUES.accountDeletedBilling]) {
      const producer = createProducer(redis, name, AccountDeletedSchema, { prefix: stack.queuePrefix });
      await producer.publish(event, `again-${workspaceId}`);
      await producer.close();
      const queue = new Queue(name, { connection: redis, prefix: stack.queuePrefix });
      const job = await eventually(
        () => queue.getJob(`again-${workspaceId}`),
        (j) => !!j && j.finishedOn !== undefined,
        `the redelivered job on ${name}`,
      );
      expect(job?.failedReason, name).toBeUndefined();
      await queue.close();
    }
    expect(await teamHeld()).toEqual(gone);
    expect(await balanceAndLedger(anonymousIds[0])).toEqual(closed);
    expect(await count(stack.billingDatabase, '$schema."UsageRecord" WHERE "chatbotId" = $1', [teamBot._id])).toBe(2);

    // The personal workspace and everything in it are untouched.
    expect(await personalHeld()).toEqual(personalBefore);
    expect(await balanceAndLedger(owner.userId)).toEqual(personalMoney);
    const mine = await api(stack.url, '/api/chatbot', { token: owner.token });
    expect(mine.body.map((c: { _id: string }) => c._id)).toEqual([personalBot._id]);
    expect((await api(stack.url, '/api/workspaces', { token: owner.token })).body.map((w: { id: string }) => w.id)).toEqual([owner.userId]);
  });
});
