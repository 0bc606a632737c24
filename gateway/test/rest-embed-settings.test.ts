// Contract tests of the chatbot's embed settings on the owner's REST paths: PUT /api/chatbot/{id}
// takes appearance, allowedDomains, standalonePage and limits (partial at every level), the chatbot
// JSON of GET, PUT and the list carries them, wrong JSON types are 400 with the field named, the
// chatbot service's refusals keep their messages, and hiding the badge is pro only (403).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EMBED_SETTINGS } from './embed-settings-fixtures.ts';
import { api, type Stack, startStack } from './stack.ts';
import { makePro, type Owner, registerOwner } from './chatbot-fixtures.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);
const put = (owner: Owner, id: string, body: unknown) => call(`/api/chatbot/${id}`, { method: 'PUT', body, token: owner.token });
const settingsOf = (chatbot: any) => ({
  appearance: chatbot.appearance,
  allowedDomains: chatbot.allowedDomains,
  standalonePage: chatbot.standalonePage,
  limits: chatbot.limits,
});

async function ownerWithChatbot(tag = 'embed') {
  const owner = await registerOwner(stack, tag);
  const res = await call('/api/chatbot', { body: { name: 'Shop helper' }, token: owner.token });
  expect(res.status).toBe(201);
  return { owner, chatbot: res.body };
}

describe('the chatbot JSON', () => {
  it("carries a new chatbot's defaults on create, GET and the list", async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    expect(settingsOf(chatbot)).toEqual(DEFAULT_EMBED_SETTINGS);
    expect(settingsOf((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body)).toEqual(DEFAULT_EMBED_SETTINGS);
    expect((await call('/api/chatbot', { token: owner.token })).body.map(settingsOf)).toEqual([DEFAULT_EMBED_SETTINGS]);
  });
});

