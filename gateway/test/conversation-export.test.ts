// GET /api/chatbot/{id}/conversations/export: the download's content in both formats (quoting,
// formula cells, unicode, ratings, the visitor, a member's reply and internal note with their author), the refusals as JSON with their status, and 10,000
// conversations streamed through the gateway with the process's memory bounded.
import { parse } from 'csv-parse/sync';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePro, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, startStack, type Stack } from './stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

async function chat<T = unknown>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: stack.chatDatabase.databaseUrl });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${stack.chatDatabase.schema}"`);
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

async function newChatbot(owner: Owner, name: string): Promise<string> {
  const res = await api(stack.url, '/api/chatbot', { body: { name }, token: owner.token });
  expect(res.status).toBe(201);
  return res.body._id ?? res.body.id;
}

/** One conversation with the given messages, a second apart from `start`. */
async function conversation(
  chatbotId: string,
  owner: Owner,
  c: { sessionId: string; userIp: string | null; userAgent: string | null; start: string },
  messages: [role: string, content: string, rating: string | null][],
) {
  const [{ id }] = await chat<{ id: string }>(
    `INSERT INTO "Conversation" ("id", "chatbotId", "ownerId", "sessionId", "userIp", "userAgent", "messageCount", "createdAt", "updatedAt")
     VALUES (gen_random_uuid(), $1, $2, $3, $4::text, $5::text, $6::int, $7::timestamptz, $7::timestamptz + $6::int * interval '1 second') RETURNING "id"`,
    [chatbotId, owner.userId, c.sessionId, c.userIp, c.userAgent, messages.length, c.start],
  );
  for (const [i, [role, content, rating]] of messages.entries()) {
    await chat(
      `INSERT INTO "Message" ("conversationId", "role", "content", "createdAt", "rating")
       VALUES ($1, $2::"MessageRole", $3, $4::timestamptz + $5 * interval '1 second', $6::text)`,
      [id, role, content, c.start, i + 1, rating],
    );
  }
  return id;
}

/** RFC 4180 read back by csv-parse (quoted fields with "" for a quote, CRLF between records). */
const parseCsv = (text: string): string[][] => parse(text, { relaxQuotes: false });

const download = (chatbotId: string, owner: Owner, query: string) =>
  fetch(`${stack.url}/api/chatbot/${chatbotId}/conversations/export?${query}`, { headers: { authorization: `Bearer ${owner.token}` } });

