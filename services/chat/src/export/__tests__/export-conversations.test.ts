// The conversation export: owner and Pro only, every message of every conversation exactly once in
// order (conversations oldest first, messages as sent) across pages, the date range, and the rows as
// the RPC streams them.
import { Code } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newOwner, rpcError, session, startChatStack, visitor, type ChatStack } from '../../../test/integration/harness.ts';
import type { ExportRow } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { exportPages, parseExportRange } from '../export-conversations.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** n conversations of k messages each, one a second from `start`; the second message rated up. */
async function seed(chatbotId: string, ownerId: string, n: number, k: number, start: Date, tag = 's') {
  await stack.parts.prisma.$executeRaw`
    WITH c AS (
      INSERT INTO "Conversation" ("id", "chatbotId", "ownerId", "sessionId", "userIp", "userAgent", "messageCount", "createdAt", "updatedAt")
      SELECT gen_random_uuid(), ${chatbotId}::uuid, ${ownerId}, ${tag} || '-' || g, '203.0.113.' || (g % 250), 'Agent ' || g, ${k},
             ${start}::timestamptz + g * interval '1 second', ${start}::timestamptz + g * interval '1 second' + ${k} * interval '10 ms'
        FROM generate_series(1, ${n}) AS g
      RETURNING "id", "createdAt"
    )
    INSERT INTO "Message" ("conversationId", "role", "content", "createdAt", "rating")
    SELECT c."id", (CASE WHEN i % 2 = 1 THEN 'user' ELSE 'assistant' END)::"MessageRole",
           'Message ' || i || ' of a seeded conversation, about as long as a real question or answer.',
           c."createdAt" + i * interval '10 ms', CASE WHEN i = 2 THEN 'up' END
      FROM c, generate_series(1, ${k}) AS i`;
}

/** The expected order, by one plain query over everything. */
async function expected(chatbotId: string) {
  const rows = await stack.parts.prisma.$queryRaw<{ id: bigint }[]>`
    SELECT m."id" FROM "Message" m JOIN "Conversation" c ON c."id" = m."conversationId"
     WHERE c."chatbotId" = ${chatbotId}::uuid
     ORDER BY c."createdAt", c."id", m."createdAt", m."id"`;
  return rows.map((r) => r.id.toString());
}

async function exported(chatbotId: string, pageSize: number, range = parseExportRange()) {
  const ids: string[] = [];
  const sizes: number[] = [];
  for await (const rows of exportPages(stack.parts.exportDb, chatbotId, range, pageSize)) {
    sizes.push(rows.length);
    ids.push(...rows.map((r) => r.messageId));
  }
  return { ids, sizes };
}

