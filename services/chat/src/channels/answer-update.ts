// The channel worker's use case (docs/adr/0044-messaging-channels.md): a channel user's queued
// message, answered through the same turn as the widget's (public-chat/send-message.ts) on the
// channel's rules (public-chat/channels/telegram.ts), and the answer sent back through the provider.
//
//   1. taken once: ONE insert of the provider's message id (ChannelInbound); a message already
//      taken (a provider's retry that reached the queue again, a job retried) is left, so it is
//      answered and billed once
//   2. the connection and its token; a connection removed meanwhile: nothing to answer
//   3. the channel user's conversation (ChannelThread): its session id, issued by this service at
//      the chat's first message, so the chat's messages continue one conversation
//   4. the turn: knowledge, model, rate limits, the visitor's day limit, the spend limit, the credit
//      hold and billing exactly as the widget's, the visitor being `telegram:{chat id}`
//   5. the answer with its sources as links, split by the channel's size limit and sent with
//      retries (deliver.ts); a person holding the conversation: the bot stays silent
//   6. the conversation marked as the channel's (History shows it), the chat kept as the last one
//
// A refusal of the turn (the rate or day limit, no credit, the spend limit, a message too long) is
// told to the channel user in the turn's own words; any other failure in a general sentence. The job
// is not retried after the message was taken: a retry could bill it twice.
import { ConnectError, Code } from '@connectrpc/connect';
import type { ChannelMessageReceived } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { ProviderKeyCiphers } from '../provider-keys/provider-keys.ts';
import type { SessionIds } from '../core/session-id.ts';
import { telegram } from '../public-chat/channels/telegram.ts';
import { sendMessage, type PublicChatDeps } from '../public-chat/send-message.ts';
import { sendingConnection } from './connections.ts';
import { deliver, type DeliverDeps } from './deliver.ts';
import { withSourcesFooter } from './format.ts';

export const COULD_NOT_ANSWER = 'Sorry, I could not answer just now. Please try again in a little while.';
/** The turn's refusals whose words are the visitor's to read (visitor-errors.ts, the limits, credit). */
const TOLD_CODES = new Set([Code.ResourceExhausted, Code.InvalidArgument, Code.FailedPrecondition]);

export interface AnswerUpdateDeps {
  db: PrismaClient;
  ciphers: ProviderKeyCiphers;
  sessionIds: SessionIds;
  publicChat: PublicChatDeps;
  deliver: DeliverDeps;
  logger: Logger;
}

export type AnswerOutcome = 'answered' | 'silent' | 'refused' | 'duplicate' | 'gone';

/** The channel user's conversation: the session id issued at the chat's first message (the first writer's when two race). */
async function threadSession(deps: AnswerUpdateDeps, connectionId: string, chatId: string): Promise<string> {
  const where = { connectionId_chatId: { connectionId, chatId } };
  const found = await deps.db.channelThread.findUnique({ where });
  if (found) return found.sessionId;
  await deps.db.channelThread.createMany({ data: [{ connectionId, chatId, sessionId: deps.sessionIds.issue() }], skipDuplicates: true });
  return (await deps.db.channelThread.findUniqueOrThrow({ where })).sessionId;
}

export async function answerChannelMessage(deps: AnswerUpdateDeps, event: ChannelMessageReceived): Promise<AnswerOutcome> {
  const { connectionId, chatId } = event;
  const taken = await deps.db.channelInbound.createMany({
    data: [{ connectionId, providerMessageId: event.providerMessageId }],
    skipDuplicates: true,
  });
  if (taken.count === 0) return 'duplicate';
  const row = await deps.db.channelConnection.findUnique({ where: { id: connectionId } });
  if (!row) return 'gone';
  const connection = sendingConnection(deps.ciphers, row);
  const sessionId = await threadSession(deps, connectionId, chatId);
  const log = deps.logger.child({ connectionId, channel: row.channel });

  let text: string;
  let outcome: AnswerOutcome;
  try {
    const result = await sendMessage(
      deps.publicChat,
      {
        uniqueId: row.uniqueId,
        sessionId,
        message: event.text,
        model: '',
        clientIp: '',
        userAgent: 'Telegram',
        visitorId: `telegram:${chatId}`,
        visitorName: event.userName,
      },
      telegram,
    );
    if (result.handoff) {
      text = '';
      outcome = 'silent';
    } else {
      text = withSourcesFooter(result.message, result.sources);
      outcome = 'answered';
    }
  } catch (err) {
    const told = err instanceof ConnectError && TOLD_CODES.has(err.code);
    if (!told) log.warn({ err: (err as Error).message }, 'a channel message could not be answered');
    text = told ? (err as ConnectError).rawMessage : COULD_NOT_ANSWER;
    outcome = 'refused';
  }
  await Promise.all([
    text ? deliver(deps.deliver, connection, chatId, text, 'answer') : null,
    deps.db.conversation.updateMany({ where: { chatbotId: row.chatbotId, sessionId, channel: null }, data: { channel: row.channel } }),
    row.lastChatId === chatId ? null : deps.db.channelConnection.update({ where: { id: row.id }, data: { lastChatId: chatId } }),
  ]);
  return outcome;
}
