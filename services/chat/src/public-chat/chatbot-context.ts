// Which chatbot a message is for, and its prompt's knowledge: one GetPromptKnowledge call (the chatbot
// service alone decides whole knowledge or retrieved chunks), read through two caches: `known`
// (uniqueId → id and owner, only a guess naming the Redis keys admission reads along) and `prompts`
// (a whole-knowledge answer under the public revision read before fetching it, 60 s at most).
// What each holds and what invalidates it: docs/adr/0014-caches.md. Retrieved chunks and offline
// mode's passages depend on the message and are never kept, nor is a chatbot with Q&A pairs (a
// pair matches a message, not a chatbot: every message must be asked about).
//
// Messages that miss the cache while a call for the same chatbot and the same revision read is in
// flight share it (`inFlight`) when its answer is one the cache could keep (the whole knowledge, no
// Q&A pairs): a burst of new visitors to a chatbot this replica does not hold yet, or whose entry
// just expired, makes one call instead of one per message (measured: 200 first messages at once
// made 200 calls, which the chatbot service answered past their deadline). An answer that depends on
// the message (retrieved chunks, a Q&A pair) is not shared: each waiter then asks on its own.
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import type { ChatbotService, PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { cache, type Cache } from '@parley/common/cache.ts';
import type { Logger } from '@parley/common/logger.ts';
import { publicChatbotNotFound } from '@parley/common/public-chatbot.ts';
import type { PublicRevision } from '@parley/common/public-revision.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import type { KnownChatbot, ReadAlong, Sighting } from '../core/admission.ts';
import type { CitablePassage } from './citations.ts';
import { answerFailed, chatbotUnavailable } from '../core/visitor-errors.ts';

/** A passage of the prompt's knowledge and the entry it comes from. */
export interface Passage extends CitablePassage {
  text: string;
}

/** The owner's answer to a question the visitor's message matched: it is the reply. */
export interface QaAnswer {
  entryId: string;
  question: string;
  answer: string;
}

export interface PromptContext {
  chatbot: PublicChatbot;
  /** Best first: every ready entry when the whole knowledge base fits, or the chunks retrieved for this message. */
  knowledge: Passage[];
  qaMatch: QaAnswer | null;
}

export interface ChatbotContext extends ReadAlong {
  /** The chatbot this instance last answered for under `uniqueId`, if any (unconfirmed). */
  known(uniqueId: string): KnownChatbot | undefined;
  /** The chatbot and its prompt knowledge: held under the sighting's revision, or one GetPromptKnowledge call. */
  load(input: { uniqueId: string; message: string }, sighting: Sighting | null): Promise<PromptContext>;
  /** For tests and diagnostics. */
  readonly caches: { known: Cache<string, KnownChatbot>; prompts: Cache<string, PromptContext, PublicRevision> };
}

export const PROMPT_CACHE_MAX_AGE_MS = 60_000;

export interface ChatbotContextOptions {
  chatbotService: Client<typeof ChatbotService>;
  logger: Logger;
  /** The deployment's Redis key prefix (QUEUE_PREFIX). */
  prefix: string;
  /** The whole knowledge base is asked for when it has at most this many characters (0: always retrieve). */
  budgetChars: number;
  /** Chunks to retrieve otherwise; 0 leaves it to the chatbot service. */
  k: number;
  /** False (offline mode): nothing is kept, every message asks the chatbot service. */
  remember: boolean;
  maxChatbots?: number;
  maxChars?: number;
  maxAgeMs?: number;
}

/** A chatbot service that could not serve the call (down, slow, too old to offer it); any other failure happened while answering. */
const CANNOT_SERVE = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.Canceled, Code.Unimplemented]);

