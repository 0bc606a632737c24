// A chatbot's model choice (docs/product.md, The model): which catalogue model answers its
// visitors and which one is tried once when that one fails before its first token. The row stores
// catalogue ids, null for none; no model stored is the catalogue's default, so a new chatbot follows
// the operator's default. Pure: which of the catalogue's models a workspace may choose (offered by
// this deployment, allowed on its plan) is decided before the change reaches this service (ADR 42).
import { invalid } from '@parley/common/rpc-errors.ts';
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';

export const FALLBACK_SAME_AS_MODEL = 'The fallback model must be a different model from the one that answers.';

/** An id longer than any catalogue id is not echoed back. */
const MAX_ECHOED_ID_CHARS = 100;

export function unknownModel(id: string): string {
  const printable = id.length <= MAX_ECHOED_ID_CHARS && /^[\x20-\x7e]*$/.test(id);
  return printable ? `Unknown model: ${id}` : 'Unknown model';
}

/** The proto's ModelChoiceChange: only the fields present change; an empty fallback is none. */
export interface ModelChoiceChangeInput {
  modelId?: string;
  fallbackModelId?: string;
}

/** The row's columns as stored. */
export interface StoredModelChoice {
  modelId: string | null;
  fallbackModelId: string | null;
}

/** The choice as every reader sees it: the model that answers, never empty, and its fallback ('' for none). */
export interface ModelChoice {
  modelId: string;
  fallbackModelId: string;
}

/**
 * The stored choice as it answers: a model the catalogue no longer lists reads as its default, a
 * fallback it no longer lists as none (the catalogue is the operator's, and may change under a row).
 */
export function modelChoiceOf(stored: StoredModelChoice, catalogue: ModelCatalogue): ModelChoice {
  const model = (stored.modelId && catalogue.find(stored.modelId)) || catalogue.defaultModel;
  const fallback = stored.fallbackModelId ? catalogue.find(stored.fallbackModelId) : undefined;
  return { modelId: model.id, fallbackModelId: fallback && fallback.id !== model.id ? fallback.id : '' };
}

/** A catalogue id as typed; '' stays '' (none). */
function parseModelId(raw: string, catalogue: ModelCatalogue): string {
  const id = raw.trim();
  if (id && !catalogue.find(id)) throw invalid(unknownModel(id));
  return id;
}

/**
 * The columns a change sets (undefined: unchanged), from the row as it is. An empty model id goes
 * back to the catalogue's default (nothing stored). Refuses an id the catalogue does not list and a
 * fallback that is the model itself, as the change leaves them.
 */
export function applyModelChoiceChange(
  change: ModelChoiceChangeInput | undefined,
  current: StoredModelChoice,
  catalogue: ModelCatalogue,
): Partial<StoredModelChoice> {
  if (!change || (change.modelId === undefined && change.fallbackModelId === undefined)) return {};
  const modelId = change.modelId === undefined ? undefined : parseModelId(change.modelId, catalogue) || null;
  const fallbackModelId = change.fallbackModelId === undefined ? undefined : parseModelId(change.fallbackModelId, catalogue) || null;
  const answering = (modelId === undefined ? current.modelId : modelId) ?? catalogue.defaultModel.id;
  const fallback = fallbackModelId === undefined ? current.fallbackModelId : fallbackModelId;
  if (fallback === answering) throw invalid(FALLBACK_SAME_AS_MODEL);
  return { modelId, fallbackModelId };
}
