// The GraphQL counterparts of /api/chatbot/*: the same service calls, rules and messages, with
// extensions.code and extensions.http.status on every error.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_EMBED_SETTINGS,
  DEFAULT_LEAD_SETTINGS,
  DEFAULT_MODEL_SETTINGS,
  EMBED_FIELDS,
  LEAD_SETTINGS_FIELDS,
  MODEL_FIELDS,
} from './embed-settings-fixtures.ts';
import { api, gql, type Stack, startStack } from './stack.ts';
import { makePro, type Owner, registerOwner, UUID } from './chatbot-fixtures.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const KB_FIELDS = 'knowledgeBase { text textEntries { id title content createdAt } }';
const VOICE_FIELDS = 'instructions temperature welcomeMessage suggestedQuestions noAnswerMessage answerInVisitorLanguage';
const CHATBOT_FIELDS = `id uniqueId name profilePicture isActive language interactions lastInteraction createdAt updatedAt ${VOICE_FIELDS} ${EMBED_FIELDS} ${LEAD_SETTINGS_FIELDS} ${MODEL_FIELDS} privacy { redactPersonalData keepOriginal patterns } ${KB_FIELDS}`;
const CHATBOTS = `query { chatbots { ${CHATBOT_FIELDS} } }`;
const CHATBOT = `query($id: ID!) { chatbot(id: $id) { ${CHATBOT_FIELDS} } }`;
const CREATE = `mutation($input: CreateChatbotInput!) { createChatbot(input: $input) { ${CHATBOT_FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateChatbotInput!) { updateChatbot(id: $id, input: $input) { ${CHATBOT_FIELDS} } }`;
const DELETE = 'mutation($id: ID!) { deleteChatbot(id: $id) }';
const ADD_TEXT =
  'mutation($chatbotId: ID!, $text: String!) { addTextEntry(chatbotId: $chatbotId, text: $text) { text textEntries { id title content createdAt } } }';
const DELETE_ENTRY =
  'mutation($chatbotId: ID!, $entryId: ID!) { deleteTextEntry(chatbotId: $chatbotId, entryId: $entryId) { text textEntries { id title content createdAt } } }';

const run = (query: string, variables: Record<string, unknown> = {}, token?: string) => gql(stack.url, query, variables, token);

/** Runs an operation that must succeed and returns its data. */
async function ok(query: string, variables: Record<string, unknown>, token: string) {
  const res = await run(query, variables, token);
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

/** Asserts the response failed with one error carrying this message, code and status. */
function expectError(
  res: { status: number; body: any },
  message: string,
  code: string,
  status: number,
  extra: Record<string, unknown> = {},
) {
  expect(res.status).toBe(200);
  expect(res.body.data).toBeNull();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0].message).toBe(message);
  expect(res.body.errors[0].extensions).toEqual({ code, ...extra, http: { status } });
  expect(JSON.stringify(res.body)).not.toMatch(/stacktrace|at .*\.ts:\d+/);
}

async function createChatbot(owner: Owner, name = 'Support Bot') {
  return (await ok(CREATE, { input: { name } }, owner.token)).createChatbot;
}

async function ownerWithChatbot(name = 'Support Bot') {
  const owner = await registerOwner(stack, 'gql');
  return { owner, chatbot: await createChatbot(owner, name) };
}

function expectChatbot(chatbot: any, fields: { name: string; isActive?: boolean; language?: string; knowledgeBase?: unknown }) {
  expect(chatbot).toEqual({
    id: expect.stringMatching(UUID),
    uniqueId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    name: fields.name,
    profilePicture: null,
    isActive: fields.isActive ?? true,
    language: fields.language ?? 'english',
    interactions: 0,
    lastInteraction: null,
    createdAt: expect.any(String),
    updatedAt: expect.any(String),
    instructions: '',
    temperature: null,
    welcomeMessage: '',
    suggestedQuestions: [],
    noAnswerMessage: '',
    answerInVisitorLanguage: false,
    ...DEFAULT_EMBED_SETTINGS,
    ...DEFAULT_LEAD_SETTINGS,
    ...DEFAULT_MODEL_SETTINGS,
    privacy: { redactPersonalData: false, keepOriginal: false, patterns: [] },
    knowledgeBase: fields.knowledgeBase ?? { text: '', textEntries: [] },
  });
  expect(new Date(chatbot.createdAt).toISOString()).toBe(chatbot.createdAt);
  expect(new Date(chatbot.updatedAt).toISOString()).toBe(chatbot.updatedAt);
}

