// Contract tests of the owner's chatbot REST paths (docs/product.md, Chatbots, Knowledge base, Messages) through the gateway, against
// the real auth, billing and chatbot services.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EMBED_SETTINGS, DEFAULT_LEAD_SETTINGS, DEFAULT_MODEL_SETTINGS } from './embed-settings-fixtures.ts';
import { api, type Stack, startStack } from './stack.ts';
import { fetchBytes, makePro, type Owner, pictureForm, PICTURE_URL, pngImage, postForm, registerOwner, UUID } from './chatbot-fixtures.ts';

let stack: Stack;
// The gateway's picture limit is lowered (the service keeps its 2 MB) so the 413 needs no big upload.
const MAX_PICTURE_BYTES = 1024 * 1024;

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { MAX_PICTURE_BYTES: String(MAX_PICTURE_BYTES) } });
});
afterAll(async () => {
  await stack?.close();
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);

async function createChatbot(owner: Owner, name = 'Support Bot') {
  const res = await call('/api/chatbot', { body: { name }, token: owner.token });
  expect(res.status).toBe(201);
  return res.body;
}

/** An owner with one chatbot. */
async function ownerWithChatbot(name = 'Support Bot') {
  const owner = await registerOwner(stack);
  return { owner, chatbot: await createChatbot(owner, name) };
}

/** A typed text entry as REST shows it: the knowledge-source fields with the values typed text always has. */
const typedEntry = (fields: { title: string; content: string }) => ({
  _id: expect.stringMatching(UUID),
  ...fields,
  createdAt: expect.any(String),
  updatedAt: expect.any(String),
  source: { type: 'text' },
  status: 'ready',
  error: null,
  question: null,
  autoSync: false,
  lastSyncedAt: null,
  lastSyncChanged: null,
});

const isoString = (value: string) => expect(new Date(value).toISOString()).toBe(value);

/** The exact shape of docs/product.md (Chatbots), for a chatbot nobody has chatted with. */
function expectChatbot(
  chatbot: any,
  fields: { name: string; profilePicture?: string | null; isActive?: boolean; language?: string; knowledgeBase?: unknown },
) {
  expect(chatbot).toEqual({
    _id: expect.stringMatching(UUID),
    uniqueId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    name: fields.name,
    profilePicture: fields.profilePicture ?? null,
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
    // Personal data is not kept from the model until the owner asks (docs/product.md, Privacy).
    privacy: { redactPersonalData: false, keepOriginal: false, patterns: [] },
    knowledgeBase: fields.knowledgeBase ?? { text: '', textEntries: [] },
  });
  isoString(chatbot.createdAt);
  isoString(chatbot.updatedAt);
}

describe('POST /api/chatbot', () => {
  it('creates a chatbot: 201 with the trimmed name and the full shape', async () => {
    const owner = await registerOwner(stack);
    const res = await call('/api/chatbot', { body: { name: '  Support Bot  ' }, token: owner.token });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expectChatbot(res.body, { name: 'Support Bot' });
    expect(Date.now() - Date.parse(res.body.createdAt)).toBeLessThan(60_000);
  });

  it.each([[{}], [{ name: '' }], [{ name: '   \t\n ' }], [{ name: null }]])('refuses %j with 400 "Name is required"', async (body) => {
    const owner = await registerOwner(stack);
    const res = await call('/api/chatbot', { body, token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Name is required' });
    // Nothing was created: the free owner can still create one.
    expect((await call('/api/chatbot', { token: owner.token })).body).toEqual([]);
  });

  it.each([[42], [true], [['Bot']], [{ first: 'Bot' }]])('refuses a name of the wrong JSON type (%j) with 400', async (name) => {
    const owner = await registerOwner(stack);
    const res = await call('/api/chatbot', { body: { name }, token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'name must be a string' });
  });

  it('refuses a body that is not a JSON object, and malformed JSON', async () => {
    const owner = await registerOwner(stack);
    const array = await call('/api/chatbot', { body: ['Bot'], token: owner.token });
    expect(array.status).toBe(400);
    expect(array.body).toEqual({ message: 'Request body must be a JSON object' });
    const malformed = await call('/api/chatbot', { rawBody: '{"name": ', token: owner.token });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ message: 'Malformed JSON body' });
  });

  it('refuses a name over 100 characters', async () => {
    const owner = await registerOwner(stack);
    const res = await call('/api/chatbot', { body: { name: 'x'.repeat(101) }, token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Name must be at most 100 characters' });
    expect((await call('/api/chatbot', { body: { name: 'x'.repeat(100) }, token: owner.token })).status).toBe(201);
  });

  it("refuses a free owner's second chatbot: 403 with limitReached", async () => {
    const { owner } = await ownerWithChatbot();
    const res = await call('/api/chatbot', { body: { name: 'Second' }, token: owner.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: 'Free users can only create one chatbot.', limitReached: true });
    const list = await call('/api/chatbot', { token: owner.token });
    expect(list.body.map((c: any) => c.name)).toEqual(['Support Bot']);
  });

  it('lets a free owner create again once the only chatbot is deleted', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    expect((await call(`/api/chatbot/${chatbot._id}`, { method: 'DELETE', token: owner.token })).status).toBe(200);
    const again = await call('/api/chatbot', { body: { name: 'Again' }, token: owner.token });
    expect(again.status).toBe(201);
    expect(again.body._id).not.toBe(chatbot._id);
  });

  it('lets a pro owner create several chatbots', async () => {
    const owner = await registerOwner(stack, 'pro');
    await makePro(stack, owner);
    const created = [];
    for (const name of ['One', 'Two', 'Three']) {
      const res = await call('/api/chatbot', { body: { name }, token: owner.token });
      expect(res.status).toBe(201);
      created.push(res.body);
    }
    expect(new Set(created.map((c) => c._id)).size).toBe(3);
    expect(new Set(created.map((c) => c.uniqueId)).size).toBe(3);
  });
});

describe('GET /api/chatbot', () => {
  it('answers an empty array for an owner with no chatbots', async () => {
    const owner = await registerOwner(stack);
    const res = await call('/api/chatbot', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it("lists only the owner's chatbots, newest first, each with its knowledge base", async () => {
    const owner = await registerOwner(stack, 'pro');
    await makePro(stack, owner);
    const first = await createChatbot(owner, 'First');
    const second = await createChatbot(owner, 'Second');
    const third = await createChatbot(owner, 'Third');
    const added = await call(`/api/chatbot/${second._id}/knowledge-base/text`, {
      body: { text: 'Opening hours are nine to five.', append: true },
      token: owner.token,
    });
    expect(added.status).toBe(200);
    await ownerWithChatbot('Somebody Else');

    const res = await call('/api/chatbot', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.map((c: any) => c._id)).toEqual([third._id, second._id, first._id]);
    expectChatbot(res.body[0], { name: 'Third' });
    expectChatbot(res.body[2], { name: 'First' });
    expectChatbot(res.body[1], {
      name: 'Second',
      knowledgeBase: {
        text: 'Opening hours are nine to five.',
        textEntries: [typedEntry({ title: 'Opening hours are nine to five.', content: 'Opening hours are nine to five.' })],
      },
    });
    isoString(res.body[1].knowledgeBase.textEntries[0].createdAt);
    expect(res.body[0]).toEqual({ ...third, updatedAt: res.body[0].updatedAt });
  });
});

describe('GET /api/chatbot/:id', () => {
  it('returns the chatbot with its knowledge base', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await call(`/api/chatbot/${chatbot._id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(chatbot);
  });

  it.each([
    ['unknown', () => randomUUID()],
    ['malformed', () => 'not-a-uuid'],
  ])('answers 404 "Chatbot not found" for an %s id', async (_kind, id) => {
    const owner = await registerOwner(stack);
    const res = await call(`/api/chatbot/${id()}`, { token: owner.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Chatbot not found' });
  });

  it('accepts the id in upper case', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await call(`/api/chatbot/${chatbot._id.toUpperCase()}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body._id).toBe(chatbot._id);
  });
});

describe('PUT /api/chatbot/:id', () => {
  it('changes name, isActive and language and returns the updated chatbot', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await call(`/api/chatbot/${chatbot._id}`, {
      method: 'PUT',
      body: { name: '  Renamed  ', isActive: false, language: 'french' },
      token: owner.token,
    });
    expect(res.status).toBe(200);
    expectChatbot(res.body, { name: 'Renamed', isActive: false, language: 'french' });
    expect(res.body._id).toBe(chatbot._id);
    expect(res.body.uniqueId).toBe(chatbot.uniqueId);
    expect(res.body.createdAt).toBe(chatbot.createdAt);
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(chatbot.updatedAt));
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body).toEqual(res.body);
  });

  it("turns Answer in the visitor's language on and off, a non-boolean refused", async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const on = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body: { answerInVisitorLanguage: true }, token: owner.token });
    expect(on.status).toBe(200);
    expect(on.body.answerInVisitorLanguage).toBe(true);
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body.answerInVisitorLanguage).toBe(true);
    const bad = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body: { answerInVisitorLanguage: 'yes' }, token: owner.token });
    expect(bad.status).toBe(400);
    const off = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body: { answerInVisitorLanguage: false }, token: owner.token });
    expect(off.body.answerInVisitorLanguage).toBe(false);
  });

  it('changes only the fields given', async () => {
    const { owner, chatbot } = await ownerWithChatbot('Keep Me');
    const lang = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body: { language: 'chinese' }, token: owner.token });
    expect(lang.status).toBe(200);
    expect(lang.body).toMatchObject({ name: 'Keep Me', isActive: true, language: 'chinese' });
    const active = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body: { isActive: false }, token: owner.token });
    expect(active.body).toMatchObject({ name: 'Keep Me', isActive: false, language: 'chinese' });
    const back = await call(`/api/chatbot/${chatbot._id}`, {
      method: 'PUT',
      body: { isActive: true, language: 'english' },
      token: owner.token,
    });
    expect(back.body).toMatchObject({ name: 'Keep Me', isActive: true, language: 'english' });
  });

  it('keeps the knowledge base through a language change', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const added = await call(`/api/chatbot/${chatbot._id}/knowledge-base/text`, {
      body: { text: 'Refunds within thirty days.', append: true },
      token: owner.token,
    });
    const res = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body: { language: 'french' }, token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.knowledgeBase).toEqual(added.body.knowledgeBase);
  });

  it.each([
    [{ language: 'german' }, 'Language must be english, french or chinese'],
    [{ language: '' }, 'Language must be english, french or chinese'],
    [{ language: 7 }, 'language must be a string'],
    [{ isActive: 'false' }, 'isActive must be true or false'],
    [{ isActive: 0 }, 'isActive must be true or false'],
    [{ isActive: null }, 'isActive must be true or false'],
    [{ name: '   ' }, 'Name is required'],
    [{ name: 5 }, 'name must be a string'],
  ])('refuses %j with 400 "%s" and changes nothing', async (body, message) => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body: { ...body }, token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body).toEqual(chatbot);
  });

  it('refuses a valid change mixed with an invalid one, applying neither', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await call(`/api/chatbot/${chatbot._id}`, {
      method: 'PUT',
      body: { name: 'New Name', language: 'klingon' },
      token: owner.token,
    });
    expect(res.status).toBe(400);
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body.name).toBe('Support Bot');
  });

  it('answers 404 for an unknown chatbot', async () => {
    const owner = await registerOwner(stack);
    const res = await call(`/api/chatbot/${randomUUID()}`, { method: 'PUT', body: { name: 'x' }, token: owner.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Chatbot not found' });
  });
});

