// Which model gave a stored answer, as the owner reads it in a conversation's detail (History and
// the inbox): the model and fallback flag the exchange keeps with its usage (conversation-store.ts),
// named as the catalogue names the model today. Never put on a visitor's stream.
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';

export interface AnsweredBy {
  model: { id: string; displayName: string; provider: string };
  /** The chatbot's chosen model failed before its first token and this is its fallback. */
  fallback: boolean;
}

/** The catalogue the names come from: its model of an id, or undefined for one it no longer lists. */
export type ModelNames = Pick<ModelCatalogue, 'find'>;

/** From a message's stored usage (null for every message no model wrote); a model the catalogue no longer lists is named by its id. */
export function answeredBy(usage: unknown, names: ModelNames): AnsweredBy | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const { model, provider, fallback } = usage as { model?: unknown; provider?: unknown; fallback?: unknown };
  if (typeof model !== 'string' || !model) return null;
  const listed = names.find(model);
  return {
    model: {
      id: model,
      displayName: listed?.displayName ?? model,
      provider: typeof provider === 'string' && provider ? provider : (listed?.provider ?? ''),
    },
    fallback: fallback === true,
  };
}
