// One owner can never read or change another owner's chatbot: every owner route, REST and GraphQL,
// answers exactly as for a chatbot that does not exist, and the chatbot is left as it was.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, type Stack, startStack } from './stack.ts';
import { fetchBytes, type Owner, pictureForm, pngImage, postForm, registerOwner } from './chatbot-fixtures.ts';

let stack: Stack;
let alice: Owner;
let mallory: Owner;
/** Alice's chatbot as she read it before Mallory's attempts. */
let aliceBot: any;
let alicePicture: Buffer;
let malloryBot: any;

const SECRET = 'The vault code is 4711 and only staff may know it.';

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);

beforeAll(async () => {
  stack = await startStack();
  alice = await registerOwner(stack, 'alice');
  mallory = await registerOwner(stack, 'mallory');

  const created = await call('/api/chatbot', { body: { name: 'Alice Private Bot' }, token: alice.token });
  expect(created.status).toBe(201);
  const id = created.body._id;
  alicePicture = pngImage(12, 12, [10, 200, 30]);
  expect((await postForm(stack, `/api/chatbot/${id}/profile-picture`, pictureForm(alicePicture), { token: alice.token })).status).toBe(200);
  for (const text of [SECRET, 'Staff meetings are on Mondays.']) {
    expect((await call(`/api/chatbot/${id}/knowledge-base/text`, { body: { text, append: true }, token: alice.token })).status).toBe(200);
  }
  aliceBot = (await call(`/api/chatbot/${id}`, { token: alice.token })).body;
  expect(aliceBot.knowledgeBase.textEntries).toHaveLength(2);
  expect(aliceBot.profilePicture).toEqual(expect.any(String));

  malloryBot = (await call('/api/chatbot', { body: { name: 'Mallory Bot' }, token: mallory.token })).body;
  expect(malloryBot._id).toEqual(expect.any(String));
});
afterAll(async () => {
  await stack?.close();
});

/** Asserts a REST answer is the plain "not found" and carries nothing of Alice's chatbot. */
function expectNotFound(res: { status: number; body: any }) {
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ message: 'Chatbot not found' });
}

/** Asserts a GraphQL answer failed with NOT_FOUND "Chatbot not found" and no data. */
function expectGqlNotFound(res: { status: number; body: any }) {
  expect(res.status).toBe(200);
  expect(res.body.data).toBeNull();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0].message).toBe('Chatbot not found');
  expect(res.body.errors[0].extensions).toEqual({ code: 'NOT_FOUND', http: { status: 404 } });
}

function expectNothingOfAlice(body: unknown) {
  const text = JSON.stringify(body);
  for (const secret of [aliceBot.name, aliceBot.uniqueId, aliceBot.profilePicture, SECRET, aliceBot.knowledgeBase.textEntries[0]._id]) {
    expect(text).not.toContain(secret);
  }
}

