// Leads through the gateway (docs/adr/0034-humans-in-the-loop.md): a chatbot's lead form and handoff
// on GraphQL and REST (handoff pro only); the public profile's leadForm and handoff; POST
// /api/chatbot/public/{uniqueId}/lead (201, a new session for a visitor without one, bad input a
// clear 4xx); GraphQL `leads`; GET /api/leads/export as CSV, paged through the chat service.
import { parse } from 'csv-parse/sync';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePro, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, startStack, type Stack } from './stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);

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

async function ownerWithChatbot(tag = 'leads', name = 'Shop helper') {
  const owner = await registerOwner(stack, tag);
  const res = await call('/api/chatbot', { body: { name }, token: owner.token });
  expect(res.status).toBe(201);
  return { owner, chatbot: res.body as { _id: string; uniqueId: string } };
}

const SETTINGS = `leadForm { name email phone trigger afterMessages consentText } handoff { enabled timeoutSeconds }`;
const update = (owner: Owner, id: string, input: unknown) =>
  gql(
    stack.url,
    `mutation($id: ID!, $input: UpdateChatbotInput!) { updateChatbot(id: $id, input: $input) { ${SETTINGS} } }`,
    { id, input },
    owner.token,
  );

const submit = (uniqueId: string, body: unknown, headers: Record<string, string> = {}) =>
  call(`/api/chatbot/public/${uniqueId}/lead`, { body, headers });

const parseCsv = (text: string): string[][] => parse(text, { relaxQuotes: false });
const exportLeads = (owner: Owner, query = '') =>
  fetch(`${stack.url}/api/leads/export${query ? `?${query}` : ''}`, { headers: { authorization: `Bearer ${owner.token}` } });

