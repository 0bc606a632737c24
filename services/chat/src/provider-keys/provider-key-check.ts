// A key is checked before it is stored, with one cheap call through the provider's SDK at the
// provider's configured base URL (the first page of its models): a key the provider refuses is never
// stored. Neither the key nor the provider's words about it leave this file: the owner reads one of
// two fixed messages.
import { failedPrecondition, unavailableToUser } from '@parley/common/rpc-errors.ts';
import type { Provider } from '@parley/common/models/catalogue.ts';
import { LanguageModelError } from '../models/language-model.ts';
import { checkOpenAIKey, openAIClient } from '../models/openai-model.ts';
import type { ProviderEndpoint } from '../models/providers.ts';
import { anthropicAdapter, geminiAdapter } from '../models/provider-sdks.ts';

export const KEY_REFUSED = 'The provider refused this key.';
export const PROVIDER_UNREACHABLE = 'The provider could not be reached to check this key; try again later.';

export type KeyCheck = (provider: Provider, endpoint: ProviderEndpoint) => Promise<void>;

export function providerKeyCheck(timeoutMs: number): KeyCheck {
  return async (provider, endpoint) => {
    try {
      switch (provider) {
        case 'openai':
          return await checkOpenAIKey(openAIClient(endpoint, timeoutMs));
        case 'anthropic': {
          const sdk = await anthropicAdapter();
          return await sdk.checkAnthropicKey(sdk.anthropicClient(endpoint, timeoutMs));
        }
        case 'gemini': {
          const sdk = await geminiAdapter();
          return await sdk.checkGeminiKey(sdk.geminiClient(endpoint, timeoutMs));
        }
      }
    } catch (err) {
      // Google answers a malformed or unknown key 400 "API key not valid", the others 401 or 403.
      const refused =
        err instanceof LanguageModelError &&
        (err.kind === 'auth' || (provider === 'gemini' && err.kind === 'bad_request' && /api key/i.test(err.message)));
      if (refused) throw failedPrecondition(KEY_REFUSED);
      throw unavailableToUser(PROVIDER_UNREACHABLE);
    }
  };
}
