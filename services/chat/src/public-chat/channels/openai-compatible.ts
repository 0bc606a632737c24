// The developer API's OpenAI-compatible endpoint, POST /api/v1/openai/chat/completions: a
// developer API call in every rule but one, the history, which is the conversation the client
// sends with each call (its earlier user and assistant messages), fitted to the history budget.
import type { Channel } from './channel.ts';
import { developerApi } from './developer-api.ts';

export const openAICompatible: Channel = { ...developerApi, name: 'OpenAI-compatible', history: 'client' };
