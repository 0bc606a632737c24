// The model a visitor's message is answered with, from the chatbot it is sent to: the router's route
// for the chatbot's ModelChoice, with the prompt's budgets fitted to the models' context windows, the
// output capped at what they may write, and the model whose price the credit hold is counted at.
import type { CatalogueModel } from '@parley/common/models/catalogue.ts';
import { answerCostUnits } from '@parley/common/models/catalogue.ts';
import type { Logger } from '@parley/common/logger.ts';
import { withFallback } from './fallback-model.ts';
import type { LanguageModel, ModelAnswer } from './language-model.ts';
import type { ModelChoice, ModelRouter, RoutedModel } from './model-router.ts';

/** The service's own upper bounds of a prompt (its environment): a model with a smaller window gets less. */
export interface PromptBounds {
  maxMessageChars: number;
  maxOutputTokens: number;
  promptKnowledgeChars: number;
  historyChars: number;
}

export interface ChosenModel {
  /** Answers with the chosen model, then once with its fallback (fallback-model.ts), its output capped at maxOutputTokens. */
  language: LanguageModel;
  primary: CatalogueModel;
  fallback: CatalogueModel | null;
  /** The prompt's budgets for these models, within the service's bounds. */
  knowledgeChars: number;
  historyChars: number;
  maxOutputTokens: number;
  /** The catalogue id whose price the hold is counted at: of the models that may answer, the dearer for this prompt. */
  holdModel(maxPromptTokens: number): string;
  /** Every model that may answer is called with the workspace's own key: the hold is billing's own-key fee, not the model's price. */
  ownKey: boolean;
}

/** A workspace's model router when it has own keys (provider-keys/own-key-routers.ts); null: the operator's. */
export type OwnKeyRouterOf = (ownerId: string) => Promise<ModelRouter | null>;

export interface ChatModels {
  /** Null when no model is offered: the chatbots answer in offline mode. */
  choose(chatbot: { model?: ModelChoice; ownerId?: string }): Promise<ChosenModel | null>;
  /** The model of what has no chatbot's choice (a conversation's summary); null offline. */
  defaultModel: RoutedModel | null;
}

/**
 * Characters a token stands for at the least when text is fitted to a context window: English runs
 * about four a token, other scripts fewer; two keeps a prompt of any of them inside the window.
 */
export const CHARS_PER_TOKEN = 2;
/**
 * Characters of a prompt besides its knowledge, history and the visitor's message: the product's
 * rules, the owner's instructions and no-answer message (build-prompt.ts bounds them), with room to spare.
 */
export const PROMPT_FIXED_CHARS = 8000;

/** The knowledge and history budgets for a window: the service's own when they fit, else shared out in the same proportion. */
export function fitToWindow(bounds: PromptBounds, contextWindow: number, maxOutputTokens: number) {
  const wanted = bounds.promptKnowledgeChars + bounds.historyChars;
  const room = Math.max(0, (contextWindow - maxOutputTokens) * CHARS_PER_TOKEN - PROMPT_FIXED_CHARS - bounds.maxMessageChars);
  if (room >= wanted) return { knowledgeChars: bounds.promptKnowledgeChars, historyChars: bounds.historyChars };
  const knowledgeChars = Math.floor((room * bounds.promptKnowledgeChars) / wanted);
  return { knowledgeChars, historyChars: room - knowledgeChars };
}

function chosenModel(primary: RoutedModel, fallback: RoutedModel | null, bounds: PromptBounds, logger: Logger): ChosenModel {
  const models = fallback ? [primary.model, fallback.model] : [primary.model];
  // The prompt must fit every model that may answer it.
  const maxOutputTokens = Math.min(bounds.maxOutputTokens, ...models.map((m) => m.maxOutputTokens));
  const contextWindow = Math.min(...models.map((m) => m.contextWindow));
  const answering = fallback ? withFallback(primary, fallback, logger) : primary.language;
  const capped = (maxTokens: number) => Math.min(maxTokens, maxOutputTokens);
  // The answer says whether the model that gave it ran on the workspace's own key.
  const withKey = (answer: ModelAnswer): ModelAnswer => ({
    ...answer,
    ownKey: (answer.fallback && fallback ? fallback : primary).ownKey,
  });
  return {
    language: {
      complete: (req) => answering.complete({ ...req, maxTokens: capped(req.maxTokens) }).then(withKey),
      stream: (req, onDelta) => answering.stream({ ...req, maxTokens: capped(req.maxTokens) }, onDelta).then(withKey),
    },
    primary: primary.model,
    fallback: fallback?.model ?? null,
    ...fitToWindow(bounds, contextWindow, maxOutputTokens),
    maxOutputTokens,
    holdModel(maxPromptTokens) {
      if (!fallback) return primary.model.id;
      const dearer =
        answerCostUnits(fallback.model, maxPromptTokens, maxOutputTokens) >
        answerCostUnits(primary.model, maxPromptTokens, maxOutputTokens);
      return dearer ? fallback.model.id : primary.model.id;
    },
    ownKey: primary.ownKey && (fallback?.ownKey ?? true),
  };
}

export function chatModels(router: ModelRouter, bounds: PromptBounds, logger: Logger, ownKeyRouterOf?: OwnKeyRouterOf): ChatModels {
  // One ChosenModel per router and pair of models, made at its first message: at most offered² of
  // them per router (a workspace's router lives as long as its cache entry).
  const chosenOf = new WeakMap<ModelRouter, Map<string, ChosenModel>>();
  return {
    defaultModel: router.defaultModel,
    async choose(chatbot) {
      const routing = (ownKeyRouterOf && chatbot.ownerId ? await ownKeyRouterOf(chatbot.ownerId) : null) ?? router;
      const route = routing.route(chatbot.model);
      if (!route) return null;
      let chosen = chosenOf.get(routing);
      if (!chosen) chosenOf.set(routing, (chosen = new Map()));
      const key = `${route.primary.model.id}\n${route.fallback?.model.id ?? ''}`;
      let model = chosen.get(key);
      if (!model) {
        model = chosenModel(route.primary, route.fallback, bounds, logger);
        chosen.set(key, model);
      }
      return model;
    },
  };
}

/** Every chatbot answered by one given model, as the catalogue model `model` (for tests of the turn). */
export function oneModel(language: LanguageModel, model: CatalogueModel, bounds: PromptBounds, logger: Logger): ChatModels {
  const routed = { model, language, ownKey: false };
  const router: ModelRouter = {
    offered: { models: [model], defaultModel: model, find: (id) => (id === model.id ? model : undefined) },
    defaultModel: routed,
    route: () => ({ primary: routed, fallback: null }),
  };
  return chatModels(router, bounds, logger);
}

/** No model: every chatbot answers in offline mode. */
export const noModels: ChatModels = { choose: async () => null, defaultModel: null };