describe('DELETE /api/chatbot/:id', () => {
  it('deletes the chatbot: then GET answers 404 and the list no longer has it', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await call(`/api/chatbot/${chatbot._id}`, { method: 'DELETE', token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Chatbot deleted' });
    const after = await call(`/api/chatbot/${chatbot._id}`, { token: owner.token });
    expect(after.status).toBe(404);
    expect(after.body).toEqual({ message: 'Chatbot not found' });
    expect((await call('/api/chatbot', { token: owner.token })).body).toEqual([]);
  });

  it('answers 404 the second time, and for an unknown id', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    await call(`/api/chatbot/${chatbot._id}`, { method: 'DELETE', token: owner.token });
    for (const id of [chatbot._id, randomUUID()]) {
      const res = await call(`/api/chatbot/${id}`, { method: 'DELETE', token: owner.token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Chatbot not found' });
    }
  });

  it("removes the chatbot's picture from /media", async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const up = await postForm(stack, `/api/chatbot/${chatbot._id}/profile-picture`, pictureForm(pngImage()), { token: owner.token });
    expect((await fetchBytes(stack, up.body.profilePicture)).status).toBe(200);
    await call(`/api/chatbot/${chatbot._id}`, { method: 'DELETE', token: owner.token });
    expect((await fetchBytes(stack, up.body.profilePicture)).status).toBe(404);
  });
});

describe('POST /api/chatbot/:id/profile-picture', () => {
  const upload = (chatbotId: string, form: FormData | string, token: string, headers?: Record<string, string>) =>
    postForm(stack, `/api/chatbot/${chatbotId}/profile-picture`, form, { token, headers });

  it('stores a PNG: answers its /media URL, which the gateway serves as image/png with nosniff', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const png = pngImage(24, 24);
    const res = await upload(chatbot._id, pictureForm(png), owner.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ profilePicture: expect.stringMatching(PICTURE_URL) });

    const file = await fetchBytes(stack, res.body.profilePicture);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(file.bytes.equals(png)).toBe(true);

    const read = await call(`/api/chatbot/${chatbot._id}`, { token: owner.token });
    expect(read.body.profilePicture).toBe(res.body.profilePicture);
    expectChatbot(read.body, { name: 'Support Bot', profilePicture: res.body.profilePicture });
  });

  it.each([
    ['JPEG', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64)]), 'jpg', 'image/jpeg'],
    ['GIF', Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(64)]), 'gif', 'image/gif'],
  ])('stores a %s under its own extension and type', async (_kind, bytes, ext, mime) => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await upload(chatbot._id, pictureForm(bytes, { filename: `picture.${ext}`, type: mime }), owner.token);
    expect(res.status).toBe(200);
    expect(res.body.profilePicture).toMatch(new RegExp(`^/media/chatbots/[0-9a-f]{32}\\.${ext}$`));
    const file = await fetchBytes(stack, res.body.profilePicture);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe(mime);
  });

  it('names the file by its content, not the name or type the browser sent', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await upload(
      chatbot._id,
      pictureForm(pngImage(), { filename: 'photo.gif', type: 'application/octet-stream' }),
      owner.token,
    );
    expect(res.status).toBe(200);
    expect(res.body.profilePicture).toMatch(PICTURE_URL);
  });

  it('replacing the picture removes the old file', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const first = await upload(chatbot._id, pictureForm(pngImage(8, 8, [255, 0, 0])), owner.token);
    const second = await upload(chatbot._id, pictureForm(pngImage(8, 8, [0, 0, 255])), owner.token);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.profilePicture).not.toBe(first.body.profilePicture);
    const old = await fetchBytes(stack, first.body.profilePicture);
    expect(old.status).toBe(404);
    expect((await fetchBytes(stack, second.body.profilePicture)).status).toBe(200);
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body.profilePicture).toBe(second.body.profilePicture);
  });

  it('refuses HTML named evil.png with type image/png: 400, nothing stored', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const html = Buffer.from('<!doctype html><script>alert(document.cookie)</script>');
    const res = await upload(chatbot._id, pictureForm(html, { filename: 'evil.png', type: 'image/png' }), owner.token);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Profile picture must be a JPEG, PNG or GIF image' });
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body.profilePicture).toBeNull();
  });

  it('accepts a file of exactly the limit and refuses one byte more with 413', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    // The service recognises a picture by its first bytes; the rest is padding up to the size wanted.
    const sized = (bytes: number) => Buffer.concat([pngImage(), Buffer.alloc(bytes - pngImage().length)]);
    const atLimit = await upload(chatbot._id, pictureForm(sized(MAX_PICTURE_BYTES)), owner.token);
    expect(atLimit.status).toBe(200);

    const over = await upload(chatbot._id, pictureForm(sized(MAX_PICTURE_BYTES + 1)), owner.token);
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ message: 'Profile picture must be at most 1 MB' });
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body.profilePicture).toBe(atLimit.body.profilePicture);
  });

  it('refuses a far larger upload with 413 too', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const big = Buffer.concat([pngImage(), Buffer.alloc(3 * MAX_PICTURE_BYTES)]);
    const res = await upload(chatbot._id, pictureForm(big), owner.token);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'Profile picture must be at most 1 MB' });
  });

  it('refuses a JSON body with 415', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await call(`/api/chatbot/${chatbot._id}/profile-picture`, {
      body: { profilePicture: 'data:image/png;base64,AAAA' },
      token: owner.token,
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ message: 'Profile picture must be sent as multipart/form-data' });
  });

  it('refuses a multipart content type without a boundary with 400', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await upload(chatbot._id, 'garbage', owner.token, { 'content-type': 'multipart/form-data' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Profile picture must be sent as multipart/form-data' });
  });

  it('refuses multipart without the profilePicture file: 400 "Profile picture is required"', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const fieldOnly = new FormData();
    fieldOnly.append('name', 'not a file');
    const otherField = pictureForm(pngImage(), { field: 'avatar' });
    const empty = pictureForm(Buffer.alloc(0));
    for (const form of [fieldOnly, otherField, empty]) {
      const res = await upload(chatbot._id, form, owner.token);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Profile picture is required' });
    }
  });

  it('answers 404 for an unknown chatbot', async () => {
    const owner = await registerOwner(stack);
    const res = await upload(randomUUID(), pictureForm(pngImage()), owner.token);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Chatbot not found' });
  });
});