describe('conversation export', () => {
  let owner: Owner;
  let chatbotId: string;
  let first: string;
  let second: string;

  beforeAll(async () => {
    owner = await registerOwner(stack, 'exporter');
    await makePro(stack, owner);
    chatbotId = await newChatbot(owner, 'Café Support Bot!');
    first = await conversation(
      chatbotId,
      owner,
      { sessionId: 'session-one', userIp: '203.0.113.9', userAgent: 'Mozilla/5.0 (X11; Linux), "quoted"', start: '2026-02-01T10:00:00Z' },
      [
        ['user', 'He said "hi", then left', null],
        ['assistant', 'line one\nline two\r\nline three', 'up'],
        ['user', '=HYPERLINK("http://evil.example","x")', null],
        ['assistant', 'Ünïcødé 日本語 🙂', 'down'],
        ['user', '-1+2', null],
        ['user', '@SUM(1)', null],
        ['user', '\tTabbed', null],
        ['user', '+1', null],
      ],
    );
    // What a host page told the widget (Parley.identify): a name a spreadsheet would run is made inert too.
    await chat(`UPDATE "Conversation" SET "visitorId" = 'customer-42', "visitorName" = '=Zoë' WHERE "id" = $1`, [first]);
    second = await conversation(
      chatbotId,
      owner,
      { sessionId: 'session-two', userIp: null, userAgent: null, start: '2026-02-03T10:00:00Z' },
      [
        ['user', 'plain', null],
        ['assistant', 'answer', null],
        ['agent', 'Ada here, I will check.', null],
        ['note', '=Refund due', null],
      ],
    );
    // A member's reply (agent) and internal note, each with who wrote it (a name a spreadsheet would run is made inert).
    await chat(`UPDATE "Message" SET "authorName" = '=Ada' WHERE "conversationId" = $1 AND "role" IN ('agent', 'note')`, [second]);
  });

  it('downloads CSV: header row, RFC 4180 quoting, formula cells made inert, unicode, ratings', async () => {
    const res = await download(chatbotId, owner, 'format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="cafe-support-bot-conversations.csv"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer());
    expect(
      text.startsWith(
        '\ufeffconversation_id,session_id,user_ip,user_agent,message_id,role,content,timestamp,rating,visitor_id,visitor_name,author_name\r\n',
      ),
    ).toBe(true);
    expect(text).toContain(',"He said ""hi"", then left",');
    expect(text).toContain(`,"'=HYPERLINK(""http://evil.example"",""x"")",`);
    const records = parseCsv(text.slice(1));
    expect(records[0]).toEqual([
      'conversation_id',
      'session_id',
      'user_ip',
      'user_agent',
      'message_id',
      'role',
      'content',
      'timestamp',
      'rating',
      'visitor_id',
      'visitor_name',
      'author_name',
    ]);
    const rows = records.slice(1);
    expect(rows.map((r) => [r[0], r[1], r[2], r[3], r[5], r[6], r[7], r[8]])).toEqual([
      [
        first,
        'session-one',
        '203.0.113.9',
        'Mozilla/5.0 (X11; Linux), "quoted"',
        'user',
        'He said "hi", then left',
        '2026-02-01T10:00:01.000Z',
        '',
      ],
      [
        first,
        'session-one',
        '203.0.113.9',
        'Mozilla/5.0 (X11; Linux), "quoted"',
        'assistant',
        'line one\nline two\r\nline three',
        '2026-02-01T10:00:02.000Z',
        'up',
      ],
      [
        first,
        'session-one',
        '203.0.113.9',
        'Mozilla/5.0 (X11; Linux), "quoted"',
        'user',
        `'=HYPERLINK("http://evil.example","x")`,
        '2026-02-01T10:00:03.000Z',
        '',
      ],
      [
        first,
        'session-one',
        '203.0.113.9',
        'Mozilla/5.0 (X11; Linux), "quoted"',
        'assistant',
        'Ünïcødé 日本語 🙂',
        '2026-02-01T10:00:04.000Z',
        'down',
      ],
      [first, 'session-one', '203.0.113.9', 'Mozilla/5.0 (X11; Linux), "quoted"', 'user', "'-1+2", '2026-02-01T10:00:05.000Z', ''],
      [first, 'session-one', '203.0.113.9', 'Mozilla/5.0 (X11; Linux), "quoted"', 'user', "'@SUM(1)", '2026-02-01T10:00:06.000Z', ''],
      [first, 'session-one', '203.0.113.9', 'Mozilla/5.0 (X11; Linux), "quoted"', 'user', "'\tTabbed", '2026-02-01T10:00:07.000Z', ''],
      [first, 'session-one', '203.0.113.9', 'Mozilla/5.0 (X11; Linux), "quoted"', 'user', "'+1", '2026-02-01T10:00:08.000Z', ''],
      [second, 'session-two', '', '', 'user', 'plain', '2026-02-03T10:00:01.000Z', ''],
      [second, 'session-two', '', '', 'assistant', 'answer', '2026-02-03T10:00:02.000Z', ''],
      [second, 'session-two', '', '', 'agent', 'Ada here, I will check.', '2026-02-03T10:00:03.000Z', ''],
      [second, 'session-two', '', '', 'note', "'=Refund due", '2026-02-03T10:00:04.000Z', ''],
    ]);
    expect(rows.every((r) => /^\d+$/.test(r[4]))).toBe(true);
    expect(rows.map((r) => r.slice(9))).toEqual([
      ...Array(8).fill(['customer-42', "'=Zoë", '']),
      ['', '', ''],
      ['', '', ''],
      ['', '', "'=Ada"],
      ['', '', "'=Ada"],
    ]);
  });

  it('downloads JSONL: one object per message, the same fields in camelCase, the content as written', async () => {
    const res = await download(chatbotId, owner, 'format=jsonl');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="cafe-support-bot-conversations.jsonl"');
    const text = await res.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(12);
    expect(Object.keys(lines[0])).toEqual([
      'conversationId',
      'sessionId',
      'userIp',
      'userAgent',
      'messageId',
      'role',
      'content',
      'timestamp',
      'rating',
      'visitorId',
      'visitorName',
      'authorName',
    ]);
    expect(lines[1]).toMatchObject({ conversationId: first, role: 'assistant', content: 'line one\nline two\r\nline three', rating: 'up' });
    expect(lines[2].content).toBe('=HYPERLINK("http://evil.example","x")');
    expect(lines[3]).toMatchObject({ content: 'Ünïcødé 日本語 🙂', rating: 'down', timestamp: '2026-02-01T10:00:04.000Z' });
    expect(lines[8]).toMatchObject({
      conversationId: second,
      userIp: null,
      userAgent: null,
      rating: null,
      visitorId: null,
      visitorName: null,
      authorName: null,
    });
    expect(lines[0]).toMatchObject({ visitorId: 'customer-42', visitorName: '=Zoë', authorName: null });
    expect(lines.slice(10)).toMatchObject([
      { role: 'agent', content: 'Ada here, I will check.', authorName: '=Ada' },
      { role: 'note', content: '=Refund due', authorName: '=Ada' },
    ]);
  });

  it('takes a date range: conversations with a message in it', async () => {
    const res = await download(chatbotId, owner, 'format=jsonl&startDate=2026-02-02&endDate=2026-02-03');
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.content)).toEqual(['plain', 'answer', 'Ada here, I will check.', '=Refund due']);
    const empty = await download(chatbotId, owner, 'format=csv&startDate=2026-03-01');
    expect(new TextDecoder('utf-8', { ignoreBOM: true }).decode(await empty.arrayBuffer()).split('\r\n')).toEqual([
      '\ufeffconversation_id,session_id,user_ip,user_agent,message_id,role,content,timestamp,rating,visitor_id,visitor_name,author_name',
      '',
    ]);
  });

  it('refuses with JSON and a status before any byte: bad format or dates, free plan, another owner, no token', async () => {
    const path = (id: string, query: string) => `/api/chatbot/${id}/conversations/export?${query}`;
    const cases: [string, Owner | null, number, string][] = [
      [path(chatbotId, 'format=xlsx'), owner, 400, 'Format must be csv or jsonl'],
      [path(chatbotId, ''), owner, 400, 'Format must be csv or jsonl'],
      [path(chatbotId, 'format=csv&startDate=01/02/2026'), owner, 400, 'Dates must be YYYY-MM-DD'],
      [path(chatbotId, 'format=csv&startDate=2026-02-01&startDate=2026-02-02'), owner, 400, 'Dates must be YYYY-MM-DD'],
      [path(chatbotId, 'format=csv&startDate=2026-02-03&endDate=2026-02-01'), owner, 400, 'The end date must not be before the start date'],
    ];
    const free = await registerOwner(stack, 'free');
    const freeBot = await newChatbot(free, 'Free bot');
    cases.push([path(freeBot, 'format=csv'), free, 403, 'Upgrade to Pro to export conversations']);
    const stranger = await registerOwner(stack, 'stranger');
    await makePro(stack, stranger);
    cases.push([path(chatbotId, 'format=csv'), stranger, 404, 'Chatbot not found']);
    cases.push([path('not-a-uuid', 'format=jsonl'), stranger, 404, 'Chatbot not found']);
    for (const [url, who, status, message] of cases) {
      const res = await api(stack.url, url, { token: who?.token });
      expect([url, res.status, res.body]).toEqual([url, status, { message }]);
      expect(res.headers.get('content-disposition')).toBeNull();
    }
    const anonymous = await api(stack.url, path(chatbotId, 'format=csv'));
    expect(anonymous.status).toBe(401);
  });
});

