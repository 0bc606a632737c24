// Connecting a chatbot to SMS through Twilio (docs/adr/0070-sms-channel.md). The owner gives the
// account's Account SID, its Auth Token and one of its phone numbers; each is checked for its shape
// before any call, then the account is read with them and the number looked up among the account's
// own (refused: nothing stored). The Auth Token is sealed under the operator's key (it both calls
// Twilio's API and checks X-Twilio-Signature) and shown again by its last four characters only.
// Twilio posts a number's messages to the URL set on the number: Parley sets the number's "A message
// comes in" webhook to the connection's URL itself (docs/adr/0076-registrations-at-the-provider.md;
// Twilio refused or out of reach: nothing kept), and keeps it as each message's StatusCallback.
import { randomUUID } from 'node:crypto';
import { failedPrecondition, invalid } from '@parley/common/rpc-errors.ts';
import {
  alreadyConnected,
  checkConnectInput,
  connectionView,
  sealToken,
  type ChannelConnectionView,
  type ConnectInput,
  type ConnectionDeps,
} from './connections.ts';
import { E164_SHAPE, SMS_PHONE_INVALID, TWILIO_ACCOUNT_SID_SHAPE, TWILIO_AUTH_TOKEN_SHAPE } from './sms.ts';
import { TwilioError } from './twilio-api.ts';
import { providerUnreachable, UNREACHABLE } from './registrations.ts';

export const SMS_LABEL = 'SMS';
export const TWILIO_SID_INVALID = 'The Account SID must be the one Twilio shows (AC and 32 hexadecimal characters).';
export const TWILIO_TOKEN_INVALID = 'The Auth Token must be the 32 hexadecimal characters Twilio shows.';
export const TWILIO_REFUSED = 'Twilio refused this Account SID and Auth Token.';
export const TWILIO_NUMBER_NOT_OWNED = 'This phone number is not one of the Twilio account’s numbers.';
export const TWILIO_UNREACHABLE = UNREACHABLE.twilio;

export async function connectSms(deps: ConnectionDeps, input: ConnectInput): Promise<ChannelConnectionView> {
  checkConnectInput(input);
  const accountSid = (input.accountId ?? '').trim();
  const authToken = input.token.trim();
  const phone = (input.phoneNumber ?? '').replace(/[\s().-]/g, '');
  if (!TWILIO_ACCOUNT_SID_SHAPE.test(accountSid)) throw invalid(TWILIO_SID_INVALID);
  if (!TWILIO_AUTH_TOKEN_SHAPE.test(authToken)) throw invalid(TWILIO_TOKEN_INVALID);
  if (!E164_SHAPE.test(phone)) throw invalid(SMS_PHONE_INVALID);
  const where = { chatbotId_channel: { chatbotId: input.chatbotId, channel: 'sms' } };
  if (await deps.db.channelConnection.findUnique({ where })) throw alreadyConnected(SMS_LABEL);
  const refused = (err: unknown): never => {
    if (err instanceof TwilioError && !err.retryable)
      throw failedPrecondition(err.status === 401 || err.status === 404 ? TWILIO_REFUSED : `Twilio refused: ${err.message}`);
    throw providerUnreachable('twilio');
  };
  await deps.twilio.account(accountSid, authToken).catch(refused);
  const number = await deps.twilio.findNumber(accountSid, authToken, phone).catch(refused);
  if (!number) throw failedPrecondition(TWILIO_NUMBER_NOT_OWNED);
  const id = randomUUID();
  const callbackUrl = `${input.webhookBaseUrl.replace(/\/+$/, '')}/${id}`;
  const row = await deps.db.channelConnection
    .create({
      data: {
        id,
        ownerId: input.ownerId,
        chatbotId: input.chatbotId,
        uniqueId: input.uniqueId,
        channel: 'sms',
        tokenCiphertext: sealToken(deps.ciphers, id, authToken),
        tokenLastFour: authToken.slice(-4),
        // Twilio signs each request with the Auth Token: no shared secret to hash.
        secretHash: '',
        accountId: accountSid,
        // Who the chatbot answers as: the From of every message.
        botName: phone,
        callbackUrl,
      },
    })
    .catch((err: { code?: string }) => {
      if (err.code === 'P2002') throw alreadyConnected(SMS_LABEL);
      throw err;
    });
  await deps.twilio.setSmsWebhook(accountSid, authToken, number.sid, callbackUrl).catch(async (err: unknown) => {
    await deps.db.channelConnection.delete({ where: { id } });
    refused(err);
  });
  return connectionView(row);
}
