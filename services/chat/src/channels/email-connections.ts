// Connecting a chatbot to email (docs/adr/0063-email-channel.md). Parley gives the chatbot an
// inbound address, `bot-{80 random bits}@{EMAIL_INBOUND_DOMAIN}`, which the owner's mail is
// forwarded to and the answers come From; the operator's Mailgun route for that domain forwards
// each mail to the connection's webhook. The owner gives the Mailgun webhook signing key (its shape
// checked; Mailgun has no call to check it with), sealed as Slack's signing secret is and shown
// again only by its last four characters. Email has no provider token: the token's column seals the
// inbound address, which is no secret (the webhook's signature, not the address, authenticates).
import { randomUUID } from 'node:crypto';
import { isUuid } from '@parley/common/ids.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import {
  alreadyConnected,
  connectionView,
  sealSigningSecret,
  sealToken,
  type ChannelConnectionView,
  type ConnectInput,
  type ConnectionDeps,
} from './connections.ts';
import { inboundLocalPart, MAILGUN_SIGNING_KEY_SHAPE } from './email.ts';

export const EMAIL_KEY_SHAPE_INVALID = "The signing key must be Mailgun's HTTP webhook signing key (Sending → Webhooks).";
export const EMAIL_NOT_CONFIGURED = 'Email is not set up on this Parley: the operator has no inbound mail domain.';
export const EMAIL_LABEL = 'email';

export async function connectEmail(deps: ConnectionDeps, input: ConnectInput): Promise<ChannelConnectionView> {
  if (!isUuid(input.chatbotId) || !input.uniqueId) throw invalid('chatbot_id and unique_id are required.');
  const signingKey = (input.signingSecret || input.token || '').trim();
  if (!MAILGUN_SIGNING_KEY_SHAPE.test(signingKey)) throw invalid(EMAIL_KEY_SHAPE_INVALID);
  if (!deps.emailDomain) throw invalid(EMAIL_NOT_CONFIGURED);
  const existing = await deps.db.channelConnection.findUnique({
    where: { chatbotId_channel: { chatbotId: input.chatbotId, channel: 'email' } },
  });
  if (existing) throw alreadyConnected(EMAIL_LABEL);
  const id = randomUUID();
  const address = `${inboundLocalPart()}@${deps.emailDomain}`;
  const row = await deps.db.channelConnection
    .create({
      data: {
        id,
        ownerId: input.ownerId,
        chatbotId: input.chatbotId,
        uniqueId: input.uniqueId,
        channel: 'email',
        tokenCiphertext: sealToken(deps.ciphers, id, address),
        tokenLastFour: signingKey.slice(-4),
        secretHash: '',
        signingSecretCiphertext: sealSigningSecret(deps.ciphers, id, signingKey),
        accountId: address,
        botName: address,
      },
    })
    .catch((err: { code?: string }) => {
      if (err.code === 'P2002') throw alreadyConnected(EMAIL_LABEL);
      throw err;
    });
  return connectionView(row);
}
