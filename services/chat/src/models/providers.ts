// Where each provider is reached, from the chat service's environment: a provider is configured when
// its key is set, and only a configured provider's models are offered (docs/adr/0039-the-model-layer.md).
import type { Provider } from '@parley/common/models/catalogue.ts';
import type { ChatConfig } from '../config.ts';

export interface ProviderEndpoint {
  apiKey: string;
  /** The SDK's base URL: OpenAI's ends in /v1, Anthropic's and Gemini's are the host alone. */
  baseURL: string;
  /** The workspace's own key, not the operator's: its answers cost no credit (docs/adr/0043-own-provider-keys.md). */
  ownKey?: boolean;
}

export type ProviderEndpoints = Partial<Record<Provider, ProviderEndpoint>>;

type ProviderSettings = Pick<
  ChatConfig,
  'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'ANTHROPIC_API_KEY' | 'ANTHROPIC_BASE_URL' | 'GEMINI_API_KEY' | 'GEMINI_BASE_URL'
>;

export function providerEndpoints(config: ProviderSettings): ProviderEndpoints {
  const endpoints: ProviderEndpoints = {};
  if (config.OPENAI_API_KEY) endpoints.openai = { apiKey: config.OPENAI_API_KEY, baseURL: config.OPENAI_BASE_URL };
  if (config.ANTHROPIC_API_KEY) endpoints.anthropic = { apiKey: config.ANTHROPIC_API_KEY, baseURL: config.ANTHROPIC_BASE_URL };
  if (config.GEMINI_API_KEY) endpoints.gemini = { apiKey: config.GEMINI_API_KEY, baseURL: config.GEMINI_BASE_URL };
  return endpoints;
}

/**
 * The operator's endpoints with a workspace's own keys in place of the operator's: at the same base
 * URL, for the providers the operator offers only (a provider the operator has no key for stays
 * unoffered). Null when no own key applies.
 */
export function withOwnKeys(operator: ProviderEndpoints, ownKeys: Partial<Record<Provider, string>>): ProviderEndpoints | null {
  const endpoints: ProviderEndpoints = { ...operator };
  let applied = false;
  for (const [provider, apiKey] of Object.entries(ownKeys) as [Provider, string][]) {
    const endpoint = operator[provider];
    if (!endpoint) continue;
    endpoints[provider] = { apiKey, baseURL: endpoint.baseURL, ownKey: true };
    applied = true;
  }
  return applied ? endpoints : null;
}
