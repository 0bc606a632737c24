// From the catalogue and the service's environment, one client per configured provider and one
// adapter per offered model; for a chatbot's ModelChoice, the models that answer it: its model when
// offered, else the default (an unknown id is logged once), and its fallback when set and offered
// (docs/adr/0039-the-model-layer.md).
import type { CatalogueModel, ModelCatalogue, Provider } from '@parley/common/models/catalogue.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { AdapterContext, LanguageModel } from './language-model.ts';
import { offeredModels, type OfferedModels } from './offered-models.ts';
import { openAIClient, openAIModel } from './openai-model.ts';
import { anthropicAdapterOf, geminiAdapterOf } from './provider-sdks.ts';
import type { ProviderEndpoint, ProviderEndpoints } from './providers.ts';

/** A catalogue model and the adapter that calls it. */
export interface RoutedModel {
  model: CatalogueModel;
  language: LanguageModel;
  /** Called with the workspace's own key (providers.ts withOwnKeys): its answers cost no credit. */
  ownKey: boolean;
}

/** What a chatbot stores of its model (PublicChatbot.model); empty ids: the default, no fallback. */
export interface ModelChoice {
  modelId: string;
  fallbackModelId: string;
}

export interface Route {
  primary: RoutedModel;
  /** Tried once when the primary fails before its first token; null: none. */
  fallback: RoutedModel | null;
}

export interface ModelRouter {
  offered: OfferedModels;
  /** The default model's route, for what has no chatbot's choice (a conversation's summary); null: nothing offered. */
  defaultModel: RoutedModel | null;
  /** The models answering a chatbot of this choice; null when nothing is offered (offline mode). */
  route(choice: ModelChoice | undefined): Route | null;
}

export interface ModelRouterOptions {
  catalogue: ModelCatalogue;
  endpoints: ProviderEndpoints;
  /** The deadline of one answer, for every provider (OPENAI_TIMEOUT_MS). */
  timeoutMs: number;
  /** OPENAI_MODEL: the provider's name of the catalogue's default model, when it is an OpenAI-protocol one. */
  defaultProviderModel?: string;
  logger: Logger;
  /**
   * Whether to warn about the operator's configuration (OPENAI_MODEL ignored, the default without a
   * key): true for the deployment's router, built once at start; a workspace's own-key router is
   * built from the same configuration on its first message and would only repeat them.
   */
  configurationWarnings?: boolean;
}

/** Unknown ids logged once each, at most this many (a bound against ids nobody should be storing). */
const UNKNOWN_IDS_LOGGED = 1000;

type Adapter = (ctx: AdapterContext) => LanguageModel;

function adapterOf(provider: Provider, endpoint: ProviderEndpoint, timeoutMs: number): Adapter {
  switch (provider) {
    case 'openai': {
      const client = openAIClient(endpoint, timeoutMs);
      return (ctx) => openAIModel(client, ctx);
    }
    // Their SDKs are loaded at the first answer (provider-sdks.ts).
    case 'anthropic':
      return anthropicAdapterOf(endpoint, timeoutMs);
    case 'gemini':
      return geminiAdapterOf(endpoint, timeoutMs);
  }
}

export function modelRouter(opts: ModelRouterOptions): ModelRouter {
  const { catalogue, endpoints, timeoutMs, logger } = opts;
  const warnOfConfiguration = opts.configurationWarnings ?? true;
  const offered = offeredModels(catalogue, endpoints);
  const adapters = new Map<Provider, Adapter>();
  for (const [provider, endpoint] of Object.entries(endpoints) as [Provider, ProviderEndpoint][])
    adapters.set(provider, adapterOf(provider, endpoint, timeoutMs));

  if (warnOfConfiguration && opts.defaultProviderModel && catalogue.defaultModel.provider !== 'openai')
    logger.warn(
      { model: catalogue.defaultModel.id },
      "OPENAI_MODEL is ignored: the catalogue's default model is not an OpenAI-protocol one",
    );
  const providerModelOf = (m: CatalogueModel) =>
    m.id === catalogue.defaultModel.id && m.provider === 'openai' && opts.defaultProviderModel
      ? opts.defaultProviderModel
      : (m.providerModel ?? m.id);

  const routed = new Map<string, RoutedModel>(
    offered.models.map((model) => [
      model.id,
      {
        model,
        language: adapters.get(model.provider)!({ model, providerModel: providerModelOf(model), timeoutMs }),
        ownKey: endpoints[model.provider]?.ownKey === true,
      },
    ]),
  );
  const defaultModel = offered.defaultModel ? routed.get(offered.defaultModel.id)! : null;
  if (warnOfConfiguration && offered.defaultModel && offered.defaultModel.id !== catalogue.defaultModel.id)
    logger.warn(
      { catalogueDefault: catalogue.defaultModel.id, default: offered.defaultModel.id },
      "the catalogue's default model has no provider key: chatbots without an offered choice answer with another",
    );

  const unknownLogged = new Set<string>();
  const lookup = (id: string): RoutedModel | undefined => {
    if (!id) return undefined;
    const found = routed.get(id);
    if (!found && !unknownLogged.has(id) && unknownLogged.size < UNKNOWN_IDS_LOGGED) {
      unknownLogged.add(id);
      logger.warn(
        { model: id.slice(0, 100) },
        'a chatbot names a model this deployment does not offer: the default answers in its place (as a fallback: none)',
      );
    }
    return found;
  };

  return {
    offered,
    defaultModel,
    route(choice) {
      if (!defaultModel) return null;
      const primary = lookup(choice?.modelId ?? '') ?? defaultModel;
      const fallback = lookup(choice?.fallbackModelId ?? '') ?? null;
      return { primary, fallback: fallback && fallback.model.id !== primary.model.id ? fallback : null };
    },
  };
}
