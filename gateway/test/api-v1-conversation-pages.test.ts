// Conversations through the developer API a page at a time, past the history tab's 1,000 (the chat
// service pages them in SQL): over 1,000 conversations seeded straight into the chat schema, some
// begun in the same millisecond and most recently active in another order than they began, every page
// walked returns each conversation exactly once, newest first by when it began; conversations begun,
// and one that got a message, between two page reads shift and duplicate nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys, v1 } from './api-v1-fixtures.ts';
import { makePro, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, startStack, type ApiResponse, type Stack } from './stack.ts';
import { sql } from './workspace-fixtures.ts';

const SEEDED = 1_234;

let stack: Stack;
let owner: Owner;
let chatbotId: string;
let key: string;

beforeAll(async () => {
  stack = await startStack();
  owner = await registerOwner(stack, 'v1-pages');
  await makePro(stack, owner);
  const created = await api(stack.url, '/api/chatbot', { body: { name: 'Busy' }, token: owner.token });
  expect(created.status).toBe(201);
  chatbotId = created.body._id;
  key = (await apiKeys(stack).create(owner, ['conversations:read'])).secret;
  // Three conversations begin in each millisecond (the id breaks the tie); the most recently active
  // are the oldest ones, so the history tab's 1,000 (by activity) would leave out the newest.
  await sql(
    stack.chatDatabase,
    `INSERT INTO $schema."Conversation" ("id", "chatbotId", "ownerId", "sessionId", "messageCount", "createdAt", "updatedAt")
     SELECT gen_random_uuid(), $1::uuid, $2, 'seeded-' || i, 2,
            timestamptz '2026-06-01T12:00:00Z' + (i / 3) * interval '1 millisecond',
            timestamptz '2026-11-01T00:00:00Z' - i * interval '1 second'
       FROM generate_series(1, $3::int) AS i`,
    [chatbotId, owner.userId, SEEDED],
  );
});
afterAll(async () => {
  await stack?.close();
});

/** The seeded conversations' ids (their session ids), newest first by when they began, then by row id. */
async function expectedOrder(): Promise<string[]> {
  const rows = await sql(
    stack.chatDatabase,
    `SELECT "sessionId" FROM $schema."Conversation" WHERE "chatbotId" = $1::uuid ORDER BY "createdAt" DESC, "id" DESC`,
    [chatbotId],
  );
  return rows.map((r) => r.sessionId as string);
}

async function page(limit: number, cursor: string | null): Promise<ApiResponse> {
  const res = await v1(stack, `/chatbots/${chatbotId}/conversations?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

describe('paging conversations', () => {
  it('returns each of more than 1,000 conversations exactly once, newest first, and new ones shift nothing', async () => {
    const expected = await expectedOrder();
    expect(expected).toHaveLength(SEEDED);

    const seen: string[] = [];
    let cursor: string | null = null;
    let reads = 0;
    do {
      const res: ApiResponse = await page(100, cursor);
      expect(res.body.data.length).toBeLessThanOrEqual(100);
      seen.push(...res.body.data.map((c: { id: string }) => c.id));
      cursor = res.body.nextCursor;
      reads += 1;
      if (reads === 1 || reads === 7) {
        // Between two reads: a conversation begins, and one of a later page gets a message.
        await sql(
          stack.chatDatabase,
          `INSERT INTO $schema."Conversation" ("id", "chatbotId", "ownerId", "sessionId", "createdAt", "updatedAt")
           VALUES (gen_random_uuid(), $1::uuid, $2, $3, now(), now())`,
          [chatbotId, owner.userId, `begun-during-read-${reads}`],
        );
        await sql(
          stack.chatDatabase,
          `UPDATE $schema."Conversation" SET "updatedAt" = now(), "messageCount" = "messageCount" + 2 WHERE "sessionId" = $1`,
          [expected[seen.length + 150]],
        );
      }
    } while (cursor);

    expect(reads).toBe(Math.ceil(SEEDED / 100));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expected);

    // A fresh walk begins with what began since, newest first.
    const fresh = await page(2, null);
    expect(fresh.body.data.map((c: { id: string }) => c.id)).toEqual(['begun-during-read-7', 'begun-during-read-1']);
  });

  it('pages by any size to the same order, the last page with no cursor', async () => {
    const expected = await expectedOrder();
    const seen: string[] = [];
    let cursor: string | null = null;
    let last: ApiResponse;
    do {
      last = await page(97, cursor);
      seen.push(...last.body.data.map((c: { id: string }) => c.id));
      cursor = last.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(expected);
    expect(last.body.data.length).toBe(expected.length % 97 || 97);
  });

  it("leaves the dashboard's history list as it was: the 1,000 most recently active", async () => {
    const res = await api(stack.url, `/api/chatbot/${chatbotId}/conversations`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1000);
    const updated = res.body.map((c: { updatedAt: string }) => c.updatedAt);
    expect(updated).toEqual([...updated].sort().reverse());
  });

  it('refuses a cursor it did not give, and a limit past 100', async () => {
    for (const cursor of ['nonsense', Buffer.from('2026-06-01T12:00:00.000Z|not-a-uuid').toString('base64url')]) {
      const res = await v1(stack, `/chatbots/${chatbotId}/conversations?cursor=${cursor}`, key);
      expect([res.status, res.body.error?.code]).toEqual([400, 'invalid_request']);
    }
    expect((await v1(stack, `/chatbots/${chatbotId}/conversations?limit=101`, key)).status).toBe(400);
  });
});
