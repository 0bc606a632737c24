// Contract tests of the knowledge-source paths (docs/product.md, Knowledge base) through the gateway, against the real auth, billing and
// chatbot services (their workers included) and a small website served here: knowledge from files,
// web pages and Q&A pairs (REST and GraphQL), refresh and auto-sync, each bot's voice, and the
// refusals the gateway decides itself (wrong JSON types, oversized or broken uploads).
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, startStack, type Stack } from '../../../../test/stack.ts';
import { pngImage, postForm, registerOwner, UUID, type Owner } from '../../../../test/chatbot-fixtures.ts';

let stack: Stack;
let site: Server;
let siteUrl: string;
/** How many times the page at /changing has been served: its text changes with each fetch. */
let changingFetches = 0;

const ARTICLE = (title: string, text: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav>Home | Pricing | Blog</nav>` +
  `<main><article><h1>${title}</h1><p>${text}</p><p>${text}</p></article></main><footer>© Example Ltd</footer></body></html>`;

beforeAll(async () => {
  site = createServer((req, res) => {
    const send = (html: string) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(html);
    };
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    if (req.url === '/shipping')
      return send(ARTICLE('Shipping', 'Shipping is free on every order over fifty euros, delivered in three days.'));
    if (req.url === '/changing') {
      changingFetches++;
      return send(ARTICLE('Opening hours', `We open at ${8 + changingFetches} in the morning, every day of the week except Sunday.`));
    }
    // Slow enough that its entry is still processing when the test asks to refresh it.
    if (req.url === '/slow') return setTimeout(() => send(ARTICLE('Slow page', 'This page took its time to answer the crawler.')), 3000);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  // The test site is on the loopback address, which only KNOWLEDGE_URL_ALLOW_PRIVATE lets the service fetch.
  stack = await startStack({ chatbotEnv: { KNOWLEDGE_URL_ALLOW_PRIVATE: '1' } });
});
afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => site?.close(resolve));
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);

async function ownerWithChatbot(tag = 'knowledge') {
  const owner = await registerOwner(stack, tag);
  const res = await call('/api/chatbot', { body: { name: 'Helper' }, token: owner.token });
  expect(res.status).toBe(201);
  return { owner, chatbot: res.body as { _id: string; uniqueId: string } };
}

const fileForm = (content: Uint8Array | string, filename: string, field = 'file') => {
  const form = new FormData();
  form.append(field, new Blob([typeof content === 'string' ? content : new Uint8Array(content)]), filename);
  return form;
};

const upload = (owner: Owner, chatbotId: string, form: FormData | string, headers?: Record<string, string>) =>
  postForm(stack, `/api/chatbot/${chatbotId}/knowledge-base/files`, form, { token: owner.token, headers });

/** The entry once its background job has finished (or the last read of it after 20 s). */
async function settled(owner: Owner, chatbotId: string, entryId: string): Promise<any> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await call(`/api/chatbot/${chatbotId}`, { token: owner.token });
    const entry = res.body.knowledgeBase.textEntries.find((e: any) => e._id === entryId);
    if (entry?.status !== 'processing' || Date.now() > deadline) return entry;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const isoDate = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/** The entry JSON of common13.md, with the fields a test cares about. */
const entryShape = (fields: Record<string, unknown>) => ({
  _id: expect.stringMatching(UUID),
  title: expect.any(String),
  content: expect.any(String),
  createdAt: isoDate,
  updatedAt: isoDate,
  status: expect.any(String),
  error: null,
  question: null,
  autoSync: false,
  lastSyncedAt: null,
  lastSyncChanged: null,
  ...fields,
});

describe('PUT /api/chatbot/:id — the voice fields', () => {
  it('sets all five, returns them in the chatbot JSON, and keeps them on every read', async () => {
    const { owner, chatbot } = await ownerWithChatbot('voice');
    const fresh = await call(`/api/chatbot/${chatbot._id}`, { token: owner.token });
    expect(fresh.body).toMatchObject({
      instructions: '',
      temperature: null,
      welcomeMessage: '',
      suggestedQuestions: [],
      noAnswerMessage: '',
    });

    const voice = {
      instructions: 'Answer in two sentences at most.',
      temperature: 0.3,
      welcomeMessage: 'Hi! Ask me about shipping.',
      suggestedQuestions: ['How much is shipping?', 'When do you open?'],
      noAnswerMessage: 'Please email help@example.com.',
    };
    const res = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body: voice, token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(voice);
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body).toMatchObject(voice);
    expect((await call('/api/chatbot', { token: owner.token })).body[0]).toMatchObject(voice);

    // Only the fields given change; a null temperature goes back to the product's default.
    const reset = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body: { temperature: null }, token: owner.token });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ ...voice, temperature: null });
  });

  it.each([
    [{ instructions: 5 }, 'instructions must be a string'],
    [{ temperature: 'warm' }, 'temperature must be a number or null'],
    [{ temperature: true }, 'temperature must be a number or null'],
    [{ welcomeMessage: ['hi'] }, 'welcomeMessage must be a string'],
    [{ suggestedQuestions: 'How much?' }, 'suggestedQuestions must be an array of strings'],
    [{ suggestedQuestions: ['ok', 7] }, 'suggestedQuestions must be an array of strings'],
    [{ suggestedQuestions: null }, 'suggestedQuestions must be an array of strings'],
    [{ noAnswerMessage: false }, 'noAnswerMessage must be a string'],
    [{ instructions: 'Be kind\u0000' }, 'Text must not contain control characters'],
  ])('refuses %j with 400 %j (the gateway checks the JSON type)', async (body, message) => {
    const { owner, chatbot } = await ownerWithChatbot('voice-type');
    const res = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body, token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
  });

  it.each([
    ['4,001 characters of instructions', { instructions: 'x'.repeat(4001) }, 'Instructions are too long (maximum 4,000 characters)'],
    ['temperature 1.6', { temperature: 1.6 }, 'Temperature must be a number from 0 to 1.5'],
    ['temperature -0.1', { temperature: -0.1 }, 'Temperature must be a number from 0 to 1.5'],
    ['a welcome of 501 characters', { welcomeMessage: 'x'.repeat(501) }, 'Welcome message is too long (maximum 500 characters)'],
    ['5 suggested questions', { suggestedQuestions: ['a', 'b', 'c', 'd', 'e'] }, 'At most 4 suggested questions'],
    ['a question of 121 characters', { suggestedQuestions: ['x'.repeat(121)] }, 'Each suggested question must be at most 120 characters'],
    [
      'a no-answer message of 501 characters',
      { noAnswerMessage: 'x'.repeat(501) },
      'No-answer message is too long (maximum 500 characters)',
    ],
  ])("passes the chatbot service's refusal of %s through as 400 %j", async (_label, body, message) => {
    const { owner, chatbot } = await ownerWithChatbot('voice-rule');
    const res = await call(`/api/chatbot/${chatbot._id}`, { method: 'PUT', body, token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
  });

  it('trims suggested questions and drops empty ones', async () => {
    const { owner, chatbot } = await ownerWithChatbot('voice-trim');
    const res = await call(`/api/chatbot/${chatbot._id}`, {
      method: 'PUT',
      body: { suggestedQuestions: ['  Where are you?  ', '   ', 'Do you ship abroad?'] },
      token: owner.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.suggestedQuestions).toEqual(['Where are you?', 'Do you ship abroad?']);
  });
});

describe('POST /api/chatbot/:id/knowledge-base/files', () => {
  it('answers 202 with the entry processing, which becomes ready with the text, under the name as sent', async () => {
    const { owner, chatbot } = await ownerWithChatbot('file');
    const res = await upload(
      owner,
      chatbot._id,
      fileForm('# Returns\n\nReturns are accepted within 30 days of delivery.\n', 'Retours é.md'),
    );
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['entry', 'knowledgeBase']);
    expect(res.body.entry).toEqual(entryShape({ status: 'processing', source: { type: 'file', name: 'Retours é.md' } }));
    expect(res.body.knowledgeBase.textEntries.map((e: any) => e._id)).toEqual([res.body.entry._id]);
    // Only ready entries make up the text.
    expect(res.body.knowledgeBase.text).toBe('');

    const ready = await settled(owner, chatbot._id, res.body.entry._id);
    expect(ready).toEqual(entryShape({ _id: res.body.entry._id, status: 'ready', source: { type: 'file', name: 'Retours é.md' } }));
    expect(ready.content).toContain('Returns are accepted within 30 days of delivery.');
    const read = await call(`/api/chatbot/${chatbot._id}`, { token: owner.token });
    expect(read.body.knowledgeBase.text).toContain('Returns are accepted within 30 days');
  });

  it('stores a file the service cannot read as failed with its reason, or refuses an unsupported type at once', async () => {
    const { owner, chatbot } = await ownerWithChatbot('file-bad');
    const res = await upload(owner, chatbot._id, fileForm(pngImage(), 'photo.pdf'));
    if (res.status === 202) {
      const failed = await settled(owner, chatbot._id, res.body.entry._id);
      expect(failed).toMatchObject({ status: 'failed', error: 'Unsupported file type' });
    } else {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Unsupported file type' });
    }
  });

  it('refuses a form without the file: 400 "Choose a file to upload"', async () => {
    const { owner, chatbot } = await ownerWithChatbot('file-none');
    for (const form of [fileForm('Some text', 'notes.txt', 'document'), fileForm('', 'empty.txt'), new FormData()]) {
      const res = await upload(owner, chatbot._id, form);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Choose a file to upload' });
    }
  });

  it('refuses two files at once with 400', async () => {
    const { owner, chatbot } = await ownerWithChatbot('file-two');
    const form = fileForm('First file.', 'one.txt');
    form.append('file', new Blob(['Second file.']), 'two.txt');
    const res = await upload(owner, chatbot._id, form);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Upload one file at a time' });
  });

  it('refuses a JSON body with 415 and a multipart type without a boundary with 400', async () => {
    const { owner, chatbot } = await ownerWithChatbot('file-type');
    const json = await call(`/api/chatbot/${chatbot._id}/knowledge-base/files`, { body: { file: 'text' }, token: owner.token });
    expect(json.status).toBe(415);
    expect(json.body).toEqual({ message: 'The file must be sent as multipart/form-data' });
    const noBoundary = await upload(owner, chatbot._id, 'x', { 'content-type': 'multipart/form-data' });
    expect(noBoundary.status).toBe(400);
  });

  it('refuses a 21 MB file with 413 "File too large" and keeps serving', async () => {
    const { owner, chatbot } = await ownerWithChatbot('file-big');
    const big = new Uint8Array(21 * 1024 * 1024).fill(0x61);
    const res = await upload(owner, chatbot._id, fileForm(big, 'big.txt'));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'File too large' });
    expect((await call('/healthz')).status).toBe(200);
    expect((await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body.knowledgeBase.textEntries).toEqual([]);
  });

  it('answers a truncated multipart body with 400 "The upload was incomplete" and keeps serving', async () => {
    const { owner, chatbot } = await ownerWithChatbot('file-cut');
    const boundary = '----parleyKnowledgeBoundary';
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\nHalf of a`,
    );
    const res = await rawPost(`/api/chatbot/${chatbot._id}/knowledge-base/files`, body, {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      authorization: `Bearer ${owner.token}`,
    });
    expect(res?.status).toBe(400);
    expect(res?.body).toEqual({ message: 'The upload was incomplete' });
    expect((await call('/healthz')).status).toBe(200);
  });

  it("answers 404 for another owner's chatbot and 401 without a token", async () => {
    const { chatbot } = await ownerWithChatbot('file-victim');
    const other = await registerOwner(stack, 'file-intruder');
    const res = await upload(other, chatbot._id, fileForm('Facts.', 'facts.txt'));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Chatbot not found' });
    const anonymous = await postForm(stack, `/api/chatbot/${chatbot._id}/knowledge-base/files`, fileForm('Facts.', 'facts.txt'));
    expect(anonymous.status).toBe(401);
  });
});

