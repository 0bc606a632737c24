// What follows a committed move or message, in this order (stored first, then published): the Redis
// mirror of the status (written while a person has the conversation, deleted when the bot has it
// again or it closed), the kept turns forgotten when the bot takes over (so its next prompt reads
// the stored conversation, the agent's replies as its own turns), then the visitor's channel and
// the workspace's inbox channel. Nothing here throws: the move is done, a lost mirror lets the bot
// answer until the next move writes it again, a lost publish is caught up on reconnection.
import { create } from '@bufbuild/protobuf';
import { ChannelReplyRequestedSchema } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import type { Producer } from '@parley/common/queues.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { RecentTurns } from '../public-chat/recent-turns.ts';
import { handoffView, mirrorValue, personHasIt, type HandoffView } from '../core/handoff.ts';
import type { ConversationRow } from './conversation-moves.ts';
import { inboxItem, loadInboxRow, type InboxItemView, type MessageView } from './live-events.ts';
import type { LivePublisher } from './live-hub.ts';

/**
 * How long the mirror of a conversation a person has outlives its last move: a conversation
 * abandoned while human does not keep its key forever (past this, the bot answers it again).
 */
export const MIRROR_TTL_MS = 7 * 24 * 3600_000;

export interface HandoffMirror {
  /** The key the visitor's admission reads. */
  key(chatbotId: string, sessionId: string): string;
  read(chatbotId: string, sessionId: string): Promise<string | null>;
  write(chatbotId: string, sessionId: string, view: HandoffView): Promise<void>;
  /** Notes that a visitor, spend or credit limit stopped a message of the conversation at `at` (ADR 65), for a day. */
  limitStopped(chatbotId: string, sessionId: string, at: Date): Promise<void>;
  /** When a limit last stopped one of its messages (within a day); null when none did. */
  readLimitStopped(chatbotId: string, sessionId: string): Promise<Date | null>;
}

/** How long a limit's stop is remembered for the handoff asked after it: the visitor limits' own day. */
const LIMIT_STOP_TTL_MS = 24 * 60 * 60 * 1000;

export function redisHandoffMirror(redis: Redis, prefix: string): HandoffMirror {
  const keys = redisKeys(prefix);
  return {
    key: (chatbotId, sessionId) => keys.handoff(chatbotId, sessionId),
    read: (chatbotId, sessionId) => withRedisDeadline(redis.get(keys.handoff(chatbotId, sessionId))),
    async write(chatbotId, sessionId, view) {
      const key = keys.handoff(chatbotId, sessionId);
      if (personHasIt(view.status)) await withRedisDeadline(redis.set(key, mirrorValue(view), 'PX', MIRROR_TTL_MS));
      else await withRedisDeadline(redis.del(key));
    },
    async limitStopped(chatbotId, sessionId, at) {
      await withRedisDeadline(redis.set(keys.handoffLimit(chatbotId, sessionId), String(at.getTime()), 'PX', LIMIT_STOP_TTL_MS));
    },
    async readLimitStopped(chatbotId, sessionId) {
      const ms = Number(await withRedisDeadline(redis.get(keys.handoffLimit(chatbotId, sessionId))));
      return Number.isFinite(ms) && ms > 0 ? new Date(ms) : null;
    },
  };
}

export interface AnnounceDeps {
  db: PrismaClient;
  logger: Logger;
  mirror: HandoffMirror;
  live: LivePublisher;
  recentTurns: Pick<RecentTurns, 'forget'>;
  /** parley.channel-outbound: the team's messages to a messaging channel's conversation, sent there by the channel sender (ADR 44). */
  channelReplies?: Pick<Producer<typeof ChannelReplyRequestedSchema>, 'publish'>;
}

/** After a move: mirror, kept turns, then the visitor's state and the inbox row. Returns the inbox row. */
export async function announceMove(
  deps: AnnounceDeps,
  row: ConversationRow,
  opts: { timedOut?: boolean; message?: MessageView } = {},
): Promise<InboxItemView> {
  const view = { ...handoffView(row), timedOut: opts.timedOut === true };
  const log = deps.logger.child({ conversationId: row.id });
  await deps.mirror
    .write(row.chatbotId, row.sessionId, view)
    .catch((err: Error) => log.warn({ err: err.message }, 'writing the handoff mirror failed'));
  if (!personHasIt(row.handoffStatus)) {
    await deps.recentTurns
      .forget(row.chatbotId, row.sessionId)
      .catch((err: Error) => log.warn({ err: err.message }, 'forgetting the kept turns failed'));
  }
  if (opts.message) await deps.live.conversation(row.id, { kind: 'message', message: opts.message });
  await deps.live.conversation(row.id, { kind: 'state', state: view });
  return announceInboxRow(deps, row);
}

/** The conversation's inbox row as it now stands, published on the workspace's channel. */
export async function announceInboxRow(deps: Pick<AnnounceDeps, 'db' | 'live' | 'logger'>, row: ConversationRow): Promise<InboxItemView> {
  const current = await loadInboxRow(deps.db, row.id, row.ownerId).catch((err: Error) => {
    deps.logger.warn({ err: err.message, conversationId: row.id }, 'reading the inbox row failed');
    return null;
  });
  const item = inboxItem(current ?? { ...row, lastMessage: null, lastMessageAt: null, lastVisitorMessage: null });
  await deps.live.inbox(row.ownerId, item);
  return item;
}

/**
 * A messaging channel's visitor reads no live stream: a message the team stored for them (an agent's
 * reply, the wait's timeout message) is queued for the channel sender (ADR 44), once by its message
 * id (the job id, and the delivery's claim in channels/deliver.ts). A queue that cannot take it is
 * logged: the message is stored and in the inbox, and the owner sees the missing delivery in the
 * chatbot's Channels section.
 */
export async function toChannel(
  deps: Pick<AnnounceDeps, 'channelReplies' | 'logger'>,
  conversation: Pick<ConversationRow, 'id' | 'channel'>,
  message: MessageView,
): Promise<void> {
  if (!conversation.channel || !deps.channelReplies) return;
  await deps.channelReplies
    .publish(
      create(ChannelReplyRequestedSchema, { conversationId: conversation.id, messageId: message.id, text: message.content }),
      `agent:${message.id}`,
    )
    .catch((err: Error) =>
      deps.logger.error({ err: err.message, conversationId: conversation.id }, "the team's message was not queued for its channel"),
    );
}
