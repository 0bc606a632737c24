// SMS (docs/adr/0070-sms-channel.md): a text message Twilio posted to the gateway's webhook, signed
// under the owner's Auth Token (X-Twilio-Signature), and answered by the channel worker. No browser
// sent it, so no site rules and no proof of work (the signature authenticates Twilio). The visitor is
// the phone number, `sms:{E.164}`, for both limits (the address the gateway sees is Twilio's). The
// kept turns are the history; the answer is sent whole, its [n] markers taken out and the cited
// sources listed after it as plain lines.
import type { Channel } from './channel.ts';

export const sms: Channel = {
  name: 'SMS',
  siteRules: false,
  counted: true,
  proofOfWork: false,
  visitor: (input) => ({ rateLimited: input.visitorId, countedToday: input.visitorId }),
  history: 'kept',
  answer: { citations: 'links', streams: false },
  leadForm: false,
};