describe("another owner's chatbot over REST", () => {
  const entryPath = () => `/api/chatbot/${aliceBot._id}/knowledge-base/text-entries/${aliceBot.knowledgeBase.textEntries[0]._id}`;
  const attempts: [string, () => Promise<{ status: number; body: any }>][] = [
    ['GET /api/chatbot/:id', () => call(`/api/chatbot/${aliceBot._id}`, { token: mallory.token })],
    [
      'PUT /api/chatbot/:id',
      () =>
        call(`/api/chatbot/${aliceBot._id}`, {
          method: 'PUT',
          body: { name: 'Pwned', isActive: false, language: 'chinese' },
          token: mallory.token,
        }),
    ],
    ['DELETE /api/chatbot/:id', () => call(`/api/chatbot/${aliceBot._id}`, { method: 'DELETE', token: mallory.token })],
    [
      'POST /api/chatbot/:id/profile-picture',
      () =>
        postForm(stack, `/api/chatbot/${aliceBot._id}/profile-picture`, pictureForm(pngImage(4, 4, [255, 0, 0])), { token: mallory.token }),
    ],
    [
      'POST /api/chatbot/:id/knowledge-base/text',
      () => call(`/api/chatbot/${aliceBot._id}/knowledge-base/text`, { body: { text: 'Injected.', append: true }, token: mallory.token }),
    ],
    ['DELETE /api/chatbot/:id/knowledge-base/text-entries/:entryId', () => call(entryPath(), { method: 'DELETE', token: mallory.token })],
    ['GET /api/chatbot/:id/conversations', () => call(`/api/chatbot/${aliceBot._id}/conversations`, { token: mallory.token })],
    [
      'GET /api/chatbot/:id/conversations/:conversationId',
      () => call(`/api/chatbot/${aliceBot._id}/conversations/${randomUUID()}`, { token: mallory.token }),
    ],
    ['GET /api/chatbot/:id/analytics', () => call(`/api/chatbot/${aliceBot._id}/analytics`, { token: mallory.token })],
    [
      'GET /api/chatbot/:id/unanswered-questions',
      () => call(`/api/chatbot/${aliceBot._id}/unanswered-questions`, { token: mallory.token }),
    ],
    [
      'POST /api/chatbot/:id/unanswered-questions/:questionId/answer',
      () =>
        call(`/api/chatbot/${aliceBot._id}/unanswered-questions/${randomUUID()}/answer`, {
          body: { answer: 'Injected.' },
          token: mallory.token,
        }),
    ],
    [
      'POST /api/chatbot/:id/unanswered-questions/:questionId/dismiss',
      () => call(`/api/chatbot/${aliceBot._id}/unanswered-questions/${randomUUID()}/dismiss`, { body: {}, token: mallory.token }),
    ],
  ];

  it.each(attempts)('%s answers 404 "Chatbot not found"', async (_route, attempt) => {
    const res = await attempt();
    expectNotFound(res);
    expectNothingOfAlice(res.body);
  });

  it('the upper-case spelling of the id fares no better', async () => {
    expectNotFound(await call(`/api/chatbot/${aliceBot._id.toUpperCase()}`, { token: mallory.token }));
  });

  it("an entry of Alice's cannot be deleted through Mallory's own chatbot", async () => {
    const res = await call(`/api/chatbot/${malloryBot._id}/knowledge-base/text-entries/${aliceBot.knowledgeBase.textEntries[0]._id}`, {
      method: 'DELETE',
      token: mallory.token,
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Text entry not found' });
  });

  it("Mallory's list does not have it", async () => {
    const res = await call('/api/chatbot', { token: mallory.token });
    expect(res.status).toBe(200);
    expect(res.body.map((c: any) => c._id)).toEqual([malloryBot._id]);
    expectNothingOfAlice(res.body);
  });
});

describe("another owner's chatbot over GraphQL", () => {
  const attempts: [string, string, () => Record<string, unknown>][] = [
    ['chatbot', 'query($id: ID!) { chatbot(id: $id) { id name uniqueId knowledgeBase { text } } }', () => ({ id: aliceBot._id })],
    [
      'updateChatbot',
      'mutation($id: ID!) { updateChatbot(id: $id, input: { name: "Pwned", isActive: false, language: chinese }) { id name } }',
      () => ({ id: aliceBot._id }),
    ],
    ['deleteChatbot', 'mutation($id: ID!) { deleteChatbot(id: $id) }', () => ({ id: aliceBot._id })],
    ['addTextEntry', 'mutation($id: ID!) { addTextEntry(chatbotId: $id, text: "Injected.") { text } }', () => ({ id: aliceBot._id })],
    [
      'deleteTextEntry',
      'mutation($id: ID!, $entryId: ID!) { deleteTextEntry(chatbotId: $id, entryId: $entryId) { text } }',
      () => ({ id: aliceBot._id, entryId: aliceBot.knowledgeBase.textEntries[0]._id }),
    ],
    ['conversations', 'query($id: ID!) { conversations(chatbotId: $id) { id sessionId } }', () => ({ id: aliceBot._id })],
    [
      'conversation',
      'query($id: ID!, $cid: ID!) { conversation(chatbotId: $id, id: $cid) { id messages { content } } }',
      () => ({ id: aliceBot._id, cid: randomUUID() }),
    ],
    ['analytics', 'query($id: ID!) { analytics(chatbotId: $id) { totals { messages } } }', () => ({ id: aliceBot._id })],
    ['unansweredQuestions', 'query($id: ID!) { unansweredQuestions(chatbotId: $id) { id question } }', () => ({ id: aliceBot._id })],
    [
      'answerUnansweredQuestion',
      'mutation($id: ID!, $qid: ID!) { answerUnansweredQuestion(chatbotId: $id, id: $qid, answer: "Injected.") { id } }',
      () => ({ id: aliceBot._id, qid: randomUUID() }),
    ],
    [
      'dismissUnansweredQuestion',
      'mutation($id: ID!, $qid: ID!) { dismissUnansweredQuestion(chatbotId: $id, id: $qid) { id } }',
      () => ({ id: aliceBot._id, qid: randomUUID() }),
    ],
  ];

  it.each(attempts)('%s fails with NOT_FOUND "Chatbot not found"', async (_name, query, variables) => {
    const res = await gql(stack.url, query, variables(), mallory.token);
    expectGqlNotFound(res);
    expectNothingOfAlice(res.body);
  });

  it("Mallory's chatbots do not include it", async () => {
    const res = await gql(stack.url, '{ chatbots { id name knowledgeBase { text } openUnansweredQuestions } }', {}, mallory.token);
    expect(res.body).toEqual({
      data: { chatbots: [{ id: malloryBot._id, name: 'Mallory Bot', knowledgeBase: { text: '' }, openUnansweredQuestions: 0 }] },
    });
  });
});

describe('malformed chatbot ids', () => {
  const ids = ['not-a-uuid', '..%2F..', '..%2F..%2Fauth%2Fcurrent', '%2E%2E%2F%2E%2E%2Fetc%2Fpasswd', `${randomUUID()}x`, "1' OR '1'='1"];

  it.each(ids)('REST routes answer 404 "Chatbot not found" for %s', async (id) => {
    expectNotFound(await call(`/api/chatbot/${id}`, { token: alice.token }));
    expectNotFound(await call(`/api/chatbot/${id}`, { method: 'PUT', body: { name: 'x' }, token: alice.token }));
    expectNotFound(await call(`/api/chatbot/${id}`, { method: 'DELETE', token: alice.token }));
    expectNotFound(await postForm(stack, `/api/chatbot/${id}/profile-picture`, pictureForm(pngImage()), { token: alice.token }));
    expectNotFound(await call(`/api/chatbot/${id}/knowledge-base/text`, { body: { text: 'x', append: true }, token: alice.token }));
    expectNotFound(await call(`/api/chatbot/${id}/knowledge-base/text-entries/${randomUUID()}`, { method: 'DELETE', token: alice.token }));
  });

  it('REST routes refuse a control character in an id as a malformed URL, before any service sees it', async () => {
    for (const res of [
      await call('/api/chatbot/%00', { token: alice.token }),
      await call('/api/chatbot/%00', { method: 'PUT', body: { name: 'x' }, token: alice.token }),
      await call('/api/chatbot/%00/knowledge-base/text', { body: { text: 'x', append: true }, token: alice.token }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Malformed URL' });
    }
  });

  it.each(['not-a-uuid', '../..', '../../auth/current', "1' OR '1'='1"])('GraphQL answers NOT_FOUND for %s', async (id) => {
    expectGqlNotFound(await gql(stack.url, 'query($id: ID!) { chatbot(id: $id) { id } }', { id }, alice.token));
    expectGqlNotFound(await gql(stack.url, 'mutation($id: ID!) { deleteChatbot(id: $id) }', { id }, alice.token));
  });

  it('a traversing entry id answers 404 "Text entry not found"', async () => {
    const res = await call(`/api/chatbot/${aliceBot._id}/knowledge-base/text-entries/..%2F..%2F..`, {
      method: 'DELETE',
      token: alice.token,
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Text entry not found' });
  });
});

describe("afterwards, Alice's chatbot", () => {
  it('is unchanged: name, settings, knowledge base and picture', async () => {
    const res = await call(`/api/chatbot/${aliceBot._id}`, { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(aliceBot);
    const picture = await fetchBytes(stack, aliceBot.profilePicture);
    expect(picture.status).toBe(200);
    expect(picture.bytes.equals(alicePicture)).toBe(true);
    const list = await call('/api/chatbot', { token: alice.token });
    expect(list.body).toEqual([aliceBot]);
  });
});
