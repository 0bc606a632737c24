// Parley's own chat page, /chat/{uniqueId}: a browser, so the chatbot's site rules and proof of
// work apply; the visitor is their address and their conversation's session, whose kept turns are
// the history; the answer streams, its sources cited by [n] markers.
import type { Channel } from './channel.ts';

export const publicPage: Channel = {
  name: 'public page',
  siteRules: true,
  counted: true,
  proofOfWork: true,
  visitor: (input) => ({ rateLimited: input.clientIp, countedToday: input.clientIp }),
  history: 'kept',
  answer: { citations: 'markers', streams: true },
  leadForm: true,
};