describe('POST /api/chatbot/:id/knowledge-base/text', () => {
  const addText = (chatbotId: string, body: unknown, token: string) =>
    call(`/api/chatbot/${chatbotId}/knowledge-base/text`, { body, token });

  it('adds entries titled by their first words; text combines them oldest first', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const long = 'Our support team answers every email within one business day, including weekends.';
    const first = await addText(chatbot._id, { text: `  ${long}\n`, append: true }, owner.token);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      knowledgeBase: {
        text: long,
        textEntries: [typedEntry({ title: 'Our support team answers every email within one…', content: long })],
      },
    });
    isoString(first.body.knowledgeBase.textEntries[0].createdAt);

    const second = await addText(chatbot._id, { text: 'Shipping is free.', append: true }, owner.token);
    expect(second.status).toBe(200);
    expect(second.body.knowledgeBase.text).toBe(`${long}\n\nShipping is free.`);
    expect(second.body.knowledgeBase.textEntries).toEqual([
      first.body.knowledgeBase.textEntries[0],
      typedEntry({ title: 'Shipping is free.', content: 'Shipping is free.' }),
    ]);

    const read = await call(`/api/chatbot/${chatbot._id}`, { token: owner.token });
    expect(read.body.knowledgeBase).toEqual(second.body.knowledgeBase);
  });

  it('adds the text when append is left out', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await addText(chatbot._id, { text: 'Open on Sundays.' }, owner.token);
    expect(res.status).toBe(200);
    expect(res.body.knowledgeBase.text).toBe('Open on Sundays.');
  });

  it.each([
    [{ text: '', append: true }, 'Text is required'],
    [{ text: '  \n\t ', append: true }, 'Text is required'],
    [{ append: true }, 'Text is required'],
    [{ text: 42, append: true }, 'text must be a string'],
    [{ text: 'Some text', append: false }, 'append must be true: text is added to the knowledge base as a new entry'],
    [{ text: 'Some text', append: 'true' }, 'append must be true or false'],
  ])('refuses %j with 400 "%s" and adds nothing', async (body, message) => {
    const { owner, chatbot } = await ownerWithChatbot();
    const res = await addText(chatbot._id, body, owner.token);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body.knowledgeBase).toEqual({ text: '', textEntries: [] });
  });

  it('answers 404 for an unknown chatbot', async () => {
    const owner = await registerOwner(stack);
    const res = await addText(randomUUID(), { text: 'Hello', append: true }, owner.token);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Chatbot not found' });
  });
});

