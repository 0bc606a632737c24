// The models a workspace may choose, as models.ts shows them: the one rule (offered here and allowed
// on the plan), a typical answer's exact price, and a chatbot's model and fallback named from the
// catalogue. Pure, no services.
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { OfferedModelSchema } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { ModelChoiceSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { loadCatalogue } from '@parley/common/models/catalogue.ts';
import { chatbotModelsView, mayChoose, modelProOnly, modelView, typicalAnswerCost, unknownModel } from '../models.ts';

const catalogue = loadCatalogue({});

const offered = (id: string, plans: string[], prices: [string, string] = ['2.50', '10.00']) =>
  create(OfferedModelSchema, {
    id,
    provider: 'openai',
    displayName: id.toUpperCase(),
    contextWindow: 128000,
    maxOutputTokens: 16384,
    inputPricePerMillion: prices[0],
    outputPricePerMillion: prices[1],
    streaming: true,
    tools: true,
    images: false,
    plans,
    isDefault: false,
  });

describe('which models a workspace may choose', () => {
  it('is a model whose plans include the workspace’s plan', () => {
    expect(mayChoose(offered('a', ['free', 'pro']), 'free')).toBe(true);
    expect(mayChoose(offered('b', ['pro']), 'free')).toBe(false);
    expect(mayChoose(offered('b', ['pro']), 'pro')).toBe(true);
  });

  it('names the plans a refused model needs', () => {
    expect(modelProOnly('GPT-4o', ['pro'])).toBe('GPT-4o is available on the Pro plan.');
  });

  it('echoes an unknown id only when it is short and printable', () => {
    expect(unknownModel('gpt-9')).toBe('Unknown model: gpt-9');
    expect(unknownModel('a'.repeat(101))).toBe('Unknown model');
    expect(unknownModel('a\u0000b')).toBe('Unknown model');
  });
});

describe('a typical answer’s price', () => {
  it('is 2,000 prompt tokens and 300 answer tokens at the model’s prices, exact', () => {
    expect(typicalAnswerCost({ inputPricePerMillion: '0.15', outputPricePerMillion: '0.60' })).toBe('0.00048');
    expect(typicalAnswerCost({ inputPricePerMillion: '2.50', outputPricePerMillion: '10.00' })).toBe('0.008');
    expect(typicalAnswerCost({ inputPricePerMillion: '3.00', outputPricePerMillion: '15.00' })).toBe('0.0105');
    expect(typicalAnswerCost({ inputPricePerMillion: '0.0001', outputPricePerMillion: '0.0001' })).toBe('0.00000023');
    expect(typicalAnswerCost({ inputPricePerMillion: '0', outputPricePerMillion: '0' })).toBe('0');
  });
});

describe('modelView', () => {
  it('shows the offered model with its capabilities, whether the plan allows it and a typical answer’s price', () => {
    expect(modelView(offered('gpt-4o', ['pro']), 'free')).toEqual({
      id: 'gpt-4o',
      provider: 'openai',
      displayName: 'GPT-4O',
      contextWindow: 128000,
      maxOutputTokens: 16384,
      inputPricePerMillion: '2.50',
      outputPricePerMillion: '10.00',
      capabilities: { streaming: true, tools: true, images: false },
      plans: ['pro'],
      isDefault: false,
      allowed: false,
      typicalAnswerCost: '0.008',
    });
  });
});

describe("a chatbot's model and fallback", () => {
  it('are named from the catalogue; no fallback is null', () => {
    expect(
      chatbotModelsView(create(ModelChoiceSchema, { modelId: 'claude-haiku-4-5', fallbackModelId: 'gpt-4o-mini' }), catalogue),
    ).toEqual({
      model: { id: 'claude-haiku-4-5', displayName: 'Claude Haiku 4.5', provider: 'anthropic' },
      fallbackModel: { id: 'gpt-4o-mini', displayName: 'GPT-4o mini', provider: 'openai' },
    });
    expect(chatbotModelsView(create(ModelChoiceSchema, { modelId: 'gpt-4o', fallbackModelId: '' }), catalogue).fallbackModel).toBeNull();
  });

  it("reads a chatbot service that sends no choice as the catalogue's default", () => {
    expect(chatbotModelsView(undefined, catalogue).model).toEqual({ id: 'gpt-4o-mini', displayName: 'GPT-4o mini', provider: 'openai' });
  });

  it('shows an id the catalogue does not list as itself', () => {
    expect(chatbotModelsView(create(ModelChoiceSchema, { modelId: 'retired-model' }), catalogue).model).toEqual({
      id: 'retired-model',
      displayName: 'retired-model',
      provider: '',
    });
  });
});