describe('createChatbot', () => {
  it('creates a chatbot with the trimmed name', async () => {
    const owner = await registerOwner(stack, 'gql');
    const { createChatbot: chatbot } = await ok(CREATE, { input: { name: '  Helpdesk  ' } }, owner.token);
    expectChatbot(chatbot, { name: 'Helpdesk' });
    // REST reads the same chatbot.
    const rest = await api(stack.url, `/api/chatbot/${chatbot.id}`, { token: owner.token });
    const { id, ...fields } = chatbot;
    expect(rest.body).toEqual({ _id: id, ...fields });
  });

  it.each(['', '   '])('refuses the name %j with BAD_USER_INPUT "Name is required"', async (name) => {
    const owner = await registerOwner(stack, 'gql');
    expectError(await run(CREATE, { input: { name } }, owner.token), 'Name is required', 'BAD_USER_INPUT', 400);
    expect((await ok(CHATBOTS, {}, owner.token)).chatbots).toEqual([]);
  });

  it('refuses a name of the wrong type before any resolver runs', async () => {
    const owner = await registerOwner(stack, 'gql');
    const res = await run(CREATE, { input: { name: 42 } }, owner.token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect((await ok(CHATBOTS, {}, owner.token)).chatbots).toEqual([]);
  });

  it("refuses a free owner's second chatbot with LIMIT_REACHED and limitReached", async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    expectError(
      await run(CREATE, { input: { name: 'Second' } }, owner.token),
      'Free users can only create one chatbot.',
      'LIMIT_REACHED',
      403,
      {
        limitReached: true,
      },
    );
    expect((await ok(CHATBOTS, {}, owner.token)).chatbots.map((c: any) => c.id)).toEqual([chatbot.id]);
  });

  it('lets a pro owner create several', async () => {
    const owner = await registerOwner(stack, 'gqlpro');
    await makePro(stack, owner);
    for (const name of ['One', 'Two']) await createChatbot(owner, name);
    expect((await ok(CHATBOTS, {}, owner.token)).chatbots.map((c: any) => c.name)).toEqual(['Two', 'One']);
  });
});

describe('chatbots and chatbot', () => {
  it("lists only the owner's chatbots, newest first, knowledge base included when asked for", async () => {
    const owner = await registerOwner(stack, 'gqlpro');
    await makePro(stack, owner);
    const first = await createChatbot(owner, 'First');
    const second = await createChatbot(owner, 'Second');
    await ok(ADD_TEXT, { chatbotId: first.id, text: 'Parking is behind the building.' }, owner.token);
    await ownerWithChatbot('Not Mine');

    const { chatbots } = await ok(CHATBOTS, {}, owner.token);
    expect(chatbots.map((c: any) => c.id)).toEqual([second.id, first.id]);
    expectChatbot(chatbots[0], { name: 'Second' });
    expectChatbot(chatbots[1], {
      name: 'First',
      knowledgeBase: {
        text: 'Parking is behind the building.',
        textEntries: [
          {
            id: expect.stringMatching(UUID),
            title: 'Parking is behind the building.',
            content: 'Parking is behind the building.',
            createdAt: expect.any(String),
          },
        ],
      },
    });
  });

  it('chatbots is empty for a new owner', async () => {
    const owner = await registerOwner(stack, 'gql');
    expect(await ok(CHATBOTS, {}, owner.token)).toEqual({ chatbots: [] });
  });

  it('chatbot(id) returns the chatbot with its knowledge base', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const { addTextEntry } = await ok(ADD_TEXT, { chatbotId: chatbot.id, text: 'We ship worldwide.' }, owner.token);
    const { chatbot: read } = await ok(CHATBOT, { id: chatbot.id }, owner.token);
    expect(read).toEqual({ ...chatbot, updatedAt: read.updatedAt, knowledgeBase: addTextEntry });
    expect(read.knowledgeBase.textEntries).toHaveLength(1);
  });

  it.each([
    ['unknown', () => randomUUID()],
    ['malformed', () => 'nope'],
  ])('chatbot(id) fails with NOT_FOUND for an %s id', async (_kind, id) => {
    const owner = await registerOwner(stack, 'gql');
    expectError(await run(CHATBOT, { id: id() }, owner.token), 'Chatbot not found', 'NOT_FOUND', 404);
  });
});

describe('updateChatbot', () => {
  it('changes name, isActive and language', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const { updateChatbot } = await ok(
      UPDATE,
      { id: chatbot.id, input: { name: ' Renamed ', isActive: false, language: 'french' } },
      owner.token,
    );
    expectChatbot(updateChatbot, { name: 'Renamed', isActive: false, language: 'french' });
    expect(updateChatbot.id).toBe(chatbot.id);
    expect((await ok(CHATBOT, { id: chatbot.id }, owner.token)).chatbot).toEqual(updateChatbot);
  });

  it('treats null and absent fields as unchanged', async () => {
    const { owner, chatbot } = await ownerWithChatbot('Stay');
    const { updateChatbot } = await ok(UPDATE, { id: chatbot.id, input: { name: null, isActive: null, language: 'chinese' } }, owner.token);
    expect(updateChatbot).toMatchObject({ name: 'Stay', isActive: true, language: 'chinese' });
  });

  it('refuses a blank name with BAD_USER_INPUT and changes nothing', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    expectError(
      await run(UPDATE, { id: chatbot.id, input: { name: ' ', language: 'french' } }, owner.token),
      'Name is required',
      'BAD_USER_INPUT',
      400,
    );
    expect((await ok(CHATBOT, { id: chatbot.id }, owner.token)).chatbot).toEqual(chatbot);
  });

  it('refuses a language outside the enum before any resolver runs', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await run(UPDATE, { id: chatbot.id, input: { language: 'german' } }, owner.token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect((await ok(CHATBOT, { id: chatbot.id }, owner.token)).chatbot.language).toBe('english');
  });

  it('fails with NOT_FOUND for an unknown chatbot', async () => {
    const owner = await registerOwner(stack, 'gql');
    expectError(await run(UPDATE, { id: randomUUID(), input: { name: 'x' } }, owner.token), 'Chatbot not found', 'NOT_FOUND', 404);
  });
});

