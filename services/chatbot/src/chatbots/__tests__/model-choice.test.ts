// A chatbot's model choice: stored as catalogue ids (none: the catalogue's default), changed by
// UpdateChatbot (only the fields sent change, an empty fallback is none), refused for an id the
// catalogue does not list and for a fallback that is the model itself, answered in Chatbot and in
// the PublicChatbot of the public lookup and of every message's knowledge.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCatalogue } from '@parley/common/models/catalogue.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from '../../../test/integration/harness.ts';
import { applyModelChoiceChange, FALLBACK_SAME_AS_MODEL, modelChoiceOf, unknownModel } from '../model-choice.ts';

const model = (id: string, plans: string[] = ['free', 'pro']) => ({
  id,
  provider: 'openai',
  displayName: id,
  contextWindow: 128000,
  maxOutputTokens: 4096,
  inputPricePerMillion: '0.15',
  outputPricePerMillion: '0.60',
  plans,
});
const catalogueText = JSON.stringify({ default: 'small', models: [model('small'), model('large', ['pro']), model('other')] });
const catalogue = parseCatalogue(catalogueText, 'test');

const message = (fn: () => unknown) => {
  try {
    fn();
    return 'valid';
  } catch (err) {
    return (err as Error & { rawMessage?: string }).rawMessage ?? (err as Error).message;
  }
};

describe('the stored choice as it answers', () => {
  it("reads nothing stored as the catalogue's default, without a fallback", () => {
    expect(modelChoiceOf({ modelId: null, fallbackModelId: null }, catalogue)).toEqual({ modelId: 'small', fallbackModelId: '' });
  });

  it('reads the stored model and fallback', () => {
    expect(modelChoiceOf({ modelId: 'large', fallbackModelId: 'other' }, catalogue)).toEqual({
      modelId: 'large',
      fallbackModelId: 'other',
    });
  });

  it('reads a model the catalogue no longer lists as its default, and such a fallback as none', () => {
    expect(modelChoiceOf({ modelId: 'retired', fallbackModelId: 'gone' }, catalogue)).toEqual({ modelId: 'small', fallbackModelId: '' });
  });

  it('reads a fallback that became the model answering (its model retired to the default) as none', () => {
    expect(modelChoiceOf({ modelId: 'retired', fallbackModelId: 'small' }, catalogue)).toEqual({ modelId: 'small', fallbackModelId: '' });
  });
});

describe('a change to the choice', () => {
  const none = { modelId: null, fallbackModelId: null };

  it('changes only the fields sent', () => {
    expect(applyModelChoiceChange(undefined, none, catalogue)).toEqual({});
    expect(applyModelChoiceChange({}, none, catalogue)).toEqual({});
    expect(applyModelChoiceChange({ modelId: ' large ' }, none, catalogue)).toEqual({ modelId: 'large', fallbackModelId: undefined });
    expect(applyModelChoiceChange({ fallbackModelId: 'other' }, none, catalogue)).toEqual({ modelId: undefined, fallbackModelId: 'other' });
  });

  it("stores an empty model as nothing (the catalogue's default) and an empty fallback as none", () => {
    expect(applyModelChoiceChange({ modelId: '', fallbackModelId: '' }, { modelId: 'large', fallbackModelId: 'other' }, catalogue)).toEqual(
      {
        modelId: null,
        fallbackModelId: null,
      },
    );
  });

  it('refuses an id the catalogue does not list, echoing it only when short and printable', () => {
    expect(message(() => applyModelChoiceChange({ modelId: 'gpt-9' }, none, catalogue))).toBe('Unknown model: gpt-9');
    expect(message(() => applyModelChoiceChange({ fallbackModelId: 'nope' }, none, catalogue))).toBe('Unknown model: nope');
    expect(unknownModel('x'.repeat(101))).toBe('Unknown model');
    expect(unknownModel('bad\nid')).toBe('Unknown model');
  });

  it('refuses a fallback that is the model, as the change leaves them', () => {
    expect(message(() => applyModelChoiceChange({ modelId: 'large', fallbackModelId: 'large' }, none, catalogue))).toBe(
      FALLBACK_SAME_AS_MODEL,
    );
    // The default answers when nothing is stored.
    expect(message(() => applyModelChoiceChange({ fallbackModelId: 'small' }, none, catalogue))).toBe(FALLBACK_SAME_AS_MODEL);
    // The model moved onto the stored fallback.
    expect(message(() => applyModelChoiceChange({ modelId: 'other' }, { modelId: 'large', fallbackModelId: 'other' }, catalogue))).toBe(
      FALLBACK_SAME_AS_MODEL,
    );
    // Both moved together is fine.
    expect(
      applyModelChoiceChange({ modelId: 'other', fallbackModelId: 'large' }, { modelId: 'large', fallbackModelId: 'other' }, catalogue),
    ).toEqual({ modelId: 'other', fallbackModelId: 'large' });
  });
});

