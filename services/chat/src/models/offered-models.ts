// The catalogue's models this deployment offers: those of a configured provider, in the catalogue's
// order. The default is the catalogue's when its provider is configured, else the first offered
// model of the free plan (else the first offered), so a deployment with only some keys still gives
// every chatbot a model; with no key at all nothing is offered and the chatbots answer offline.
import type { CatalogueModel, ModelCatalogue } from '@parley/common/models/catalogue.ts';
import type { ProviderEndpoints } from './providers.ts';

export interface OfferedModels {
  models: readonly CatalogueModel[];
  /** The model a chatbot without an offered choice answers with; null when nothing is offered. */
  defaultModel: CatalogueModel | null;
  /** The offered model of this id, or undefined. */
  find(id: string): CatalogueModel | undefined;
}

export function offeredModels(catalogue: ModelCatalogue, endpoints: ProviderEndpoints): OfferedModels {
  const models = catalogue.models.filter((m) => endpoints[m.provider] !== undefined);
  const byId = new Map(models.map((m) => [m.id, m]));
  const defaultModel = byId.get(catalogue.defaultModel.id) ?? models.find((m) => m.plans.includes('free')) ?? models[0] ?? null;
  return { models, defaultModel, find: (id) => byId.get(id) };
}