describe('deleteChatbot', () => {
  it('deletes: true, then chatbot(id) fails with NOT_FOUND and a second delete too', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    expect(await ok(DELETE, { id: chatbot.id }, owner.token)).toEqual({ deleteChatbot: true });
    expectError(await run(CHATBOT, { id: chatbot.id }, owner.token), 'Chatbot not found', 'NOT_FOUND', 404);
    expectError(await run(DELETE, { id: chatbot.id }, owner.token), 'Chatbot not found', 'NOT_FOUND', 404);
    expect((await ok(CHATBOTS, {}, owner.token)).chatbots).toEqual([]);
  });
});

describe('addTextEntry and deleteTextEntry', () => {
  it('adds entries titled by their first words and deletes one', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const long = 'Returns are accepted within thirty days of delivery with the original receipt.';
    const first = (await ok(ADD_TEXT, { chatbotId: chatbot.id, text: `\n ${long} ` }, owner.token)).addTextEntry;
    expect(first).toEqual({
      text: long,
      textEntries: [
        {
          id: expect.stringMatching(UUID),
          title: 'Returns are accepted within thirty days of delivery…',
          content: long,
          createdAt: expect.any(String),
        },
      ],
    });
    const second = (await ok(ADD_TEXT, { chatbotId: chatbot.id, text: 'Gift cards never expire.' }, owner.token)).addTextEntry;
    expect(second.text).toBe(`${long}\n\nGift cards never expire.`);
    expect(second.textEntries).toHaveLength(2);
    expect(second.textEntries[0]).toEqual(first.textEntries[0]);

    const { deleteTextEntry } = await ok(DELETE_ENTRY, { chatbotId: chatbot.id, entryId: first.textEntries[0].id }, owner.token);
    expect(deleteTextEntry).toEqual({ text: 'Gift cards never expire.', textEntries: [second.textEntries[1]] });
    expect((await ok(CHATBOT, { id: chatbot.id }, owner.token)).chatbot.knowledgeBase).toEqual(deleteTextEntry);
  });

  it.each(['', ' \n '])('refuses the text %j with BAD_USER_INPUT "Text is required"', async (text) => {
    const { owner, chatbot } = await ownerWithChatbot();
    expectError(await run(ADD_TEXT, { chatbotId: chatbot.id, text }, owner.token), 'Text is required', 'BAD_USER_INPUT', 400);
  });

  it('addTextEntry fails with NOT_FOUND for an unknown chatbot', async () => {
    const owner = await registerOwner(stack, 'gql');
    expectError(await run(ADD_TEXT, { chatbotId: randomUUID(), text: 'Hello' }, owner.token), 'Chatbot not found', 'NOT_FOUND', 404);
  });

  it.each([
    ['unknown', () => randomUUID()],
    ['malformed', () => 'entry'],
  ])('deleteTextEntry fails with NOT_FOUND "Text entry not found" for an %s entry', async (_kind, entryId) => {
    const { owner, chatbot } = await ownerWithChatbot();
    await ok(ADD_TEXT, { chatbotId: chatbot.id, text: 'Kept.' }, owner.token);
    expectError(
      await run(DELETE_ENTRY, { chatbotId: chatbot.id, entryId: entryId() }, owner.token),
      'Text entry not found',
      'NOT_FOUND',
      404,
    );
    expect((await ok(CHATBOT, { id: chatbot.id }, owner.token)).chatbot.knowledgeBase.text).toBe('Kept.');
  });
});

describe('authentication', () => {
  const id = randomUUID();
  const operations: [string, string, Record<string, unknown>][] = [
    ['chatbots', CHATBOTS, {}],
    ['chatbot', CHATBOT, { id }],
    ['createChatbot', CREATE, { input: { name: 'Bot' } }],
    ['updateChatbot', UPDATE, { id, input: { name: 'Bot' } }],
    ['deleteChatbot', DELETE, { id }],
    ['addTextEntry', ADD_TEXT, { chatbotId: id, text: 'Hello' }],
    ['deleteTextEntry', DELETE_ENTRY, { chatbotId: id, entryId: randomUUID() }],
  ];

  it.each(operations)('%s without a token fails with UNAUTHENTICATED "Not authorized, no token"', async (_name, query, variables) => {
    expectError(await run(query, variables), 'Not authorized, no token', 'UNAUTHENTICATED', 401);
  });

  it.each(operations)('%s with a forged token fails with UNAUTHENTICATED', async (_name, query, variables) => {
    expectError(
      await run(query, variables, 'forged-token-0123456789abcdef'),
      'Session expired. Please login again.',
      'UNAUTHENTICATED',
      401,
    );
  });
});
