// The developer API's chat, POST /api/v1/chatbots/{id}/chat (docs/adr/0033-developer-api.md): the
// gateway checked the key, and a server calls rather than a browser, so the site rules and proof
// of work do not apply. The key is one visitor of the per-minute rate limit, whatever addresses its
// calls come from; the visitor limit still counts by address. The conversation's kept turns are
// the history; the answer streams when asked, cited by [n] markers.
import type { Channel } from './channel.ts';

export const developerApi: Channel = {
  name: 'developer API',
  siteRules: false,
  counted: true,
  proofOfWork: false,
  visitor: (input) => ({ rateLimited: `key:${input.apiKeyId ?? ''}`, countedToday: input.clientIp }),
  history: 'kept',
  answer: { citations: 'markers', streams: true },
  leadForm: true,
};
