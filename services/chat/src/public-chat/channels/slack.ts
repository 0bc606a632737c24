// Slack (docs/adr/0057-slack-channel.md): an Events API event, signed by Slack with the app's
// signing secret and verified by the chat service, answered by the channel worker. No browser sent
// it, so no site rules and no proof of work (the signature authenticates Slack). The visitor is the
// Slack conversation, `slack:{channel}:{thread}`, for both limits; the kept turns are the history;
// the answer is sent whole, its [n] markers taken out and the cited sources listed after it as links.
import type { Channel } from './channel.ts';

export const slack: Channel = {
  name: 'Slack',
  siteRules: false,
  counted: true,
  proofOfWork: false,
  visitor: (input) => ({ rateLimited: input.visitorId, countedToday: input.visitorId }),
  history: 'kept',
  answer: { citations: 'links', streams: false },
  leadForm: false,
};