describe('PUT /api/chatbot/:id with the embed settings', () => {
  it('stores every field, normalised, and answers it on PUT, GET and the list', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await put(owner, chatbot._id, {
      appearance: { primaryColor: '#1A73E8', position: 'left', launcherLabel: '  Ask us  ', hideBranding: false },
      allowedDomains: [' Shop.Example.com ', 'shop.example.com', 'localhost', ''],
      standalonePage: false,
      limits: { visitorMessagesPerDay: 25, dailySpendLimit: 7.5, proofOfWork: true },
    });
    expect(res.status).toBe(200);
    const expected = {
      appearance: { primaryColor: '#1a73e8', position: 'left', launcherLabel: 'Ask us', hideBranding: false },
      allowedDomains: ['shop.example.com', 'localhost'],
      standalonePage: false,
      limits: { visitorMessagesPerDay: 25, dailySpendLimit: '7.50', proofOfWork: true },
    };
    expect(settingsOf(res.body)).toEqual(expected);
    expect(res.body.name).toBe('Shop helper');
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body).toEqual(res.body);
    expect((await call('/api/chatbot', { token: owner.token })).body).toEqual([res.body]);
  });

  it('changes only the fields given, at every level; null resets the colour and removes a limit', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    await put(owner, chatbot._id, {
      appearance: { primaryColor: '#ff6600', launcherLabel: 'Help' },
      allowedDomains: ['shop.example.com'],
      limits: { dailySpendLimit: '12' },
    });
    const label = await put(owner, chatbot._id, { appearance: { position: 'left' }, limits: { proofOfWork: true } });
    expect(label.status).toBe(200);
    expect(settingsOf(label.body)).toEqual({
      appearance: { primaryColor: '#ff6600', position: 'left', launcherLabel: 'Help', hideBranding: false },
      allowedDomains: ['shop.example.com'],
      standalonePage: true,
      limits: { visitorMessagesPerDay: 100, dailySpendLimit: '12.00', proofOfWork: true },
    });

    const reset = await put(owner, chatbot._id, {
      appearance: { primaryColor: null },
      allowedDomains: [],
      limits: { visitorMessagesPerDay: null, dailySpendLimit: null },
    });
    expect(reset.status).toBe(200);
    expect(settingsOf(reset.body)).toEqual({
      appearance: { primaryColor: null, position: 'left', launcherLabel: 'Help', hideBranding: false },
      allowedDomains: [],
      standalonePage: true,
      limits: { visitorMessagesPerDay: null, dailySpendLimit: null, proofOfWork: true },
    });

    // An empty colour is the product's too; empty objects and other fields change nothing of these.
    const empty = await put(owner, chatbot._id, { appearance: { primaryColor: '' }, limits: {}, name: 'Renamed' });
    expect(empty.status).toBe(200);
    expect(empty.body.name).toBe('Renamed');
    expect(settingsOf(empty.body)).toEqual(settingsOf(reset.body));
  });

  it('takes the spend limit as a JSON number or a string, kept as an exact decimal', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    for (const [typed, stored] of [
      [5, '5.00'],
      [0.01, '0.01'],
      [19.99, '19.99'],
      ['10000', '10000.00'],
      [' 0.5 ', '0.50'],
    ] as const) {
      const res = await put(owner, chatbot._id, { limits: { dailySpendLimit: typed } });
      expect(res.status).toBe(200);
      expect(res.body.limits.dailySpendLimit).toBe(stored);
    }
  });

  it.each([
    [{ appearance: 'blue' }, 'appearance must be an object'],
    [{ appearance: null }, 'appearance must be an object'],
    [{ appearance: ['#ffffff'] }, 'appearance must be an object'],
    [{ appearance: { primaryColor: 123 } }, 'appearance.primaryColor must be a string or null'],
    [{ appearance: { position: 1 } }, 'appearance.position must be a string'],
    [{ appearance: { launcherLabel: null } }, 'appearance.launcherLabel must be a string'],
    [{ appearance: { launcherLabel: 'Chat\u0007' } }, 'Text must not contain control characters'],
    [{ appearance: { hideBranding: 'yes' } }, 'appearance.hideBranding must be true or false'],
    [{ allowedDomains: 'shop.example.com' }, 'allowedDomains must be an array of strings'],
    [{ allowedDomains: [1] }, 'allowedDomains must be an array of strings'],
    [{ allowedDomains: null }, 'allowedDomains must be an array of strings'],
    [{ standalonePage: 'false' }, 'standalonePage must be true or false'],
    [{ limits: 5 }, 'limits must be an object'],
    [{ limits: { visitorMessagesPerDay: '100' } }, 'limits.visitorMessagesPerDay must be a number or null'],
    [{ limits: { dailySpendLimit: true } }, 'limits.dailySpendLimit must be a number, a string or null'],
    [{ limits: { dailySpendLimit: { amount: 5 } } }, 'limits.dailySpendLimit must be a number, a string or null'],
    [{ limits: { proofOfWork: 1 } }, 'limits.proofOfWork must be true or false'],
    // The chatbot service's rules, with its messages.
    [{ appearance: { primaryColor: 'red' } }, 'Primary colour must be a colour like #1a73e8.'],
    [{ appearance: { primaryColor: '#fff' } }, 'Primary colour must be a colour like #1a73e8.'],
    [{ appearance: { position: 'middle' } }, 'Position must be left or right.'],
    [{ appearance: { launcherLabel: 'x'.repeat(41) } }, 'Launcher label must be at most 40 characters.'],
    [{ allowedDomains: ['https://shop.example.com'] }, 'Allowed domains must be host names like shop.example.com.'],
    [{ allowedDomains: ['shop.example.com:8443'] }, 'Allowed domains must be host names like shop.example.com.'],
    [{ allowedDomains: Array.from({ length: 21 }, (_, i) => `s${i}.example.com`) }, 'At most 20 allowed domains.'],
    [{ limits: { visitorMessagesPerDay: 0 } }, 'Messages per visitor per day must be a whole number from 1 to 10000.'],
    [{ limits: { visitorMessagesPerDay: 10_001 } }, 'Messages per visitor per day must be a whole number from 1 to 10000.'],
    [{ limits: { visitorMessagesPerDay: 2.5 } }, 'Messages per visitor per day must be a whole number from 1 to 10000.'],
    [{ limits: { visitorMessagesPerDay: 2 ** 40 } }, 'Messages per visitor per day must be a whole number from 1 to 10000.'],
    [{ limits: { visitorMessagesPerDay: -(2 ** 40) } }, 'Messages per visitor per day must be a whole number from 1 to 10000.'],
    [{ limits: { dailySpendLimit: 0 } }, 'Daily spend limit must be between 0.01 and 10000.00 dollars.'],
    [{ limits: { dailySpendLimit: 5.001 } }, 'Daily spend limit must be between 0.01 and 10000.00 dollars.'],
    [{ limits: { dailySpendLimit: 1e21 } }, 'Daily spend limit must be between 0.01 and 10000.00 dollars.'],
    [{ limits: { dailySpendLimit: '10000.01' } }, 'Daily spend limit must be between 0.01 and 10000.00 dollars.'],
    [{ limits: { dailySpendLimit: '$5' } }, 'Daily spend limit must be between 0.01 and 10000.00 dollars.'],
  ])('refuses %j with 400 "%s", changing nothing', async (body, message) => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await put(owner, chatbot._id, { name: 'Changed', ...body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body).toEqual(chatbot);
  });

  it('refuses to hide the badge for a free owner (403) and lets a pro owner hide it', async () => {
    const { owner, chatbot } = await ownerWithChatbot('free');
    const refused = await put(owner, chatbot._id, { appearance: { hideBranding: true, launcherLabel: 'Help' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: 'Hiding the Parley badge is a Pro feature.' });
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body).toEqual(chatbot);
    // Leaving it shown is every owner's choice.
    const shown = await put(owner, chatbot._id, { appearance: { hideBranding: false } });
    expect(shown.status).toBe(200);

    await makePro(stack, owner);
    const hidden = await put(owner, chatbot._id, { appearance: { hideBranding: true } });
    expect(hidden.status).toBe(200);
    expect(hidden.body.appearance).toEqual({ ...DEFAULT_EMBED_SETTINGS.appearance, hideBranding: true });
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body.appearance.hideBranding).toBe(true);
  });

  it("answers 404 for another owner's chatbot, whatever the settings", async () => {
    const { chatbot } = await ownerWithChatbot();
    const other = await registerOwner(stack, 'other');
    const res = await put(other, chatbot._id, { appearance: { hideBranding: false }, allowedDomains: ['evil.example.com'] });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Chatbot not found' });
  });
});
