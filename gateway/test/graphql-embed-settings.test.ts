// Contract tests of the chatbot's embed settings in GraphQL: Chatbot.appearance, allowedDomains,
// standalonePage and limits, updateChatbot's inputs (null resets the colour and removes a limit,
// otherwise means "not given"), the chatbot service's messages as BAD_USER_INPUT and the pro-only
// badge as FORBIDDEN, all the same as REST answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EMBED_SETTINGS, EMBED_FIELDS } from './embed-settings-fixtures.ts';
import { api, gql, type Stack, startStack } from './stack.ts';
import { makePro, type Owner, registerOwner } from './chatbot-fixtures.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const CHATBOT_FIELDS = `id name ${EMBED_FIELDS}`;
const CHATBOTS = `query { chatbots { ${CHATBOT_FIELDS} } }`;
const CHATBOT = `query($id: ID!) { chatbot(id: $id) { ${CHATBOT_FIELDS} } }`;
const CREATE = `mutation($input: CreateChatbotInput!) { createChatbot(input: $input) { ${CHATBOT_FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateChatbotInput!) { updateChatbot(id: $id, input: $input) { ${CHATBOT_FIELDS} } }`;

const run = (query: string, variables: Record<string, unknown>, token: string) => gql(stack.url, query, variables, token);

async function ok(query: string, variables: Record<string, unknown>, token: string) {
  const res = await run(query, variables, token);
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

function expectError(res: { status: number; body: any }, message: string, code: string, status: number) {
  expect(res.status).toBe(200);
  expect(res.body.data).toBeNull();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0].message).toBe(message);
  expect(res.body.errors[0].extensions).toEqual({ code, http: { status } });
}

const settingsOf = ({ id: _id, name: _name, ...settings }: any) => settings;

async function ownerWithChatbot(tag = 'gqlembed') {
  const owner = await registerOwner(stack, tag);
  const { createChatbot } = await ok(CREATE, { input: { name: 'Shop helper' } }, owner.token);
  return { owner, chatbot: createChatbot };
}

const update = async (owner: Owner, id: string, input: Record<string, unknown>) =>
  (await ok(UPDATE, { id, input }, owner.token)).updateChatbot;

