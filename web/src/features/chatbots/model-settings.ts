// The Model card's words and choices (docs/product.md, The model): each offered model as an option
// with its provider and the price of a typical answer; a model the plan does not allow is listed,
// disabled, with "(Pro)", so a free owner sees what Pro adds. The server decides which are allowed.
import type { ModelsQuery } from '../../gql/graphql';

export type OfferedModel = ModelsQuery['models'][number];

export const NO_FALLBACK = '';
export const NO_MODELS_MESSAGE = 'No models are offered here: answers quote your knowledge base.';
export const LOAD_MODELS_FAILED_MESSAGE = 'Failed to load the models';

const PROVIDER_NAMES: Record<string, string> = { openai: 'OpenAI', anthropic: 'Anthropic', gemini: 'Google' };

/** "OpenAI"; a provider the page does not know reads as sent. */
export const providerName = (provider: string) => PROVIDER_NAMES[provider] ?? provider;

/** "GPT-4o mini · OpenAI · $0.00048 per typical answer", "(Pro)" after one the plan does not allow. */
export function modelOptionLabel(model: OfferedModel): string {
  const label = `${model.displayName} · ${providerName(model.provider)} · $${model.typicalAnswerCost} per typical answer`;
  return model.allowed ? label : `${label} (Pro)`;
}

/** The chosen model and fallback as the form holds them: ids, NO_FALLBACK for none. */
export interface ModelChoiceForm {
  modelId: string;
  fallbackModelId: string;
}

export function modelChoiceForm(chatbot: { model: { id: string }; fallbackModel?: { id: string } | null }): ModelChoiceForm {
  return { modelId: chatbot.model.id, fallbackModelId: chatbot.fallbackModel?.id ?? NO_FALLBACK };
}

/**
 * The model select's options: every offered model, and the chatbot's own when it is not offered
 * (its provider was removed), so the select never shows another model than the one answering.
 */
export function modelOptions(models: readonly OfferedModel[], current: { id: string; displayName: string }) {
  const options = models.map((m) => ({ value: m.id, label: modelOptionLabel(m), disabled: !m.allowed }));
  return models.some((m) => m.id === current.id)
    ? options
    : [{ value: current.id, label: `${current.displayName} (no longer offered)`, disabled: true }, ...options];
}

/** The fallback select's options: none first, then every offered model but the one chosen. */
export function fallbackOptions(models: readonly OfferedModel[], modelId: string) {
  return [
    { value: NO_FALLBACK, label: 'No fallback' },
    ...models.filter((m) => m.id !== modelId).map((m) => ({ value: m.id, label: modelOptionLabel(m), disabled: !m.allowed })),
  ];
}

/** What the save sends: only what changed, so an unchanged model the plan no longer allows is not refused. */
export function modelChoiceInput(saved: ModelChoiceForm, form: ModelChoiceForm): { modelId?: string; fallbackModelId?: string } {
  const fallbackModelId = form.fallbackModelId === form.modelId ? NO_FALLBACK : form.fallbackModelId;
  return {
    ...(form.modelId !== saved.modelId ? { modelId: form.modelId } : {}),
    ...(fallbackModelId !== saved.fallbackModelId ? { fallbackModelId } : {}),
  };
}