describe('POST /api/chatbot/:id/knowledge-base/urls', () => {
  it('answers 202 with the page processing, which becomes ready with its main content', async () => {
    const { owner, chatbot } = await ownerWithChatbot('url');
    const url = `${siteUrl}/shipping`;
    const res = await call(`/api/chatbot/${chatbot._id}/knowledge-base/urls`, { body: { url }, token: owner.token });
    expect(res.status).toBe(202);
    expect(res.body.entry).toEqual(entryShape({ status: 'processing', source: { type: 'url', url } }));
    const ready = await settled(owner, chatbot._id, res.body.entry._id);
    expect(ready).toEqual(
      entryShape({ _id: res.body.entry._id, status: 'ready', title: 'Shipping', source: { type: 'url', url }, lastSyncedAt: isoDate }),
    );
    expect(ready.content).toContain('Shipping is free on every order over fifty euros');
    expect(ready.content).not.toContain('Pricing');
  });

  it.each([
    [{ url: 'ftp://example.com/file' }, 'Enter a valid http or https address'],
    [{ url: 'not an address' }, 'Enter a valid http or https address'],
    [{}, 'Enter a valid http or https address'],
    [{ url: 42 }, 'url must be a string'],
    [{ url: 'https://example.com', crawl: 'yes' }, 'crawl must be true or false'],
    [{ url: 'https://example.com', crawl: true, maxPages: 2.5 }, 'maxPages must be a whole number'],
    [{ url: 'https://example.com', crawl: true, maxPages: '5' }, 'maxPages must be a whole number'],
  ])('refuses %j with 400 %j', async (body, message) => {
    const { owner, chatbot } = await ownerWithChatbot('url-bad');
    const res = await call(`/api/chatbot/${chatbot._id}/knowledge-base/urls`, { body, token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
  });

  it.each([0, -3, 101, 2 ** 40])("passes the service's refusal of maxPages %d through as 400", async (maxPages) => {
    const { owner, chatbot } = await ownerWithChatbot('url-pages');
    const res = await call(`/api/chatbot/${chatbot._id}/knowledge-base/urls`, {
      body: { url: `${siteUrl}/shipping`, crawl: true, maxPages },
      token: owner.token,
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/maxPages/);
  });

  it("answers 404 for another owner's chatbot", async () => {
    const { chatbot } = await ownerWithChatbot('url-victim');
    const other = await registerOwner(stack, 'url-intruder');
    const res = await call(`/api/chatbot/${chatbot._id}/knowledge-base/urls`, { body: { url: `${siteUrl}/shipping` }, token: other.token });
    expect(res.status).toBe(404);
  });
});

describe('POST /api/chatbot/:id/knowledge-base/qa', () => {
  it('answers 201 with the pair ready at once: titled by its question, the answer as content', async () => {
    const { owner, chatbot } = await ownerWithChatbot('qa');
    const body = { question: 'What are your opening hours?', answer: 'We are open 9 to 5, Monday to Friday.' };
    const res = await call(`/api/chatbot/${chatbot._id}/knowledge-base/qa`, { body, token: owner.token });
    expect(res.status).toBe(201);
    expect(res.body.entry).toEqual(
      entryShape({ status: 'ready', source: { type: 'qa' }, title: body.question, question: body.question, content: body.answer }),
    );
    expect(res.body.knowledgeBase.textEntries).toEqual([res.body.entry]);
  });

  it.each([
    [{ answer: 'Yes.' }, 'Question is required'],
    [{ question: '   ', answer: 'Yes.' }, 'Question is required'],
    [{ question: 'Open on Sunday?' }, 'Answer is required'],
    [{ question: ['Open?'], answer: 'Yes.' }, 'question must be a string'],
    [{ question: 'Open?', answer: 3 }, 'answer must be a string'],
  ])('refuses %j with 400 %j', async (body, message) => {
    const { owner, chatbot } = await ownerWithChatbot('qa-bad');
    const res = await call(`/api/chatbot/${chatbot._id}/knowledge-base/qa`, { body, token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
  });

  it("answers 404 for another owner's chatbot", async () => {
    const { chatbot } = await ownerWithChatbot('qa-victim');
    const other = await registerOwner(stack, 'qa-intruder');
    const res = await call(`/api/chatbot/${chatbot._id}/knowledge-base/qa`, { body: { question: 'Q?', answer: 'A.' }, token: other.token });
    expect(res.status).toBe(404);
  });
});

describe('refresh and auto-sync of a website entry', () => {
  it('refresh answers 202 and the entry then tells whether its content changed', async () => {
    const { owner, chatbot } = await ownerWithChatbot('refresh');
    const added = await call(`/api/chatbot/${chatbot._id}/knowledge-base/urls`, {
      body: { url: `${siteUrl}/changing` },
      token: owner.token,
    });
    expect(added.status).toBe(202);
    const entryId = added.body.entry._id;
    expect((await settled(owner, chatbot._id, entryId)).status).toBe('ready');

    const res = await call(`/api/chatbot/${chatbot._id}/knowledge-base/text-entries/${entryId}/refresh`, {
      method: 'POST',
      token: owner.token,
    });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['entry', 'knowledgeBase']);
    expect(res.body.entry._id).toBe(entryId);
    const deadline = Date.now() + 20_000;
    let entry: any;
    do {
      await new Promise((resolve) => setTimeout(resolve, 100));
      entry = (await call(`/api/chatbot/${chatbot._id}`, { token: owner.token })).body.knowledgeBase.textEntries[0];
    } while (entry.lastSyncChanged === null && Date.now() < deadline);
    expect(entry).toMatchObject({ status: 'ready', lastSyncChanged: true, lastSyncedAt: isoDate });
  });

  it('refuses to refresh a typed entry (400) and an entry still being processed (409)', async () => {
    const { owner, chatbot } = await ownerWithChatbot('refresh-bad');
    const text = await call(`/api/chatbot/${chatbot._id}/knowledge-base/text`, { body: { text: 'Typed facts.' }, token: owner.token });
    const textId = text.body.knowledgeBase.textEntries[0]._id;
    const typed = await call(`/api/chatbot/${chatbot._id}/knowledge-base/text-entries/${textId}/refresh`, {
      method: 'POST',
      token: owner.token,
    });
    expect(typed.status).toBe(400);
    expect(typed.body).toEqual({ message: 'Only website entries can be refreshed' });

    const slow = await call(`/api/chatbot/${chatbot._id}/knowledge-base/urls`, { body: { url: `${siteUrl}/slow` }, token: owner.token });
    expect(slow.status).toBe(202);
    const busy = await call(`/api/chatbot/${chatbot._id}/knowledge-base/text-entries/${slow.body.entry._id}/refresh`, {
      method: 'POST',
      token: owner.token,
    });
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({ message: 'This entry is still being processed' });
  });

  it('PUT {autoSync} turns the scheduled re-sync on and off: 200 { entry, knowledgeBase }', async () => {
    const { owner, chatbot } = await ownerWithChatbot('autosync');
    const added = await call(`/api/chatbot/${chatbot._id}/knowledge-base/urls`, {
      body: { url: `${siteUrl}/shipping` },
      token: owner.token,
    });
    const path = `/api/chatbot/${chatbot._id}/knowledge-base/text-entries/${added.body.entry._id}`;
    const on = await call(path, { method: 'PUT', body: { autoSync: true }, token: owner.token });
    expect(on.status).toBe(200);
    expect(on.body.entry).toMatchObject({ _id: added.body.entry._id, autoSync: true });
    expect(on.body.knowledgeBase.textEntries[0].autoSync).toBe(true);
    const off = await call(path, { method: 'PUT', body: { autoSync: false }, token: owner.token });
    expect(off.body.entry.autoSync).toBe(false);

    for (const body of [{}, { autoSync: 'on' }]) {
      const bad = await call(path, { method: 'PUT', body, token: owner.token });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ message: 'autoSync must be true or false' });
    }
    const qa = await call(`/api/chatbot/${chatbot._id}/knowledge-base/qa`, { body: { question: 'Q?', answer: 'A.' }, token: owner.token });
    const notUrl = await call(`/api/chatbot/${chatbot._id}/knowledge-base/text-entries/${qa.body.entry._id}`, {
      method: 'PUT',
      body: { autoSync: true },
      token: owner.token,
    });
    expect(notUrl.status).toBe(400);
    expect(notUrl.body).toEqual({ message: 'Only website entries can be refreshed' });

    const other = await registerOwner(stack, 'autosync-intruder');
    expect((await call(path, { method: 'PUT', body: { autoSync: true }, token: other.token })).status).toBe(404);
    const refreshPath = `${path}/refresh`;
    expect((await call(refreshPath, { method: 'POST', token: other.token })).status).toBe(404);
  });
});

describe('GraphQL', () => {
  const ENTRY = 'id title content createdAt updatedAt status error question autoSync lastSyncedAt lastSyncChanged source { type name url }';
  const RESULT = `entry { ${ENTRY} } knowledgeBase { text textEntries { id status } }`;

  it('updateChatbot sets the voice; a null temperature resets it; the service refuses bad values', async () => {
    const { owner, chatbot } = await ownerWithChatbot('gql-voice');
    const mutation = `mutation ($id: ID!, $input: UpdateChatbotInput!) {
      updateChatbot(id: $id, input: $input) { instructions temperature welcomeMessage suggestedQuestions noAnswerMessage }
    }`;
    const voice = {
      instructions: 'Be brief.',
      temperature: 0.9,
      welcomeMessage: 'Hello!',
      suggestedQuestions: ['Prices?'],
      noAnswerMessage: 'No idea.',
    };
    const set = await gql(stack.url, mutation, { id: chatbot._id, input: voice }, owner.token);
    expect(set.body.errors).toBeUndefined();
    expect(set.body.data.updateChatbot).toEqual(voice);
    const kept = await gql(stack.url, mutation, { id: chatbot._id, input: { name: 'Renamed' } }, owner.token);
    expect(kept.body.data.updateChatbot).toEqual(voice);
    const reset = await gql(stack.url, mutation, { id: chatbot._id, input: { temperature: null } }, owner.token);
    expect(reset.body.data.updateChatbot).toEqual({ ...voice, temperature: null });
    const bad = await gql(stack.url, mutation, { id: chatbot._id, input: { temperature: 3 } }, owner.token);
    expect(bad.body.errors[0]).toMatchObject({
      message: 'Temperature must be a number from 0 to 1.5',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('addUrlEntry, addQaEntry, setTextEntryAutoSync and refreshTextEntry answer the entry and the knowledge base', async () => {
    const { owner, chatbot } = await ownerWithChatbot('gql-entries');
    const url = `${siteUrl}/shipping`;
    const added = await gql(
      stack.url,
      `mutation ($c: ID!, $url: String!) { addUrlEntry(chatbotId: $c, url: $url, crawl: false) { ${RESULT} } }`,
      { c: chatbot._id, url },
      owner.token,
    );
    expect(added.body.errors).toBeUndefined();
    const entry = added.body.data.addUrlEntry.entry;
    expect(entry).toMatchObject({ status: 'processing', source: { type: 'url', name: null, url }, error: null, autoSync: false });
    expect(await settled(owner, chatbot._id, entry.id)).toMatchObject({ status: 'ready' });

    const qa = await gql(
      stack.url,
      `mutation ($c: ID!) { addQaEntry(chatbotId: $c, question: "Do you ship abroad?", answer: "Yes, everywhere in Europe.") { ${RESULT} } }`,
      { c: chatbot._id },
      owner.token,
    );
    expect(qa.body.data.addQaEntry.entry).toMatchObject({
      status: 'ready',
      question: 'Do you ship abroad?',
      content: 'Yes, everywhere in Europe.',
      source: { type: 'qa', name: null, url: null },
    });
    expect(qa.body.data.addQaEntry.knowledgeBase.textEntries).toHaveLength(2);

    const sync = await gql(
      stack.url,
      `mutation ($c: ID!, $e: ID!) { setTextEntryAutoSync(chatbotId: $c, entryId: $e, autoSync: true) { ${RESULT} } }`,
      { c: chatbot._id, e: entry.id },
      owner.token,
    );
    expect(sync.body.data.setTextEntryAutoSync.entry).toMatchObject({ id: entry.id, autoSync: true });

    const refresh = await gql(
      stack.url,
      `mutation ($c: ID!, $e: ID!) { refreshTextEntry(chatbotId: $c, entryId: $e) { ${RESULT} } }`,
      { c: chatbot._id, e: entry.id },
      owner.token,
    );
    expect(refresh.body.errors).toBeUndefined();
    expect(refresh.body.data.refreshTextEntry.entry.id).toBe(entry.id);

    const notUrl = await gql(
      stack.url,
      `mutation ($c: ID!, $e: ID!) { refreshTextEntry(chatbotId: $c, entryId: $e) { entry { id } } }`,
      { c: chatbot._id, e: qa.body.data.addQaEntry.entry.id },
      owner.token,
    );
    expect(notUrl.body.errors[0]).toMatchObject({
      message: 'Only website entries can be refreshed',
      extensions: { code: 'BAD_USER_INPUT' },
    });

    const bad = await gql(
      stack.url,
      `mutation ($c: ID!) { addUrlEntry(chatbotId: $c, url: "javascript:alert(1)") { entry { id } } }`,
      { c: chatbot._id },
      owner.token,
    );
    expect(bad.body.errors[0]).toMatchObject({ message: 'Enter a valid http or https address', extensions: { code: 'BAD_USER_INPUT' } });

    const other = await registerOwner(stack, 'gql-intruder');
    const foreign = await gql(
      stack.url,
      `mutation ($c: ID!) { addQaEntry(chatbotId: $c, question: "Q?", answer: "A.") { entry { id } } }`,
      { c: chatbot._id },
      other.token,
    );
    expect(foreign.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('a refresh of an entry still being processed is a CONFLICT (409)', async () => {
    const { owner, chatbot } = await ownerWithChatbot('gql-conflict');
    const slow = await call(`/api/chatbot/${chatbot._id}/knowledge-base/urls`, { body: { url: `${siteUrl}/slow` }, token: owner.token });
    const res = await gql(
      stack.url,
      `mutation ($c: ID!, $e: ID!) { refreshTextEntry(chatbotId: $c, entryId: $e) { entry { id } } }`,
      { c: chatbot._id, e: slow.body.entry._id },
      owner.token,
    );
    expect(res.body.errors[0]).toMatchObject({
      message: 'This entry is still being processed',
      extensions: { code: 'CONFLICT', http: { status: 409 } },
    });
  });

  it('chatbot { knowledgeBase } lists entries of every kind with their source', async () => {
    const { owner, chatbot } = await ownerWithChatbot('gql-read');
    await call(`/api/chatbot/${chatbot._id}/knowledge-base/text`, { body: { text: 'Typed facts.' }, token: owner.token });
    await upload(owner, chatbot._id, fileForm('File facts.', 'facts.txt'));
    const res = await gql(
      stack.url,
      `query ($id: ID!) { chatbot(id: $id) { knowledgeBase { textEntries { ${ENTRY} } } } }`,
      { id: chatbot._id },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.chatbot.knowledgeBase.textEntries.map((e: any) => e.source)).toEqual([
      { type: 'text', name: null, url: null },
      { type: 'file', name: 'facts.txt', url: null },
    ]);
  });
});

/** One POST over a plain socket, with the body exactly as given (it may be cut anywhere). */
function rawPost(path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; body: any } | undefined> {
  const { hostname, port } = new URL(stack.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text) return resolve(undefined);
      const rawBody = text.slice(text.indexOf('\r\n\r\n') + 4);
      let parsed: unknown = rawBody;
      try {
        parsed = JSON.parse(rawBody);
      } catch {
        // not JSON: keep the text
      }
      resolve({ status: Number(text.slice(9, 12)), body: parsed });
    });
    const head = Object.entries({ host: `${hostname}:${port}`, connection: 'close', 'content-length': String(body.length), ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
    socket.write(body);
  });
}
