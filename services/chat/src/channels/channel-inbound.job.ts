// Consumes the chat service's own channel queues: parley.channel-inbound, a channel user's message
// verified and queued by the webhook, answered and sent back (answer-update.ts); and
// parley.channel-outbound, an agent's inbox reply sent on the channel (send-reply.ts).
import type { Worker } from 'bullmq';
import {
  ChannelMessageReceivedSchema,
  ChannelReplyRequestedSchema,
  type ChannelMessageReceived,
  type ChannelReplyRequested,
} from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createWorker, QUEUES } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import type { AnswerOutcome } from './answer-update.ts';

export interface ChannelInboundWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  answer: (event: ChannelMessageReceived) => Promise<AnswerOutcome>;
  concurrency?: number;
}

export function startChannelInboundWorker(deps: ChannelInboundWorkerDeps): Worker {
  return createWorker(
    deps.redis,
    QUEUES.channelInbound,
    ChannelMessageReceivedSchema,
    async (event) => {
      const outcome = await deps.answer(event);
      deps.logger.debug({ connectionId: event.connectionId, outcome }, 'channel message handled');
    },
    { prefix: deps.prefix, logger: deps.logger, concurrency: deps.concurrency ?? 8 },
  );
}

export interface ChannelOutboundWorkerDeps {
  redis: Redis;
  logger: Logger;
  prefix: string;
  send: (event: ChannelReplyRequested) => Promise<unknown>;
}

export function startChannelOutboundWorker(deps: ChannelOutboundWorkerDeps): Worker {
  return createWorker(deps.redis, QUEUES.channelOutbound, ChannelReplyRequestedSchema, async (event) => void (await deps.send(event)), {
    prefix: deps.prefix,
    logger: deps.logger,
  });
}