describe('the lead form and handoff settings', () => {
  it('read and change on GraphQL and REST; handoff is pro only', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const read = await gql(stack.url, `query($id: ID!) { chatbot(id: $id) { ${SETTINGS} } }`, { id: chatbot._id }, owner.token);
    expect(read.body.data.chatbot).toEqual({
      leadForm: { name: 'off', email: 'off', phone: 'off', trigger: 'before_first_message', afterMessages: 2, consentText: '' },
      handoff: { enabled: false, timeoutSeconds: 300 },
    });
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body).toMatchObject(read.body.data.chatbot);

    const changed = await update(owner, chatbot._id, {
      leadForm: { email: 'required', name: 'optional', trigger: 'after_messages', afterMessages: 3, consentText: 'I agree.' },
      handoff: { timeoutSeconds: 60 },
    });
    expect(changed.body.data.updateChatbot).toEqual({
      leadForm: { name: 'optional', email: 'required', phone: 'off', trigger: 'after_messages', afterMessages: 3, consentText: 'I agree.' },
      handoff: { enabled: false, timeoutSeconds: 60 },
    });

    const refused = await update(owner, chatbot._id, { handoff: { enabled: true } });
    expect(refused.body.errors[0]).toMatchObject({
      message: 'Handoff to a person is available on the Pro plan.',
      extensions: { code: 'FORBIDDEN' },
    });
    const restRefused = await call(`/api/chatbot/${chatbot._id}`, {
      method: 'PUT',
      body: { handoff: { enabled: true } },
      token: owner.token,
    });
    expect(restRefused).toMatchObject({ status: 403, body: { message: 'Handoff to a person is available on the Pro plan.' } });

    await makePro(stack, owner);
    const rest = await call(`/api/chatbot/${chatbot._id}`, {
      method: 'PUT',
      body: { handoff: { enabled: true }, leadForm: { phone: 'optional' } },
      token: owner.token,
    });
    expect(rest.status).toBe(200);
    expect(rest.body.handoff).toEqual({ enabled: true, timeoutSeconds: 60 });
    expect(rest.body.leadForm.phone).toBe('optional');

    const profile = await call(`/api/chatbot/public/${chatbot.uniqueId}`);
    expect(profile.body).toMatchObject({
      leadForm: {
        name: 'optional',
        email: 'required',
        phone: 'optional',
        trigger: 'after_messages',
        afterMessages: 3,
        consentText: 'I agree.',
      },
      handoff: true,
    });
  });

  it.each([
    [{ leadForm: { afterMessages: 0 } }, 400, 'The lead form shows after 1 to 50 messages.'],
    [{ leadForm: { afterMessages: 2.5 } }, 400, 'leadForm.afterMessages must be a whole number'],
    [{ leadForm: { email: 'yes' } }, 400, 'Each lead form field must be off, optional or required.'],
    [{ leadForm: { email: 3 } }, 400, 'leadForm.email must be a string'],
    [{ leadForm: 'required' }, 400, 'leadForm must be an object'],
    [{ leadForm: { consentText: 'x'.repeat(501) } }, 400, 'The consent line must be at most 500 characters.'],
    [{ handoff: { timeoutSeconds: 10 } }, 400, 'The wait for a person must be 30 to 3600 seconds.'],
    [{ handoff: { enabled: 'yes' } }, 400, 'handoff.enabled must be true or false'],
  ])('PUT refuses %j with %i', async (body, status, message) => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body, token: owner.token });
    expect(res).toMatchObject({ status, body: { message } });
  });

  it('GraphQL refuses a value outside the enums before any call', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await update(owner, chatbot._id, { leadForm: { email: 'sometimes' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('POST /api/chatbot/public/:uniqueId/lead', () => {
  it('answers 201 with the lead and a new session, which the next submission keeps', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    await update(owner, chatbot._id, { leadForm: { email: 'required', name: 'optional', consentText: 'Contact me.' } });
    const first = await submit(
      chatbot.uniqueId,
      { name: 'Ada', email: 'ada@example.com', consent: true, visitor: { id: 'u-1' } },
      {
        origin: 'https://shop.example.com',
      },
    );
    expect(first.status).toBe(201);
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    expect(first.body).toEqual({ leadId: expect.stringMatching(/^[0-9a-f-]{36}$/), sessionId: expect.stringMatching(/^[\w-]{38}$/) });
    const again = await submit(chatbot.uniqueId, { sessionId: first.body.sessionId, email: 'ada@lovelace.example', consent: true });
    expect(again).toMatchObject({ status: 201, body: first.body });
  });

  it.each([
    [{ email: 'ada' }, 400, 'Please enter a valid email address.'],
    [{ email: 'a@b.co', phone: '123456' }, 400, 'Phone is not asked for by this chatbot.'],
    [{}, 400, 'Email is required.'],
    [{ email: 'a@b.co', consent: 'yes' }, 400, 'consent must be true or false'],
    [{ email: 42 }, 400, 'email must be a string'],
    [{ email: 'a@b.co', visitor: 'ada' }, 400, 'visitor must be an object'],
    [{ email: 'a@b.co', source: 'import' }, 400, 'Source must be form or handoff_timeout.'],
    [{ email: 'a\u0000@b.co' }, 400, 'Text must not contain control characters'],
    [{ name: 'x'.repeat(201), email: 'a@b.co' }, 400, 'Name is too long (maximum 200 characters).'],
  ])('refuses %j with %i', async (body, status, message) => {
    const { owner, chatbot } = await ownerWithChatbot();
    await update(owner, chatbot._id, { leadForm: { email: 'required', name: 'optional' } });
    expect(await submit(chatbot.uniqueId, body)).toMatchObject({ status, body: { message } });
  });

  it('answers 404 for an unknown chatbot and 400 for a chatbot without a form', async () => {
    expect((await submit('nosuchbot123', { email: 'a@b.co' })).status).toBe(404);
    const { chatbot } = await ownerWithChatbot();
    expect(await submit(chatbot.uniqueId, { email: 'a@b.co' })).toMatchObject({
      status: 400,
      body: { message: 'This chatbot does not ask for contact details.' },
    });
  });
});

describe('the leads list and export', () => {
  it("lists the workspace's leads on GraphQL and exports them as CSV, a chatbot and days at a time", async () => {
    const { owner, chatbot } = await ownerWithChatbot('export', 'Café bot');
    await update(owner, chatbot._id, {
      leadForm: { name: 'optional', email: 'required', phone: 'optional', consentText: 'Yes, contact me.' },
    });
    const a = await submit(chatbot.uniqueId, { name: '=HYPERLINK("http://evil.example")', email: 'ada@example.com', consent: true });
    const b = await submit(chatbot.uniqueId, { name: 'Zoë "Z" Smith', email: 'zoe@example.com', phone: '+44 20 7946 0958', consent: true });
    await chat(`UPDATE "Lead" SET "createdAt" = '2026-01-05T10:00:00Z' WHERE "id" = $1`, [a.body.leadId]);
    await chat(`UPDATE "Lead" SET "createdAt" = '2026-01-06T10:00:00Z' WHERE "id" = $1`, [b.body.leadId]);
    const other = await ownerWithChatbot('export-other');

    const listed = await gql(
      stack.url,
      `query($after: String) { leads(first: 1, after: $after) { leads { id chatbotId conversationId name email phone consented consentText source createdAt channel channelContact } nextCursor } }`,
      {},
      owner.token,
    );
    expect(listed.body.data.leads.leads).toEqual([
      {
        id: b.body.leadId,
        chatbotId: chatbot._id,
        conversationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Zoë "Z" Smith',
        email: 'zoe@example.com',
        phone: '+44 20 7946 0958',
        consented: true,
        consentText: 'Yes, contact me.',
        source: 'form',
        createdAt: '2026-01-06T10:00:00.000Z',
        channel: 'web',
        channelContact: null,
      },
    ]);
    const next = await gql(
      stack.url,
      `query($after: String) { leads(first: 1, after: $after) { leads { id } nextCursor } }`,
      { after: listed.body.data.leads.nextCursor },
      owner.token,
    );
    expect(next.body.data.leads).toEqual({ leads: [{ id: a.body.leadId }], nextCursor: null });
    const notFound = await gql(stack.url, `query($c: ID) { leads(chatbotId: $c) { nextCursor } }`, { c: other.chatbot._id }, owner.token);
    expect(notFound.body.errors[0].extensions.code).toBe('NOT_FOUND');

    const res = await exportLeads(owner);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="leads.csv"');
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer());
    expect(
      text.startsWith(
        '\ufeffcreated_at,lead_id,chatbot_id,chatbot_name,conversation_id,name,email,phone,consented,consent_text,source,channel,channel_contact\r\n',
      ),
    ).toBe(true);
    const [, ...records] = parseCsv(text.slice(1));
    expect(records).toEqual([
      [
        '2026-01-06T10:00:00.000Z',
        b.body.leadId,
        chatbot._id,
        'Café bot',
        expect.any(String),
        'Zoë "Z" Smith',
        'zoe@example.com',
        // A leading + is one of the characters a spreadsheet runs: the cell is made inert too.
        "'+44 20 7946 0958",
        'yes',
        'Yes, contact me.',
        'form',
        'web',
        '',
      ],
      [
        '2026-01-05T10:00:00.000Z',
        a.body.leadId,
        chatbot._id,
        'Café bot',
        expect.any(String),
        `'=HYPERLINK("http://evil.example")`,
        'ada@example.com',
        '',
        'yes',
        'Yes, contact me.',
        'form',
        'web',
        '',
      ],
    ]);

    const oneDay = parseCsv((await (await exportLeads(owner, 'startDate=2026-01-06&endDate=2026-01-06')).text()).slice(1));
    expect(oneDay.slice(1).map((r) => r[1])).toEqual([b.body.leadId]);
    const byChatbot = parseCsv((await (await exportLeads(owner, `chatbotId=${chatbot._id}`)).text()).slice(1));
    expect(byChatbot).toHaveLength(3);
  });

  it('pages through more leads than one page holds', async () => {
    const { owner, chatbot } = await ownerWithChatbot('export-many');
    const total = 1234;
    await chat(
      `WITH c AS (
         INSERT INTO "Conversation" ("id", "chatbotId", "ownerId", "sessionId", "updatedAt")
         SELECT gen_random_uuid(), $1::uuid, $2, 's' || n, now() FROM generate_series(1, $3::int) AS n RETURNING "id", "sessionId"
       )
       INSERT INTO "Lead" ("id", "conversationId", "chatbotId", "ownerId", "email", "createdAt", "updatedAt")
       SELECT gen_random_uuid(), c."id", $1::uuid, $2, c."sessionId" || '@example.com', now() - (substr(c."sessionId", 2)::int * interval '1 second'), now() FROM c`,
      [chatbot._id, owner.userId, total],
    );
    const res = await exportLeads(owner);
    const [, ...records] = parseCsv((await res.text()).slice(1));
    expect(records).toHaveLength(total);
    expect(records.map((r) => r[6])).toEqual(Array.from({ length: total }, (_, i) => `s${i + 1}@example.com`));
  });

  it.each([
    ['startDate=2026-13-01', 400, 'Dates must be YYYY-MM-DD'],
    ['startDate=2026-01-02&endDate=2026-01-01', 400, 'The end date must not be before the start date'],
    ['startDate=2026-01-01&startDate=2026-01-02', 400, 'startDate must be given once'],
    ['chatbotId=not-a-chatbot', 404, 'Chatbot not found'],
  ])('refuses ?%s with %i, as JSON', async (query, status, message) => {
    const { owner } = await ownerWithChatbot('export-bad');
    const res = await exportLeads(owner, query);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-disposition')).toBeNull();
    expect(await res.json()).toEqual({ message });
  });

  it("answers 404 for another workspace's chatbot and 401 without a token", async () => {
    const { owner } = await ownerWithChatbot('export-mine');
    const other = await ownerWithChatbot('export-theirs');
    expect((await exportLeads(owner, `chatbotId=${other.chatbot._id}`)).status).toBe(404);
    expect((await fetch(`${stack.url}/api/leads/export`)).status).toBe(401);
  });
});