describe('Chatbot embed settings', () => {
  it("answers a new chatbot's defaults in createChatbot, chatbot and chatbots", async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    expect(settingsOf(chatbot)).toEqual(DEFAULT_EMBED_SETTINGS);
    expect(settingsOf((await ok(CHATBOT, { id: chatbot.id }, owner.token)).chatbot)).toEqual(DEFAULT_EMBED_SETTINGS);
    expect((await ok(CHATBOTS, {}, owner.token)).chatbots.map(settingsOf)).toEqual([DEFAULT_EMBED_SETTINGS]);
  });

  it('updateChatbot stores every field, as REST reads it too', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const updated = await update(owner, chatbot.id, {
      appearance: { primaryColor: '#1A73E8', position: 'left', launcherLabel: ' Ask us ', hideBranding: false },
      allowedDomains: ['Shop.Example.com', 'localhost', 'shop.example.com'],
      standalonePage: false,
      limits: { visitorMessagesPerDay: 25, dailySpendLimit: '7.5', proofOfWork: true },
    });
    const expected = {
      appearance: { primaryColor: '#1a73e8', position: 'left', launcherLabel: 'Ask us', hideBranding: false },
      allowedDomains: ['shop.example.com', 'localhost'],
      standalonePage: false,
      limits: { visitorMessagesPerDay: 25, dailySpendLimit: '7.50', proofOfWork: true },
    };
    expect(settingsOf(updated)).toEqual(expected);
    expect(settingsOf((await ok(CHATBOT, { id: chatbot.id }, owner.token)).chatbot)).toEqual(expected);
    const rest = await api(stack.url, `/api/chatbot/${chatbot.id}`, { token: owner.token });
    expect({ appearance: rest.body.appearance, allowedDomains: rest.body.allowedDomains }).toEqual({
      appearance: expected.appearance,
      allowedDomains: expected.allowedDomains,
    });
  });

  it('changes only what is given: null resets the colour and removes a limit, and is "not given" elsewhere', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    await update(owner, chatbot.id, {
      appearance: { primaryColor: '#ff6600', launcherLabel: 'Help', position: 'left' },
      allowedDomains: ['shop.example.com'],
      limits: { proofOfWork: true },
    });
    const updated = await update(owner, chatbot.id, {
      appearance: { primaryColor: null, position: null, launcherLabel: null, hideBranding: null },
      allowedDomains: null,
      standalonePage: null,
      limits: { visitorMessagesPerDay: null, dailySpendLimit: null, proofOfWork: null },
    });
    expect(settingsOf(updated)).toEqual({
      appearance: { primaryColor: null, position: 'left', launcherLabel: 'Help', hideBranding: false },
      allowedDomains: ['shop.example.com'],
      standalonePage: true,
      limits: { visitorMessagesPerDay: null, dailySpendLimit: null, proofOfWork: true },
    });
    // Null objects and an empty input change nothing.
    const unchanged = await update(owner, chatbot.id, { appearance: null, limits: null, name: 'Renamed' });
    expect(unchanged.name).toBe('Renamed');
    expect(settingsOf(unchanged)).toEqual(settingsOf(updated));
    const anywhere = await update(owner, chatbot.id, { allowedDomains: [], limits: { dailySpendLimit: '10000' } });
    expect(anywhere.allowedDomains).toEqual([]);
    expect(anywhere.limits.dailySpendLimit).toBe('10000.00');
  });

  it.each([
    [{ appearance: { primaryColor: 'red' } }, 'Primary colour must be a colour like #1a73e8.'],
    [{ appearance: { launcherLabel: 'x'.repeat(41) } }, 'Launcher label must be at most 40 characters.'],
    [{ allowedDomains: ['shop.example.com/path'] }, 'Allowed domains must be host names like shop.example.com.'],
    [{ allowedDomains: Array.from({ length: 21 }, (_, i) => `s${i}.example.com`) }, 'At most 20 allowed domains.'],
    [{ limits: { visitorMessagesPerDay: 0 } }, 'Messages per visitor per day must be a whole number from 1 to 10000.'],
    [{ limits: { dailySpendLimit: '0.001' } }, 'Daily spend limit must be between 0.01 and 10000.00 dollars.'],
  ])('refuses %j with BAD_USER_INPUT "%s", changing nothing', async (input, message) => {
    const { owner, chatbot } = await ownerWithChatbot();
    expectError(await run(UPDATE, { id: chatbot.id, input: { name: 'Changed', ...input } }, owner.token), message, 'BAD_USER_INPUT', 400);
    expect((await ok(CHATBOT, { id: chatbot.id }, owner.token)).chatbot).toEqual(chatbot);
  });

  it.each([
    [{ appearance: { position: 'middle' } }],
    [{ appearance: { hideBranding: 'yes' } }],
    [{ limits: { visitorMessagesPerDay: 2.5 } }],
    [{ limits: { dailySpendLimit: 5 } }],
    [{ allowedDomains: 'shop.example.com', standalonePage: 'no' }],
  ])('refuses %j of the wrong type before any resolver runs', async (input) => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await run(UPDATE, { id: chatbot.id, input }, owner.token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect((await ok(CHATBOT, { id: chatbot.id }, owner.token)).chatbot).toEqual(chatbot);
  });

  it('refuses to hide the badge for a free owner with FORBIDDEN and lets a pro owner hide it', async () => {
    const { owner, chatbot } = await ownerWithChatbot('gqlfree');
    expectError(
      await run(UPDATE, { id: chatbot.id, input: { appearance: { hideBranding: true } } }, owner.token),
      'Hiding the Parley badge is a Pro feature.',
      'FORBIDDEN',
      403,
    );
    expect((await ok(CHATBOT, { id: chatbot.id }, owner.token)).chatbot.appearance.hideBranding).toBe(false);
    await makePro(stack, owner);
    expect((await update(owner, chatbot.id, { appearance: { hideBranding: true } })).appearance.hideBranding).toBe(true);
  });
});
