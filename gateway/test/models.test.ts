// Contract tests of a chatbot's model choice (docs/product.md, The model) on the three
// faces, against the real services: the models a workspace may choose (offered by this deployment,
// allowed on its plan) with a typical answer's price, the chatbot's model and fallback, a change of
// them refused for a model not offered (400) and for one the plan may not use (403), and every change
// recorded in the workspace's audit log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys, v1 } from './api-v1-fixtures.ts';
import { makePro, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, startStack, type Stack } from './stack.ts';

let stack: Stack;

beforeAll(async () => {
  // OpenAI and Anthropic are configured, Gemini is not: its models are not offered.
  stack = await startStack({ chatEnv: { OPENAI_API_KEY: 'sk-test-openai', ANTHROPIC_API_KEY: 'sk-ant-test' } });
});
afterAll(async () => {
  await stack?.close();
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);

async function ownerWithChatbot(pro = false) {
  const owner = await registerOwner(stack, 'models');
  if (pro) await makePro(stack, owner);
  const created = await call('/api/chatbot', { body: { name: 'Support Bot' }, token: owner.token });
  expect(created.status).toBe(201);
  return { owner, chatbotId: created.body._id as string };
}

const put = (owner: Owner, chatbotId: string, body: object) =>
  call(`/api/chatbot/${chatbotId}`, { method: 'PUT', body, token: owner.token });

const GPT_4O_MINI = { id: 'gpt-4o-mini', displayName: 'GPT-4o mini', provider: 'openai' };
const HAIKU = { id: 'claude-haiku-4-5', displayName: 'Claude Haiku 4.5', provider: 'anthropic' };
const SONNET = { id: 'claude-sonnet-4-5', displayName: 'Claude Sonnet 4.5', provider: 'anthropic' };

describe('the models a workspace may choose', () => {
  it('lists the offered models, the default first, with whether the free plan allows each and a typical answer’s price', async () => {
    const owner = await registerOwner(stack, 'models');
    const res = await call('/api/models', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.map((m: { id: string }) => m.id)).toEqual([
      'gpt-4o-mini',
      'gpt-4.1-mini',
      'gpt-4o',
      'claude-haiku-4-5',
      'claude-sonnet-4-5',
    ]);
    expect(res.body[0]).toEqual({
      id: 'gpt-4o-mini',
      provider: 'openai',
      displayName: 'GPT-4o mini',
      contextWindow: 128000,
      maxOutputTokens: 16384,
      inputPricePerMillion: '0.15',
      outputPricePerMillion: '0.60',
      capabilities: { streaming: true, tools: true, images: true },
      plans: ['free', 'pro'],
      isDefault: true,
      allowed: true,
      typicalAnswerCost: '0.00048',
    });
    const sonnet = res.body.find((m: { id: string }) => m.id === 'claude-sonnet-4-5');
    expect(sonnet).toMatchObject({ allowed: false, plans: ['pro'], typicalAnswerCost: '0.0105' });
  });

  it('allows every offered model on the pro plan, on GraphQL as on REST', async () => {
    const owner = await registerOwner(stack, 'models');
    await makePro(stack, owner);
    const res = await gql(stack.url, '{ models { id allowed typicalAnswerCost capabilities { streaming } isDefault } }', {}, owner.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.models.every((m: { allowed: boolean }) => m.allowed)).toBe(true);
    expect(res.body.data.models[0]).toEqual({
      id: 'gpt-4o-mini',
      allowed: true,
      typicalAnswerCost: '0.00048',
      capabilities: { streaming: true },
      isDefault: true,
    });
  });
});

describe("a chatbot's model on the dashboard's REST paths", () => {
  it("answers the catalogue's default and no fallback for a new chatbot", async () => {
    const { owner, chatbotId } = await ownerWithChatbot();
    const res = await call(`/api/chatbot/${chatbotId}`, { token: owner.token });
    expect(res.body).toMatchObject({ model: GPT_4O_MINI, fallbackModel: null });
  });

  it('changes the model and the fallback, keeps them on other changes and removes the fallback with null', async () => {
    const { owner, chatbotId } = await ownerWithChatbot();
    const changed = await put(owner, chatbotId, { modelId: 'claude-haiku-4-5', fallbackModelId: 'gpt-4o-mini' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ model: HAIKU, fallbackModel: GPT_4O_MINI });

    const renamed = await put(owner, chatbotId, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', model: HAIKU, fallbackModel: GPT_4O_MINI });
    const listed = await call('/api/chatbot', { token: owner.token });
    expect(listed.body[0]).toMatchObject({ model: HAIKU, fallbackModel: GPT_4O_MINI });

    const noFallback = await put(owner, chatbotId, { fallbackModelId: null });
    expect(noFallback.body).toMatchObject({ model: HAIKU, fallbackModel: null });
  });

  it('refuses a model this deployment does not offer with 400, changing nothing', async () => {
    const { owner, chatbotId } = await ownerWithChatbot();
    for (const modelId of ['gpt-9', 'gemini-2.5-flash']) {
      const res = await put(owner, chatbotId, { name: 'Not this', modelId });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: `Unknown model: ${modelId}` });
    }
    const fallback = await put(owner, chatbotId, { fallbackModelId: 'gpt-9' });
    expect(fallback.status).toBe(400);
    expect(fallback.body).toEqual({ message: 'Unknown model: gpt-9' });
    const read = await call(`/api/chatbot/${chatbotId}`, { token: owner.token });
    expect(read.body).toMatchObject({ name: 'Support Bot', model: GPT_4O_MINI, fallbackModel: null });
  });

  it('refuses a model of the wrong JSON type, and a fallback that is the model', async () => {
    const { owner, chatbotId } = await ownerWithChatbot();
    expect((await put(owner, chatbotId, { modelId: 42 })).body).toEqual({ message: 'modelId must be a string' });
    const same = await put(owner, chatbotId, { modelId: 'claude-haiku-4-5', fallbackModelId: 'claude-haiku-4-5' });
    expect(same.status).toBe(400);
    expect(same.body).toEqual({ message: 'The fallback model must be a different model from the one that answers.' });
  });

  it('refuses a pro model on the free plan with 403, as the fallback too, and lets a pro workspace choose it', async () => {
    const { owner, chatbotId } = await ownerWithChatbot();
    const refused = await put(owner, chatbotId, { modelId: 'claude-sonnet-4-5' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: 'Claude Sonnet 4.5 is available on the Pro plan.' });
    expect((await put(owner, chatbotId, { fallbackModelId: 'gpt-4o' })).body).toEqual({ message: 'GPT-4o is available on the Pro plan.' });

    await makePro(stack, owner);
    const allowed = await put(owner, chatbotId, { modelId: 'claude-sonnet-4-5' });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toMatchObject({ model: SONNET, fallbackModel: null });
  });

  it('records each change of the model in the audit log, with who made it', async () => {
    const { owner, chatbotId } = await ownerWithChatbot();
    await put(owner, chatbotId, { name: 'No model change' });
    await put(owner, chatbotId, { modelId: 'claude-haiku-4-5', fallbackModelId: 'gpt-4o-mini' });
    const log = await call('/api/workspace/audit-log?action=chatbot.model_changed', { token: owner.token });
    expect(log.status).toBe(200);
    expect(log.body.events).toHaveLength(1);
    expect(log.body.events[0]).toMatchObject({
      action: 'chatbot.model_changed',
      target: chatbotId,
      actorEmail: owner.email,
    });
    expect(JSON.parse(log.body.events[0].details)).toEqual({ modelId: 'claude-haiku-4-5', fallbackModelId: 'gpt-4o-mini' });
  });
});

