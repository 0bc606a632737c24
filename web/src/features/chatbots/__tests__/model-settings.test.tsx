import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { graphqlError, type Handler } from '../../../test/mock-link';
import { fallbackOptions, modelChoiceInput, modelOptionLabel, modelOptions, NO_MODELS_MESSAGE } from '../model-settings';
import { detailChatbot, FREE_PLAN_MODELS, openDetail, sampleModel } from './detail-page-fixtures';

const named = (id: string) => FREE_PLAN_MODELS.find((m) => m.id === id)!;

// The answer of UpdateChatbotModel as the gateway gives it: the chatbot with the chosen models, named.
const saveAnswer: Handler = ({ variables }) => {
  const { modelId, fallbackModelId } = variables.input as { modelId?: string; fallbackModelId?: string };
  const ref = (id: string) => ({ __typename: 'ChatbotModel', id, displayName: named(id).displayName, provider: named(id).provider });
  return {
    data: {
      updateChatbot: detailChatbot({
        model: ref(modelId ?? 'gpt-4o-mini'),
        fallbackModel: fallbackModelId ? ref(fallbackModelId) : null,
        updatedAt: '2025-05-01T00:00:00.000Z',
      }),
    },
  };
};

async function modelCard() {
  const heading = await screen.findByRole('heading', { name: 'Model' });
  const card = within(heading.closest('.rounded-2xl') as HTMLElement);
  await card.findByLabelText('Model');
  return card;
}

const saves = (calls: ReturnType<typeof openDetail>['calls']) => calls.filter((c) => c.operationName === 'UpdateChatbotModel');

describe('the Model options', () => {
  it('name the model, its provider and a typical answer’s price, "(Pro)" after one the plan does not allow', () => {
    expect(modelOptionLabel(named('gpt-4o-mini'))).toBe('GPT-4o mini · OpenAI · $0.00048 per typical answer');
    expect(modelOptionLabel(named('claude-sonnet-4-5'))).toBe('Claude Sonnet 4.5 · Anthropic · $0.0105 per typical answer (Pro)');
    expect(modelOptions(FREE_PLAN_MODELS, named('gpt-4o-mini')).map((o) => o.disabled)).toEqual([false, false, true]);
  });

  it("keep a chatbot's model that is no longer offered, disabled, so the select shows what answers", () => {
    const options = modelOptions(FREE_PLAN_MODELS, { id: 'gemini-2.5-pro', displayName: 'Gemini 2.5 Pro' });
    expect(options[0]).toEqual({ value: 'gemini-2.5-pro', label: 'Gemini 2.5 Pro (no longer offered)', disabled: true });
  });

  it('offer no fallback first, then every model but the chosen one', () => {
    expect(fallbackOptions(FREE_PLAN_MODELS, 'gpt-4o-mini').map((o) => o.value)).toEqual(['', 'claude-haiku-4-5', 'claude-sonnet-4-5']);
  });

  it('send only what changed, and no fallback equal to the model', () => {
    const saved = { modelId: 'gpt-4o', fallbackModelId: '' };
    expect(modelChoiceInput(saved, saved)).toEqual({});
    expect(modelChoiceInput(saved, { modelId: 'gpt-4o', fallbackModelId: 'claude-haiku-4-5' })).toEqual({
      fallbackModelId: 'claude-haiku-4-5',
    });
    expect(modelChoiceInput({ modelId: 'a', fallbackModelId: 'b' }, { modelId: 'b', fallbackModelId: 'b' })).toEqual({
      modelId: 'b',
      fallbackModelId: '',
    });
  });
});

describe('Model settings', () => {
  it('shows the chatbot’s model and saves another with a fallback', async () => {
    const { calls } = openDetail(undefined, { UpdateChatbotModel: saveAnswer });
    const card = await modelCard();
    const model = card.getByLabelText('Model') as HTMLSelectElement;
    expect(model.value).toBe('gpt-4o-mini');
    expect([...model.options].map((o) => [o.textContent, o.disabled])).toEqual([
      ['GPT-4o mini · OpenAI · $0.00048 per typical answer', false],
      ['Claude Haiku 4.5 · Anthropic · $0.0035 per typical answer', false],
      ['Claude Sonnet 4.5 · Anthropic · $0.0105 per typical answer (Pro)', true],
    ]);
    expect((card.getByLabelText('Fallback') as HTMLSelectElement).value).toBe('');
    expect(card.getByRole('link', { name: 'Upgrade to Pro' }).getAttribute('href')).toBe('/pricing');

    fireEvent.change(model, { target: { value: 'claude-haiku-4-5' } });
    fireEvent.change(card.getByLabelText('Fallback'), { target: { value: 'gpt-4o-mini' } });
    fireEvent.click(card.getByRole('button', { name: 'Save Model' }));

    expect(await card.findByText('Chatbot updated successfully')).toBeTruthy();
    expect(saves(calls)[0].variables).toEqual({ id: 'c1', input: { modelId: 'claude-haiku-4-5', fallbackModelId: 'gpt-4o-mini' } });
    expect((card.getByLabelText('Model') as HTMLSelectElement).value).toBe('claude-haiku-4-5');
    expect((card.getByLabelText('Fallback') as HTMLSelectElement).value).toBe('gpt-4o-mini');
  });

  it('shows no Pro hint when the plan allows every model', async () => {
    openDetail(undefined, { Models: () => ({ data: { models: FREE_PLAN_MODELS.map((m) => ({ ...m, allowed: true })) } }) });
    const card = await modelCard();
    expect(card.queryByRole('link', { name: 'Upgrade to Pro' })).toBeNull();
    const model = card.getByLabelText('Model') as HTMLSelectElement;
    expect([...model.options].every((o) => !o.disabled)).toBe(true);
  });

  it("shows the server's refusal", async () => {
    openDetail(undefined, {
      Models: () => ({ data: { models: [...FREE_PLAN_MODELS, sampleModel('gpt-4.1-mini', 'GPT-4.1 mini', 'openai', '0.00128')] } }),
      UpdateChatbotModel: () => graphqlError('Unknown model: gpt-4.1-mini', 'BAD_USER_INPUT'),
    });
    const card = await modelCard();
    fireEvent.change(card.getByLabelText('Model'), { target: { value: 'gpt-4.1-mini' } });
    fireEvent.click(card.getByRole('button', { name: 'Save Model' }));
    expect((await card.findByRole('alert')).textContent).toBe('Unknown model: gpt-4.1-mini');
  });

  it('says so when the deployment offers no model', async () => {
    openDetail(undefined, { Models: () => ({ data: { models: [] } }) });
    const heading = await screen.findByRole('heading', { name: 'Model' });
    const card = within(heading.closest('.rounded-2xl') as HTMLElement);
    expect(await card.findByText(NO_MODELS_MESSAGE)).toBeTruthy();
    expect(card.queryByRole('button', { name: 'Save Model' })).toBeNull();
  });

  it('is a section of the Settings tab with its own address', async () => {
    openDetail();
    await modelCard();
    const nav = screen.getAllByRole('navigation', { name: 'Settings sections' })[0];
    expect(within(nav).getByRole('link', { name: 'Model' }).getAttribute('href')).toBe('#settings-model');
  });
});
