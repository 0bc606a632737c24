// The adapters of the providers most deployments do not use, loaded with the first answer or key
// check that needs them, not when the chat service starts: Anthropic's SDK (≈ 270 modules) and
// Google's (`@google/genai` with google-auth-library and ws, ≈ 60) held ≈ 3 MB of sources and
// their compiled code in every process (docs/adr/0068-memory-at-rest.md). The
// `openai` SDK is not here: every answer of the default catalogue uses it.
import type * as AnthropicAdapter from './anthropic-model.ts';
import type * as GeminiAdapter from './gemini-model.ts';
import type { AdapterContext, LanguageModel } from './language-model.ts';
import type { ProviderEndpoint } from './providers.ts';

let anthropic: Promise<typeof AnthropicAdapter> | undefined;
let gemini: Promise<typeof GeminiAdapter> | undefined;

export const anthropicAdapter = () => (anthropic ??= import('./anthropic-model.ts'));
export const geminiAdapter = () => (gemini ??= import('./gemini-model.ts'));

/** A model whose adapter is built at its first call, and kept. */
function deferredModel(build: () => Promise<LanguageModel>): LanguageModel {
  let model: Promise<LanguageModel> | undefined;
  const built = () => (model ??= build());
  return {
    complete: async (req) => (await built()).complete(req),
    stream: async (req, onDelta) => (await built()).stream(req, onDelta),
  };
}

/** An Anthropic endpoint's adapter: the SDK loaded, and the endpoint's one client built, at its first answer. */
export function anthropicAdapterOf(endpoint: ProviderEndpoint, timeoutMs: number): (ctx: AdapterContext) => LanguageModel {
  let loaded: Promise<{ sdk: typeof AnthropicAdapter; client: ReturnType<typeof AnthropicAdapter.anthropicClient> }> | undefined;
  const load = () => (loaded ??= anthropicAdapter().then((sdk) => ({ sdk, client: sdk.anthropicClient(endpoint, timeoutMs) })));
  return (ctx) =>
    deferredModel(async () => {
      const { sdk, client } = await load();
      return sdk.anthropicModel(client, ctx);
    });
}

/** A Gemini endpoint's adapter: the SDK loaded, and the endpoint's one client built, at its first answer. */
export function geminiAdapterOf(endpoint: ProviderEndpoint, timeoutMs: number): (ctx: AdapterContext) => LanguageModel {
  let loaded: Promise<{ sdk: typeof GeminiAdapter; client: ReturnType<typeof GeminiAdapter.geminiClient> }> | undefined;
  const load = () => (loaded ??= geminiAdapter().then((sdk) => ({ sdk, client: sdk.geminiClient(endpoint, timeoutMs) })));
  return (ctx) =>
    deferredModel(async () => {
      const { sdk, client } = await load();
      return sdk.geminiModel(client, ctx);
    });
}
