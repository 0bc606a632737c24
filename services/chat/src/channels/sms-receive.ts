// A request Twilio made to Parley's SMS webhook (docs/adr/0070-sms-channel.md), handed over by the
// gateway as the public URL Twilio called and the form's parameters. Verification fails closed
// before any parameter is read: no X-Twilio-Signature is 401; an unknown connection, another
// channel's, or a signature that is not Twilio's over that URL and those parameters under the
// connection's Auth Token is 403 (constant time), and no refusal carries an expected value. Then:
// a status callback moves the delivery it names forward; an opt-out keyword (STOP…) or an opt-in
// (START…) or HELP is taken and never answered (Twilio answers those itself on a long code), STOP
// recording the number so nothing is sent to it, START forgetting it; a message from a number that
// opted out is taken and left; any other text is queued for the channel worker under its MessageSid,
// so a delivery Twilio retries is answered and billed once.
import { create } from '@bufbuild/protobuf';
import { ChannelMessageReceivedSchema } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import { forbidden, unauthenticated } from '@parley/common/rpc-errors.ts';
import { channelInbound, channelInboundSkipped, channelVerificationFailures } from './channel-metrics.ts';
import { moveDeliveries } from './deliver.ts';
import { MAX_QUEUED_TEXT, verifierOf, type ReceiveDeps } from './receive-update.ts';
import { keywordOf, parseSmsWebhookRequest, readSmsEvent, twilioSignatureValid } from './sms.ts';

export const TWILIO_SIGNATURE_MISSING = 'The X-Twilio-Signature header is missing.';
export const TWILIO_SIGNATURE_REFUSED = 'The X-Twilio-Signature does not match.';

/** Why an SMS was taken and never answered. */
export type SmsSkipReason = 'opt_out' | 'opt_in' | 'help' | 'opted_out';

export async function receiveSmsUpdate(
  deps: ReceiveDeps,
  req: { connectionId: string; secret: string; body: Uint8Array },
): Promise<{ queued: boolean; skipped?: SmsSkipReason }> {
  const refused = (err: Error) => {
    channelVerificationFailures.series({ channel: 'sms' }).inc();
    return err;
  };
  if (!req.secret) throw refused(unauthenticated(TWILIO_SIGNATURE_MISSING));
  const { url, params } = parseSmsWebhookRequest(req.body);
  const row = await verifierOf(deps, req.connectionId);
  if (!row || row.channel !== 'sms' || !row.signingSecret || !twilioSignatureValid(row.signingSecret, req.secret, url, params))
    throw refused(forbidden(TWILIO_SIGNATURE_REFUSED));
  const event = readSmsEvent(params, Math.min(MAX_QUEUED_TEXT, 16_000));
  // A request about another account than the connection's is not this connection's to act on.
  if (event.kind === 'ignored' || (row.accountId && event.accountSid !== row.accountId)) return { queued: false };
  if (event.kind === 'status') {
    await moveDeliveries(deps.db, row.id, [{ messageId: event.messageSid, status: event.status, error: event.error }]);
    return { queued: false };
  }
  const keyword = keywordOf(event.text);
  const skip = async (reason: SmsSkipReason) => {
    const { count } = await deps.db.channelInbound.createMany({
      data: [{ connectionId: row.id, providerMessageId: event.messageSid, skipReason: reason, contact: event.from }],
      skipDuplicates: true,
    });
    if (count > 0) channelInboundSkipped.series({ channel: 'sms', reason }).inc();
    return { queued: false, skipped: reason };
  };
  if (keyword === 'opt_out') {
    await deps.db.smsOptOut.createMany({ data: [{ connectionId: row.id, phone: event.from }], skipDuplicates: true });
    return skip('opt_out');
  }
  if (keyword === 'opt_in') {
    await deps.db.smsOptOut.deleteMany({ where: { connectionId: row.id, phone: event.from } });
    return skip('opt_in');
  }
  if (keyword === 'help') return skip('help');
  if (await deps.db.smsOptOut.findUnique({ where: { connectionId_phone: { connectionId: row.id, phone: event.from } } }))
    return skip('opted_out');
  await deps.inbound.publish(
    create(ChannelMessageReceivedSchema, {
      channel: 'sms',
      connectionId: row.id,
      providerMessageId: event.messageSid,
      chatId: event.from,
      userId: event.from,
      userName: '',
      text: event.text,
    }),
    `sms:${row.id}:${event.messageSid}`,
  );
  channelInbound.series({ channel: 'sms' }).inc();
  return { queued: true };
}
