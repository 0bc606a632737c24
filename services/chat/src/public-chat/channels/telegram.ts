// Telegram (docs/adr/0044-messaging-channels.md): a bot's update, verified by the gateway's webhook
// and the secret token Parley registered (X-Telegram-Bot-Api-Secret-Token), and answered by the
// channel worker. No browser sent it, so no site rules and no proof of work (the secret token
// authenticates Telegram). The visitor is the Telegram chat, `telegram:{chat id}`, for both limits
// (the address the gateway sees is Telegram's); the worker sets it as the visitor's id. The kept
// turns are the history; the answer is sent whole, its [n] markers taken out and the cited sources
// listed after it as links.
import type { Channel } from './channel.ts';

export const telegram: Channel = {
  name: 'Telegram',
  siteRules: false,
  counted: true,
  proofOfWork: false,
  visitor: (input) => ({ rateLimited: input.visitorId, countedToday: input.visitorId }),
  history: 'kept',
  answer: { citations: 'links', streams: false },
  leadForm: false,
};
