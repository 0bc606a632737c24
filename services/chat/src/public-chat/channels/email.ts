// Email (docs/adr/0063-email-channel.md): a mail to the chatbot's inbound address, forwarded by
// Mailgun's signed webhook (or the development SMTP server) and answered by the channel worker. No
// browser sent it, so no site rules and no proof of work (Mailgun's signature authenticates it). The
// visitor is the mail thread, `email:{thread}`, for both limits; the kept turns are the history; the
// answer is sent whole as plain text, its [n] markers taken out and the cited sources listed after it
// as links.
import type { Channel } from './channel.ts';

export const email: Channel = {
  name: 'Email',
  siteRules: false,
  counted: true,
  proofOfWork: false,
  visitor: (input) => ({ rateLimited: input.visitorId, countedToday: input.visitorId }),
  history: 'kept',
  answer: { citations: 'links', streams: false },
  leadForm: false,
};
