// An inbound mail (docs/adr/0063-email-channel.md), from Mailgun's webhook (the gateway hands over
// the form's fields as JSON) or from the development SMTP server (email-smtp.ts). The webhook's call
// fails closed before anything is read of the mail: no signature, timestamp or token is 401; an
// unknown connection, another channel's, a signature that differs, a timestamp more than five
// minutes away or a token already seen (kept in Redis for the window: SET NX) is 403, and no refusal
// names the expected value. Then the mail (accepted): a mail never answered is taken with its reason
// (ChannelInbound.skipReason) and nothing is queued; any other finds its thread (a Message-ID of the
// contact's thread in In-Reply-To or References; else a new one named from its own Message-ID), is
// recorded (EmailMessage, EmailThread) and queued for the channel worker under its Message-ID, so
// the same mail delivered again is answered and billed once.
import { createHash } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { ChannelMessageReceivedSchema } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import { forbidden, unauthenticated } from '@parley/common/rpc-errors.ts';
import { channelInbound, channelInboundSkipped, channelVerificationFailures } from './channel-metrics.ts';
import {
  baseSubject,
  EMAIL_CONTACT_RATE_PER_HOUR,
  EMAIL_MAX_REFERENCES,
  EMAIL_MAX_SKEW_SECONDS,
  mailgunSignatureValid,
  parseInboundFields,
  readInboundMail,
  skipReasonOf,
  threadChatId,
  type EmailInboundDeps,
  type InboundFields,
  type SkipReason,
} from './email.ts';
import { MAX_QUEUED_TEXT, verifierOf, type ReceiveDeps } from './receive-update.ts';

export const MAILGUN_SIGNATURE_MISSING = 'The signature, its timestamp or its token is missing.';
export const MAILGUN_SIGNATURE_REFUSED = 'The signature is not valid, its timestamp is too old, or its token was used before.';

export type EmailReceiveDeps = ReceiveDeps & { email: EmailInboundDeps };

export type EmailOutcome = { queued: true } | { queued: false; skipped?: SkipReason };

/** The RPC's email call: refused when this process has no email set up (no Redis for the tokens). */
export async function receiveEmailUpdate(deps: ReceiveDeps, req: { connectionId: string; body: Uint8Array }): Promise<EmailOutcome> {
  if (!deps.email) {
    channelVerificationFailures.series({ channel: 'email' }).inc();
    throw forbidden(MAILGUN_SIGNATURE_REFUSED);
  }
  return receiveMailgunWebhook({ ...deps, email: deps.email }, req);
}

/** Mailgun's webhook call: verified, the token spent, then the mail taken in. */
export async function receiveMailgunWebhook(
  deps: EmailReceiveDeps,
  req: { connectionId: string; body: Uint8Array },
): Promise<EmailOutcome> {
  const refused = (err: Error) => {
    channelVerificationFailures.series({ channel: 'email' }).inc();
    return err;
  };
  let fields: InboundFields;
  try {
    fields = parseInboundFields(req.body);
  } catch {
    // Unreadable is unsigned: nothing of it is trusted.
    throw refused(unauthenticated(MAILGUN_SIGNATURE_MISSING));
  }
  const { timestamp = '', token = '', signature = '' } = fields;
  if (!timestamp || !token || !signature) throw refused(unauthenticated(MAILGUN_SIGNATURE_MISSING));
  const row = await verifierOf(deps, req.connectionId);
  if (!row || row.channel !== 'email' || !row.signingSecret || !mailgunSignatureValid(row.signingSecret, { timestamp, token, signature }))
    throw refused(forbidden(MAILGUN_SIGNATURE_REFUSED));
  // A token is spent once: a captured request replayed (as it was, or with another body) is refused.
  const key = `${deps.email.prefix}email-token:${row.id}:${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
  const fresh = await deps.email.redis.set(key, '1', 'EX', EMAIL_MAX_SKEW_SECONDS * 2, 'NX');
  if (fresh !== 'OK') throw refused(forbidden(MAILGUN_SIGNATURE_REFUSED));
  return acceptInboundMail(deps, { id: row.id, address: row.accountId ?? '' }, fields);
}

/** An authenticated mail for the connection: skipped with its reason, or recorded in its thread and queued. */
export async function acceptInboundMail(
  deps: EmailReceiveDeps,
  connection: { id: string; address: string },
  fields: InboundFields,
): Promise<EmailOutcome> {
  const mail = readInboundMail(fields, MAX_QUEUED_TEXT);
  const skip = async (reason: SkipReason): Promise<EmailOutcome> => {
    const { count } = await deps.db.channelInbound.createMany({
      data: [{ connectionId: connection.id, providerMessageId: mail.messageId, skipReason: reason, contact: mail.sender }],
      skipDuplicates: true,
    });
    // The same mail delivered again is counted once.
    if (count > 0) channelInboundSkipped.series({ channel: 'email', reason }).inc();
    return { queued: false, skipped: reason };
  };
  const reason = skipReasonOf(mail, connection.address, deps.email.domain);
  if (reason) return skip(reason);
  const [known] = mail.parents.length
    ? await deps.db.$queryRaw<{ chatId: string }[]>`
        SELECT m."chatId" FROM "EmailMessage" m
         WHERE m."connectionId" = ${connection.id}::uuid AND m."messageId" = ANY(${mail.parents}) AND m."contact" = ${mail.sender}
         ORDER BY m."createdAt" DESC LIMIT 1`
    : [];
  const [{ count }] = await deps.db.$queryRaw<{ count: bigint }[]>`
    SELECT count(*) AS "count" FROM "EmailMessage"
     WHERE "connectionId" = ${connection.id}::uuid AND "contact" = ${mail.sender} AND "direction" = 'in'
       AND "createdAt" > now() - interval '1 hour' AND "messageId" <> ${mail.messageId}`;
  if (count >= BigInt(EMAIL_CONTACT_RATE_PER_HOUR)) return skip('rate');
  const chatId = known?.chatId ?? threadChatId(connection.id, mail.messageId);
  const references = [...mail.references.filter((id) => id !== mail.messageId), mail.messageId].slice(-EMAIL_MAX_REFERENCES).join(' ');
  await deps.db.$executeRaw`
    WITH recorded AS (
      INSERT INTO "EmailMessage" ("connectionId", "messageId", "chatId", "direction", "contact")
      VALUES (${connection.id}::uuid, ${mail.messageId}, ${chatId}, 'in', ${mail.sender})
      ON CONFLICT DO NOTHING
    )
    INSERT INTO "EmailThread" ("connectionId", "chatId", "contact", "subject", "lastMessageId", "references", "updatedAt")
    VALUES (${connection.id}::uuid, ${chatId}, ${mail.sender}, ${baseSubject(mail.subject)}, ${mail.messageId}, ${references}, now())
    ON CONFLICT ("connectionId", "chatId") DO UPDATE SET
      "lastMessageId" = EXCLUDED."lastMessageId", "references" = EXCLUDED."references", "updatedAt" = now()`;
  await deps.inbound.publish(
    create(ChannelMessageReceivedSchema, {
      channel: 'email',
      connectionId: connection.id,
      providerMessageId: mail.messageId,
      chatId,
      userId: mail.sender,
      userName: mail.senderName,
      text: mail.text,
    }),
    `email:${connection.id}:${createHash('sha256').update(mail.messageId).digest('hex').slice(0, 32)}`,
  );
  channelInbound.series({ channel: 'email' }).inc();
  return { queued: true };
}