describe('the choice through the chatbot service', () => {
  let svc: TestChatbotService;
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parley-catalogue-'));
    const file = join(dir, 'models.jsonc');
    await writeFile(file, catalogueText);
    svc = await startChatbotService({ MODEL_CATALOGUE_FILE: file });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const publicChoice = async (uniqueId: string) => {
    const lookup = await svc.client.getPublicChatbot({ uniqueId });
    const knowledge = await svc.client.getPromptKnowledge({ uniqueId, query: 'hello', budgetChars: 1000 });
    expect(knowledge.chatbot?.model).toEqual(lookup.chatbot?.model);
    return { modelId: lookup.chatbot?.model?.modelId, fallbackModelId: lookup.chatbot?.model?.fallbackModelId };
  };

  it("gives a new chatbot the catalogue's default, storing nothing", async () => {
    const chatbot = await svc.createChatbot(newOwner());
    expect({ ...chatbot.model }).toMatchObject({ modelId: 'small', fallbackModelId: '' });
    expect(await svc.db.chatbot.findUnique({ where: { id: chatbot.id } })).toMatchObject({ modelId: null, fallbackModelId: null });
    expect(await publicChoice(chatbot.uniqueId)).toEqual({ modelId: 'small', fallbackModelId: '' });
  });

  it('stores a change, answers it on every read and announces it with a new public revision', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner);
    const chatbotRevision = redisKeys(svc.config.QUEUE_PREFIX).chatbotRevision(created.id);
    const before = await svc.redis.get(chatbotRevision);

    const { chatbot } = await svc.client.updateChatbot({
      ownerId: owner,
      chatbotId: created.id,
      model: { modelId: 'large', fallbackModelId: 'other' },
    });
    expect(chatbot?.model).toMatchObject({ modelId: 'large', fallbackModelId: 'other' });
    expect(await svc.redis.get(chatbotRevision)).not.toBe(before);
    const read = await svc.client.getChatbot({ ownerId: owner, chatbotId: created.id });
    expect(read.chatbot?.model).toMatchObject({ modelId: 'large', fallbackModelId: 'other' });
    const listed = await svc.client.listChatbots({ ownerId: owner });
    expect(listed.chatbots[0]?.model).toMatchObject({ modelId: 'large', fallbackModelId: 'other' });
    expect(await publicChoice(created.uniqueId)).toEqual({ modelId: 'large', fallbackModelId: 'other' });

    // A change of something else keeps the choice; an empty fallback removes it.
    await svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, name: 'Renamed' });
    const { chatbot: noFallback } = await svc.client.updateChatbot({
      ownerId: owner,
      chatbotId: created.id,
      model: { fallbackModelId: '' },
    });
    expect(noFallback?.model).toMatchObject({ modelId: 'large', fallbackModelId: '' });
    expect(await svc.db.chatbot.findUnique({ where: { id: created.id } })).toMatchObject({ modelId: 'large', fallbackModelId: null });
  });

  it('refuses an unknown model and a fallback equal to the model, changing nothing', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner);
    await expectRpcError(
      svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, name: 'Not this', model: { modelId: 'gpt-9' } }),
      Code.InvalidArgument,
      'Unknown model: gpt-9',
    );
    await expectRpcError(
      svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, model: { modelId: 'other', fallbackModelId: 'other' } }),
      Code.InvalidArgument,
      FALLBACK_SAME_AS_MODEL,
    );
    expect(await svc.db.chatbot.findUnique({ where: { id: created.id } })).toMatchObject({
      name: 'Test bot',
      modelId: null,
      fallbackModelId: null,
    });
  });

  it("answers another owner's chatbot as not found, before looking at the model", async () => {
    const created = await svc.createChatbot(newOwner());
    await expectRpcError(
      svc.client.updateChatbot({ ownerId: newOwner('other'), chatbotId: created.id, model: { modelId: 'large' } }),
      Code.NotFound,
      'Chatbot not found',
    );
  });
});