describe("a chatbot's model on GraphQL", () => {
  const UPDATE = `mutation ($id: ID!, $input: UpdateChatbotInput!) {
    updateChatbot(id: $id, input: $input) { model { id displayName provider } fallbackModel { id displayName provider } }
  }`;

  it('reads, changes and removes the fallback with null', async () => {
    const { owner, chatbotId } = await ownerWithChatbot();
    const read = await gql(stack.url, '{ chatbots { model { id displayName provider } fallbackModel { id } } }', {}, owner.token);
    expect(read.body.data.chatbots).toEqual([{ model: GPT_4O_MINI, fallbackModel: null }]);

    const changed = await gql(
      stack.url,
      UPDATE,
      { id: chatbotId, input: { modelId: 'gpt-4.1-mini', fallbackModelId: 'claude-haiku-4-5' } },
      owner.token,
    );
    expect(changed.body.data.updateChatbot).toEqual({
      model: { id: 'gpt-4.1-mini', displayName: 'GPT-4.1 mini', provider: 'openai' },
      fallbackModel: HAIKU,
    });
    const removed = await gql(stack.url, UPDATE, { id: chatbotId, input: { fallbackModelId: null } }, owner.token);
    expect(removed.body.data.updateChatbot.fallbackModel).toBeNull();
  });

  it('answers BAD_USER_INPUT for a model not offered and FORBIDDEN for a pro model on the free plan', async () => {
    const { owner, chatbotId } = await ownerWithChatbot();
    const unknown = await gql(stack.url, UPDATE, { id: chatbotId, input: { modelId: 'gemini-2.5-pro' } }, owner.token);
    expect(unknown.body.errors[0]).toMatchObject({ message: 'Unknown model: gemini-2.5-pro', extensions: { code: 'BAD_USER_INPUT' } });
    const pro = await gql(stack.url, UPDATE, { id: chatbotId, input: { modelId: 'gpt-4o' } }, owner.token);
    expect(pro.body.errors[0]).toMatchObject({ message: 'GPT-4o is available on the Pro plan.', extensions: { code: 'FORBIDDEN' } });
  });
});

