// Messenger (docs/adr/0056-meta-channels.md): a message Meta posted to the gateway's webhook, signed
// under the owner's app secret (X-Hub-Signature-256), and answered by the channel worker. No browser
// sent it, so no site rules and no proof of work (the signature authenticates Meta). The visitor is
// the page-scoped user, `messenger:{psid}`, for both limits (the address the gateway sees is Meta's). The kept turns are the history;
// the answer is sent whole, its [n] markers taken out and the cited sources listed after it as links.
import type { Channel } from './channel.ts';

export const messenger: Channel = {
  name: 'Messenger',
  siteRules: false,
  counted: true,
  proofOfWork: false,
  visitor: (input) => ({ rateLimited: input.visitorId, countedToday: input.visitorId }),
  history: 'kept',
  answer: { citations: 'links', streams: false },
  leadForm: false,
};
