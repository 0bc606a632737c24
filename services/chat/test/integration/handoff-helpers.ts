// What the handoff tests share: a chatbot's handoff turned on, live streams read in the background,
// and a wait for a condition.
import { randomUUID } from 'node:crypto';
import type { Client } from '@connectrpc/connect';
import type { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';

/** Turns the chatbot's handoff on through the chatbot service (its owner must be on Pro). */
export async function enableHandoff(
  chatbots: Client<typeof ChatbotService>,
  bot: { ownerId: string; id: string },
  timeoutSeconds = 300,
): Promise<void> {
  await chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, handoff: { enabled: true, timeoutSeconds } });
}

export const until = async (cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** A server stream read in the background: what arrived so far, and a stop. */
export interface Reading<T> {
  events: T[];
  /** The stream's error, when it failed. */
  error: () => unknown;
  ended: () => boolean;
  stop: () => Promise<void>;
}

export function read<T>(open: (signal: AbortSignal) => AsyncIterable<T>): Reading<T> {
  const controller = new AbortController();
  const events: T[] = [];
  let error: unknown;
  let ended = false;
  const done = (async () => {
    try {
      for await (const e of open(controller.signal)) events.push(e);
    } catch (err) {
      if (!controller.signal.aborted) error = err;
    } finally {
      ended = true;
    }
  })();
  return {
    events,
    error: () => error,
    ended: () => ended,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

export const agent = (name = 'Ada') => ({ id: `user-${name.toLowerCase()}`, name });
export const clientMessageId = () => randomUUID();
