// A call Meta made to Parley's webhook for WhatsApp, Messenger or Instagram
// (docs/adr/0056-meta-channels.md), handed over by the gateway. The GET handshake is answered only
// for `hub.mode=subscribe` and the verify token Parley generated (its SHA-256 compared in constant
// time). Every POST must carry `X-Hub-Signature-256`: no header is 401; an unknown connection,
// another channel's, a malformed header or an HMAC that differs is 403, and no refusal carries an
// expected value. Only then is the body read: each text message is queued for the channel worker
// under `<channel>:<connection>:<provider message id>` (a retried delivery is queued once), and each
// WhatsApp status callback moves the delivery it names forward (sent → delivered → read, or failed).
import { create } from '@bufbuild/protobuf';
import { ChannelMessageReceivedSchema } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import { forbidden, unauthenticated } from '@parley/common/rpc-errors.ts';
import { channelInbound, channelVerificationFailures } from './channel-metrics.ts';
import { parseChannel } from './connections.ts';
import { moveDeliveries } from './deliver.ts';
import { isMetaChannel, parseMetaWebhook, signatureMatches } from './meta-channels.ts';
import { MAX_QUEUED_TEXT, secretMatches, verifierOf, type ReceiveDeps } from './receive-update.ts';

import { SIGNATURE_MISSING, SIGNATURE_REFUSED, VERIFY_TOKEN_REFUSED } from '@parley/common/channel-webhook-meta.ts';

export { SIGNATURE_MISSING, SIGNATURE_REFUSED, VERIFY_TOKEN_REFUSED };

export async function receiveMetaUpdate(
  deps: ReceiveDeps,
  req: { channel: string; connectionId: string; secret: string; body: Uint8Array },
): Promise<{ queued: boolean }> {
  const channel = parseChannel(req.channel);
  if (!isMetaChannel(channel)) throw new Error(`not one of Meta's channels: ${channel}`);
  const refused = (err: Error) => {
    channelVerificationFailures.series({ channel }).inc();
    return err;
  };
  if (!req.secret) throw refused(unauthenticated(SIGNATURE_MISSING));
  const row = await verifierOf(deps, req.connectionId);
  if (!row || row.channel !== channel || !row.appSecret || !signatureMatches(req.secret, req.body, row.appSecret))
    throw refused(forbidden(SIGNATURE_REFUSED));
  const { messages, statuses } = parseMetaWebhook(channel, req.body, Math.min(MAX_QUEUED_TEXT, 16_000));
  // An app may serve several accounts: only this connection's account is its to answer.
  const mine = <T extends { accountId: string }>(e: T) => !row.accountId || !e.accountId || e.accountId === row.accountId;
  if (statuses.length) await moveDeliveries(deps.db, row.id, statuses.filter(mine));
  let queued = false;
  for (const m of messages.filter(mine)) {
    await deps.inbound.publish(
      create(ChannelMessageReceivedSchema, {
        channel,
        connectionId: row.id,
        providerMessageId: m.messageId,
        chatId: m.from,
        userId: m.from,
        userName: m.name,
        text: m.text,
      }),
      `${channel}:${row.id}:${m.messageId}`,
    );
    channelInbound.series({ channel }).inc();
    queued = true;
  }
  return { queued };
}

/** Meta's GET handshake: true for `subscribe` with the connection's verify token; refused otherwise, saying nothing of what was expected. */
export async function verifyChannelWebhook(
  deps: ReceiveDeps,
  req: { channel: string; connectionId: string; mode: string; verifyToken: string },
): Promise<void> {
  const channel = parseChannel(req.channel);
  const refuse = () => {
    channelVerificationFailures.series({ channel }).inc();
    return forbidden(VERIFY_TOKEN_REFUSED);
  };
  if (!isMetaChannel(channel) || req.mode !== 'subscribe' || !req.verifyToken) throw refuse();
  const row = await verifierOf(deps, req.connectionId);
  if (!row || row.channel !== channel || !secretMatches(req.verifyToken, row.secretHash)) throw refuse();
}
