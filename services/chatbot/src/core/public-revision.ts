// Tells the chat service's caches that a chatbot's public face or knowledge changed, by giving the
// chatbot a new public revision in Redis (see @parley/common/public-revision.ts). Called after the
// change is committed, before the owner is answered, so a visitor's next message sees it.
//
// The change itself is already saved, so a failure here is logged, not thrown: the owner's request
// succeeded. The chat service then keeps using what it cached for at most its cache's maximum age.
//
// A change of what the answers read (knowledge, a re-sync, voice and instructions, the model: all but
// the picture and a deletion) is also published as ChatbotChanged, beside the new revision: the chat
// service's quality loop schedules the chatbot's automatic test run from it, debounced
// (docs/adr/0050-quality-loop.md). Its failure is logged likewise.
import { randomUUID } from 'node:crypto';
import type { ChatbotChanged, ChatbotChangedSchema } from '@parley/proto/parley/events/v1/quality_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import type { Producer } from '@parley/common/queues.ts';
import { PUBLIC_REVISION_TTL_MS } from '@parley/common/public-revision.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';

/** `answers` false: the change cannot alter an answer (the picture, a deletion); no ChatbotChanged. */
export type PublicChange = (chatbotId: string, opts?: { answers?: boolean }) => Promise<void>;

/** An owner's change is already saved: its announcement waits at most this long. */
const DEADLINE_MS = 1000;

export function redisPublicRevision(
  redis: Redis,
  opts: { prefix: string; logger: Logger; changed?: Producer<typeof ChatbotChangedSchema> },
): PublicChange {
  const keys = redisKeys(opts.prefix);
  const revise = async (id: string) => {
    try {
      await withRedisDeadline(redis.set(keys.chatbotRevision(id), randomUUID(), 'PX', PUBLIC_REVISION_TTL_MS), DEADLINE_MS);
    } catch (err) {
      opts.logger.error({ err: (err as Error).message, chatbotId: id }, 'could not announce a public change of the chatbot');
    }
  };
  const announce = async (id: string) => {
    const event: ChatbotChanged = { $typeName: 'parley.events.v1.ChatbotChanged', chatbotId: id };
    try {
      await opts.changed?.publish(event, `changed-${id}-${randomUUID()}`);
    } catch (err) {
      opts.logger.error({ err: (err as Error).message, chatbotId: id }, 'could not publish ChatbotChanged');
    }
  };
  return async (chatbotId, change) => {
    const id = chatbotId.trim().toLowerCase();
    await Promise.all([revise(id), change?.answers === false ? undefined : announce(id)]);
  };
}