export function chatbotContext(opts: ChatbotContextOptions): ChatbotContext {
  const keys = redisKeys(opts.prefix);
  const maxEntries = opts.remember ? (opts.maxChatbots ?? 10_000) : 0;
  const known = cache<string, KnownChatbot>({ maxEntries });
  const prompts = cache<string, PromptContext, PublicRevision>({
    maxEntries,
    maxSize: opts.maxChars ?? 20_000_000,
    sizeOf: (c) => c.knowledge.reduce((n, p) => n + p.text.length + p.title.length + p.url.length, 0) + c.chatbot.name.length,
    maxAgeMs: opts.maxAgeMs ?? PROMPT_CACHE_MAX_AGE_MS,
  });

  type Asked = Awaited<ReturnType<typeof ask>>;
  /** The call in flight for a uniqueId under the revision its message read (`inFlightKey`). */
  const inFlight = new Map<string, Promise<Asked>>();
  // Not read (no sighting), read and absent, or the revision read.
  const inFlightKey = (uniqueId: string, revision: string | null | undefined) =>
    `${uniqueId}\n${revision === undefined ? 'unread' : revision === null ? 'none' : `r${revision}`}`;
  /** What any message to the chatbot may use: it does not depend on the message asked with. */
  const shareable = ({ context, wholeKnowledge }: Asked) => wholeKnowledge && context.chatbot.qaPairs === 0 && !context.qaMatch;

  /** The call for this message, or the one in flight under the same revision when its answer does not depend on the message. */
  async function askOnce(uniqueId: string, message: string, revision: string | null | undefined): Promise<Asked> {
    if (!opts.remember) return ask(uniqueId, message);
    const key = inFlightKey(uniqueId, revision);
    const shared = inFlight.get(key);
    if (shared) {
      const asked = await shared;
      if (shareable(asked)) return asked;
      return ask(uniqueId, message);
    }
    const mine = ask(uniqueId, message);
    inFlight.set(key, mine);
    try {
      return await mine;
    } finally {
      if (inFlight.get(key) === mine) inFlight.delete(key);
    }
  }

  async function ask(uniqueId: string, message: string) {
    let answer;
    try {
      answer = await opts.chatbotService.getPromptKnowledge({ uniqueId, query: message, budgetChars: opts.budgetChars, k: opts.k });
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.NotFound) {
        prompts.delete(uniqueId);
        throw publicChatbotNotFound();
      }
      opts.logger.warn({ err: (err as Error).message }, 'chatbot GetPromptKnowledge failed');
      throw err instanceof ConnectError && !CANNOT_SERVE.has(err.code) ? answerFailed() : chatbotUnavailable();
    }
    if (!answer.chatbot) {
      opts.logger.warn('chatbot GetPromptKnowledge answered without a chatbot');
      throw chatbotUnavailable();
    }
    // A chatbot service that does not fill `knowledge` yet: its passages, which name no entry (no citations).
    const knowledge: Passage[] = answer.knowledge.length
      ? answer.knowledge.map(({ text, entryId, title, url }) => ({ text, entryId, title, url }))
      : answer.passages.map((text) => ({ text, entryId: '', title: '', url: '' }));
    const qa = answer.qaMatch;
    const qaMatch = qa?.entryId && qa.answer.trim() ? { entryId: qa.entryId, question: qa.question, answer: qa.answer } : null;
    return { context: { chatbot: answer.chatbot, knowledge, qaMatch }, wholeKnowledge: answer.wholeKnowledge };
  }

  return {
    known: (uniqueId) => known.get(uniqueId, null),
    // Its public revision, read along for every chatbot this instance knows.
    readAlong: (chatbot) => keys.chatbotRevision(chatbot.id),
    async load({ uniqueId, message }, sighting) {
      const revision = sighting?.valueAt(keys.chatbotRevision(sighting.chatbot.id));
      // Held under the revision just read, and that revision read for the very chatbot held.
      const held = sighting && revision !== undefined ? prompts.get(uniqueId, revision) : undefined;
      if (held && sighting && held.chatbot.id === sighting.chatbot.id) return held;
      const { context, wholeKnowledge } = await askOnce(uniqueId, message, revision);
      const { chatbot } = context;
      if (opts.remember) {
        known.set(uniqueId, null, { id: chatbot.id, ownerId: chatbot.ownerId, handoffOn: chatbot.handoff?.enabled === true });
        // Kept only under a revision read for this very chatbot, before the call, and never while a
        // Q&A pair could match the next message.
        const keep =
          wholeKnowledge &&
          chatbot.qaPairs === 0 &&
          !context.qaMatch &&
          sighting &&
          sighting.chatbot.id === chatbot.id &&
          revision !== undefined;
        if (keep) prompts.set(uniqueId, revision, context);
        else prompts.delete(uniqueId);
      }
      return context;
    },
    caches: { known, prompts },
  };
}