describe("a chatbot's model on the developer API", () => {
  it('lists the models, changes a chatbot’s model, refuses as the dashboard does and audits the change under the key', async () => {
    const { owner, chatbotId } = await ownerWithChatbot();
    const keys = apiKeys(stack);
    const { id: apiKeyId, secret } = await keys.create(owner, ['chatbots:read', 'chatbots:write']);

    const models = await v1(stack, '/models', secret);
    expect(models.status).toBe(200);
    expect(models.body.data[0]).toMatchObject({ id: 'gpt-4o-mini', isDefault: true, allowed: true, typicalAnswerCost: '0.00048' });

    const read = await v1(stack, `/chatbots/${chatbotId}`, secret);
    expect(read.body).toMatchObject({ model: GPT_4O_MINI, fallbackModel: null });

    const changed = await v1(stack, `/chatbots/${chatbotId}`, secret, { method: 'PATCH', body: { modelId: 'claude-haiku-4-5' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ model: HAIKU, fallbackModel: null });

    const unknown = await v1(stack, `/chatbots/${chatbotId}`, secret, { method: 'PATCH', body: { modelId: 'gpt-9' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: { code: 'invalid_request', message: 'Unknown model: gpt-9' } });
    const pro = await v1(stack, `/chatbots/${chatbotId}`, secret, { method: 'PATCH', body: { fallbackModelId: 'claude-sonnet-4-5' } });
    expect(pro.status).toBe(403);
    expect(pro.body).toEqual({ error: { code: 'forbidden', message: 'Claude Sonnet 4.5 is available on the Pro plan.' } });

    const log = await call('/api/workspace/audit-log?action=chatbot.model_changed', { token: owner.token });
    expect(log.body.events).toHaveLength(1);
    expect(log.body.events[0]).toMatchObject({ target: chatbotId, actorEmail: null });
    expect(JSON.parse(log.body.events[0].details)).toEqual({ modelId: 'claude-haiku-4-5', fallbackModelId: null, apiKeyId });
  });

  it('needs the chatbots:read scope to list the models', async () => {
    const owner = await registerOwner(stack, 'models');
    const { secret } = await apiKeys(stack).create(owner, ['chat']);
    const res = await v1(stack, '/models', secret);
    expect(res.status).toBe(403);
  });
});