describe('conversation export', () => {
  it('yields every message exactly once, conversations oldest first, messages as sent, across pages of any size', async () => {
    const bot = await stack.newChatbot();
    const start = new Date('2026-01-01T00:00:00Z');
    await seed(bot.id, bot.ownerId, 40, 3, start, 'a');
    // Single-message conversations and one long one spanning pages.
    await seed(bot.id, bot.ownerId, 5, 1, new Date(start.getTime() - 5_000), 'b');
    await seed(bot.id, bot.ownerId, 1, 23, new Date(start.getTime() + 10_500), 'c');
    // Conversations opened at the same moment as others (their order: by id).
    await seed(bot.id, bot.ownerId, 3, 2, start, 'd');
    const want = await expected(bot.id);
    expect(want).toHaveLength(40 * 3 + 5 + 23 + 3 * 2);
    for (const size of [1, 2, 7, 1000]) {
      const { ids, sizes } = await exported(bot.id, size);
      expect(ids).toEqual(want);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(size);
    }
    // Another chatbot's conversations stay out.
    const other = await stack.newChatbot();
    expect((await exported(other.id, 10)).ids).toEqual([]);
  });

  it('keeps the conversations with a message in the date range, whole', async () => {
    const bot = await stack.newChatbot();
    await seed(bot.id, bot.ownerId, 2, 2, new Date('2026-03-01T10:00:00Z'), 'mar1');
    await seed(bot.id, bot.ownerId, 2, 2, new Date('2026-03-03T23:59:58.985Z'), 'mar3');
    await seed(bot.id, bot.ownerId, 2, 2, new Date('2026-03-05T10:00:00Z'), 'mar5');
    const sessions = async (start: string, end: string) => {
      const rows = [];
      for await (const page of exportPages(stack.parts.exportDb, bot.id, parseExportRange(start, end), 3)) rows.push(...page);
      return rows.map((r) => r.sessionId);
    };
    // mar3-1 starts at 23:59:59.985 on 3 March and its second message comes on the 4th: it is whole in either day.
    expect(await sessions('2026-03-02', '2026-03-03')).toEqual(['mar3-1', 'mar3-1']);
    expect(await sessions('2026-03-04', '2026-03-04')).toEqual(['mar3-1', 'mar3-1', 'mar3-2', 'mar3-2']);
    expect(new Set(await sessions('2026-03-01', ''))).toEqual(new Set(['mar1-1', 'mar1-2', 'mar3-1', 'mar3-2', 'mar5-1', 'mar5-2']));
    expect(await sessions('', '2026-03-01')).toEqual(['mar1-1', 'mar1-1', 'mar1-2', 'mar1-2']);
    expect(await sessions('2026-03-06', '2026-03-09')).toEqual([]);
  });

  it('streams the rows over the RPC: roles, times, ratings and the visitor as the history shows them', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Some knowledge.'] });
    await stack.makePro(bot.ownerId);
    stack.fake.setBehaviour({ reply: () => 'Réponse, "quoted"\nsecond line' });
    await stack.client.sendMessage(
      visitor(bot.uniqueId, '=SUM(A1:A2), ünïcødé 🙂', { sessionId: session('export-A'), clientIp: '192.0.2.7', userAgent: 'Agent A' }),
    );
    await stack.parts.prisma.message.updateMany({
      where: { role: 'assistant', conversation: { chatbotId: bot.id } },
      data: { rating: 'down' },
    });

    const rows: ExportRow[] = [];
    for await (const page of stack.client.exportConversations({ ownerId: bot.ownerId, chatbotId: bot.id })) rows.push(...page.rows);
    expect(rows.map((r) => [r.sessionId, r.userIp, r.userAgent, r.role, r.content, r.rating])).toEqual([
      [session('export-A'), '192.0.2.7', 'Agent A', 'user', '=SUM(A1:A2), ünïcødé 🙂', ''],
      [session('export-A'), '192.0.2.7', 'Agent A', 'assistant', 'Réponse, "quoted"\nsecond line', 'down'],
    ]);
    expect(rows.every((r) => r.conversationId === rows[0].conversationId && /^\d+$/.test(r.messageId))).toBe(true);
    expect(timestampDate(rows[0].timestamp!).getTime()).toBeLessThanOrEqual(timestampDate(rows[1].timestamp!).getTime());
  });

  it('is Pro only, the owner only, and checks the dates, before any row', async () => {
    const bot = await stack.newChatbot();
    await seed(bot.id, bot.ownerId, 1, 2, new Date('2026-01-01T00:00:00Z'));
    const drain = async (req: { ownerId: string; chatbotId: string; startDate?: string; endDate?: string }) => {
      for await (const _ of stack.client.exportConversations(req));
    };
    let err = await rpcError(drain({ ownerId: bot.ownerId, chatbotId: bot.id }));
    expect([err.code, err.rawMessage]).toEqual([Code.PermissionDenied, 'Upgrade to Pro to export conversations']);

    const stranger = newOwner('stranger');
    await stack.makePro(stranger);
    err = await rpcError(drain({ ownerId: stranger, chatbotId: bot.id }));
    expect([err.code, err.rawMessage]).toEqual([Code.NotFound, 'Chatbot not found']);

    await stack.makePro(bot.ownerId);
    for (const [startDate, endDate, message] of [
      ['2026-1-01', '', 'Dates must be YYYY-MM-DD'],
      ['2026-02-30', '', 'Dates must be YYYY-MM-DD'],
      ['', 'yesterday', 'Dates must be YYYY-MM-DD'],
      ['2026-02-02', '2026-02-01', 'The end date must not be before the start date'],
    ]) {
      err = await rpcError(drain({ ownerId: bot.ownerId, chatbotId: bot.id, startDate, endDate }));
      expect([err.code, err.rawMessage]).toEqual([Code.InvalidArgument, message]);
    }
  });

  it('drops an idle session the server ended (a restart) and goes on, instead of crashing the service', async () => {
    const pool = stack.parts.exportDb;
    const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const idle = pool.totalCount;
    await stack.parts.prisma.$queryRaw`SELECT pg_terminate_backend(${rows[0].pid}::int)`;
    await expect.poll(() => pool.totalCount).toBe(idle - 1);
    await expect(pool.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
  });
});