describe('a large export', () => {
  const CONVERSATIONS = 10_000;
  const PER_CONVERSATION = 5;
  /** Each message about 2 kB: the file (≈ 100 MB) is far larger than the bounds below. */
  const CONTENT_CHARS = 2000;
  /**
   * The live heap (after a full collection, every 5 MB received) may grow by at most this much: an
   * export built whole would hold the ≈ 100 MB file, several times over as rows, protobuf and text.
   */
  const MAX_LIVE_HEAP_GROWTH_MB = 40;
  /**
   * Peak RSS growth of this process (gateway, chat service and the client together) while streaming:
   * a guard only, as RSS also holds garbage and freed buffers the allocator keeps (≈ 150 MB measured
   * for the 100 MB file against 10 MB of live heap).
   */
  const MAX_RSS_GROWTH_MB = 250;

  it(`streams ${CONVERSATIONS.toLocaleString('en-US')} conversations in both formats with the process's memory bounded`, async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const owner = await registerOwner(stack, 'large');
    await makePro(stack, owner);
    const chatbotId = await newChatbot(owner, 'Large');
    await chat(
      `WITH c AS (
         INSERT INTO "Conversation" ("id", "chatbotId", "ownerId", "sessionId", "userIp", "userAgent", "messageCount", "createdAt", "updatedAt")
         SELECT gen_random_uuid(), $1, $2, 'large-' || g, '198.51.100.' || (g % 250), 'Agent ' || g, $3,
                '2026-01-01T00:00:00Z'::timestamptz + g * interval '1 second', '2026-01-01T00:00:00Z'::timestamptz + g * interval '1 second' + interval '1 second'
           FROM generate_series(1, $4::int) AS g
         RETURNING "id", "createdAt"
       )
       INSERT INTO "Message" ("conversationId", "role", "content", "createdAt", "rating")
       SELECT c."id", (CASE WHEN i % 2 = 1 THEN 'user' ELSE 'assistant' END)::"MessageRole",
              '=' || i || ', "quoted" ' || repeat('x', $5::int), c."createdAt" + i * interval '10 ms', CASE WHEN i = 2 THEN 'up' END
         FROM c, generate_series(1, $3::int) AS i`,
      [chatbotId, owner.userId, PER_CONVERSATION, CONVERSATIONS, CONTENT_CHARS],
    );

    for (const format of ['csv', 'jsonl'] as const) {
      gc();
      const base = process.memoryUsage();
      let rssPeak = base.rss;
      let heapPeak = base.heapUsed;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 5);
      const started = performance.now();
      const res = await download(chatbotId, owner, `format=${format}`);
      expect(res.status).toBe(200);
      // A counting sink: bytes and line breaks, nothing kept.
      let bytes = 0;
      let lines = 0;
      let nextCheck = 0;
      for await (const chunk of res.body!) {
        bytes += chunk.byteLength;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
        if (bytes >= nextCheck) {
          nextCheck += 5 * 2 ** 20;
          gc();
          heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
        }
      }
      clearInterval(sampler);
      const seconds = (performance.now() - started) / 1000;
      const rssGrowth = (rssPeak - base.rss) / 2 ** 20;
      const heapGrowth = (heapPeak - base.heapUsed) / 2 ** 20;
      console.log(
        `${format}: ${(bytes / 2 ** 20).toFixed(0)} MB, ${CONVERSATIONS * PER_CONVERSATION} messages in ${seconds.toFixed(1)} s; ` +
          `peak RSS growth ${rssGrowth.toFixed(0)} MB, live heap growth ${heapGrowth.toFixed(0)} MB`,
      );
      // CSV: the header and one record per message (the content has no line break); JSONL: one line per message.
      expect(lines).toBe(CONVERSATIONS * PER_CONVERSATION + (format === 'csv' ? 1 : 0));
      expect(bytes).toBeGreaterThan(CONVERSATIONS * PER_CONVERSATION * CONTENT_CHARS);
      expect(heapGrowth).toBeLessThan(MAX_LIVE_HEAP_GROWTH_MB);
      expect(rssGrowth).toBeLessThan(MAX_RSS_GROWTH_MB);
    }
  }, 240_000);
});