describe('DELETE /api/chatbot/:id/knowledge-base/text-entries/:entryId', () => {
  it('removes the entry and answers the knowledge base without it', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    const path = `/api/chatbot/${chatbot._id}/knowledge-base/text`;
    await call(path, { body: { text: 'First fact.', append: true }, token: owner.token });
    await call(path, { body: { text: 'Second fact.', append: true }, token: owner.token });
    const added = await call(path, { body: { text: 'Third fact.', append: true }, token: owner.token });
    const [first, second, third] = added.body.knowledgeBase.textEntries;

    const res = await call(`/api/chatbot/${chatbot._id}/knowledge-base/text-entries/${second._id}`, {
      method: 'DELETE',
      token: owner.token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ knowledgeBase: { text: 'First fact.\n\nThird fact.', textEntries: [first, third] } });
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body.knowledgeBase).toEqual(res.body.knowledgeBase);

    const again = await call(`/api/chatbot/${chatbot._id}/knowledge-base/text-entries/${second._id}`, {
      method: 'DELETE',
      token: owner.token,
    });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: 'Text entry not found' });
  });

  it.each([
    ['unknown', () => randomUUID()],
    ['malformed', () => 'entry-1'],
  ])('answers 404 "Text entry not found" for an %s entry id', async (_kind, entryId) => {
    const { owner, chatbot } = await ownerWithChatbot();
    await call(`/api/chatbot/${chatbot._id}/knowledge-base/text`, { body: { text: 'Kept.', append: true }, token: owner.token });
    const res = await call(`/api/chatbot/${chatbot._id}/knowledge-base/text-entries/${entryId()}`, {
      method: 'DELETE',
      token: owner.token,
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Text entry not found' });
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body.knowledgeBase.text).toBe('Kept.');
  });

  it("answers 404 for an entry of the owner's other chatbot, leaving it in place", async () => {
    const owner = await registerOwner(stack, 'pro');
    await makePro(stack, owner);
    const a = await createChatbot(owner, 'A');
    const b = await createChatbot(owner, 'B');
    const added = await call(`/api/chatbot/${a._id}/knowledge-base/text`, {
      body: { text: 'Belongs to A.', append: true },
      token: owner.token,
    });
    const entryId = added.body.knowledgeBase.textEntries[0]._id;
    const res = await call(`/api/chatbot/${b._id}/knowledge-base/text-entries/${entryId}`, { method: 'DELETE', token: owner.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Text entry not found' });
    expect((await call(`/api/chatbot/${a._id}`, { token: owner.token })).body.knowledgeBase).toEqual(added.body.knowledgeBase);
  });
});

describe('authentication', () => {
  const someId = randomUUID();
  const entryId = randomUUID();
  const routes: [string, string, () => { body?: unknown; form?: FormData }][] = [
    ['GET', '/api/chatbot', () => ({})],
    ['POST', '/api/chatbot', () => ({ body: { name: 'Bot' } })],
    ['GET', `/api/chatbot/${someId}`, () => ({})],
    ['PUT', `/api/chatbot/${someId}`, () => ({ body: { name: 'Bot' } })],
    ['DELETE', `/api/chatbot/${someId}`, () => ({})],
    ['POST', `/api/chatbot/${someId}/profile-picture`, () => ({ form: pictureForm(pngImage()) })],
    ['POST', `/api/chatbot/${someId}/knowledge-base/text`, () => ({ body: { text: 'Hello', append: true } })],
    ['DELETE', `/api/chatbot/${someId}/knowledge-base/text-entries/${entryId}`, () => ({})],
  ];

  async function send(method: string, path: string, payload: { body?: unknown; form?: FormData }, headers: Record<string, string>) {
    if (payload.form) return postForm(stack, path, payload.form, { headers });
    return call(path, { method, body: payload.body, headers });
  }

  it.each(routes)('%s %s without a token answers 401 "Not authorized, no token"', async (method, path, payload) => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Basic abc' }, { authorization: 'Bearer ' }]) {
      const res = await send(method, path, payload(), headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Not authorized, no token' });
    }
  });

  it.each(routes)('%s %s with a forged token answers 401', async (method, path, payload) => {
    const res = await send(method, path, payload(), { authorization: 'Bearer forged-token-0123456789abcdef' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Session expired. Please login again.' });
  });

  it('a revoked token no longer reaches the chatbot', async () => {
    const { owner, chatbot } = await ownerWithChatbot();
    await call('/api/auth/logout', { token: owner.token });
    const res = await call(`/api/chatbot/${chatbot._id}`, { token: owner.token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Session expired. Please login again.' });
  });
});
