// What the handoff tests share: the chatbot's handoff settings as the chat service reads them, live
// streams read in the background, and a wait for a condition.
import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import { HandoffSchema, type ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { ChatbotServiceParts } from '@parley/chatbot/service.ts';

/**
 * The chatbot service's client with each chatbot's handoff settings read from its row when the
 * answer carries none (a chatbot service that does not send them yet), so the tests drive handoff
 * through the Chatbot row's handoff columns either way.
 */
export function withHandoffSettings(client: Client<typeof ChatbotService>, chatbot: ChatbotServiceParts): Client<typeof ChatbotService> {
  const fill = async <T extends { chatbot?: { id: string; handoff?: unknown } }>(res: T): Promise<T> => {
    if (res.chatbot && !res.chatbot.handoff) {
      const row = await chatbot.prisma.chatbot.findUnique({
        where: { id: res.chatbot.id },
        select: { handoffEnabled: true, handoffTimeoutSeconds: true },
      });
      if (row) res.chatbot.handoff = create(HandoffSchema, { enabled: row.handoffEnabled, timeoutSeconds: row.handoffTimeoutSeconds });
    }
    return res;
  };
  return {
    ...client,
    getPublicChatbot: async (req, opts) => fill(await client.getPublicChatbot(req, opts)),
    getPromptKnowledge: async (req, opts) => fill(await client.getPromptKnowledge(req, opts)),
  };
}

/** Turns the chatbot's handoff on (before its first message: the chat service holds what it read). */
export async function enableHandoff(chatbot: ChatbotServiceParts, chatbotId: string, timeoutSeconds = 300): Promise<void> {
  await chatbot.prisma.chatbot.update({ where: { id: chatbotId }, data: { handoffEnabled: true, handoffTimeoutSeconds: timeoutSeconds } });
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
