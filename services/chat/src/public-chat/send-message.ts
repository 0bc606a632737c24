// A visitor's message, answered from the chatbot's knowledge base. In order: validate the input,
// count it against the rate limits, load the public chatbot, build the prompt, hold the answer's
// largest cost against its owner's credit (credit-hold.ts), call the model (or, with none
// configured, quote the knowledge in offline mode, which bills nothing and holds nothing), and only
// after a successful answer store both messages and publish the answer's events.
//
// A failed or timed-out answer stores nothing, bills nothing and releases its hold. Once the model has answered, the
// answer is finished even if the visitor has gone (a streamed answer left half-way is still stored
// and billed, since the provider charged for it).
import { randomUUID } from 'node:crypto';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import type { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { ChatbotService, PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { notFound, unavailableToUser } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Interaction, Usage } from '../usage/publishers.ts';
import { buildPrompt, fitHistory, type PromptMessage, type Turn } from './build-prompt.ts';
import { loadRecentTurns, recordExchange } from './conversation-store.ts';
import { CHATBOT_UNAVAILABLE, getPublicChatbot, isValidUniqueId, PUBLIC_CHATBOT_NOT_FOUND } from './get-public-chatbot.ts';
import { LanguageModelError, type LanguageModel, type ModelAnswer } from './language-model.ts';
import { parseMessageInput, type MessageInput, type RawMessageInput } from './message-input.ts';
import { OFFLINE_PASSAGES, offlineAnswer } from './offline-answer.ts';
import type { KnownChatbots } from './known-chatbots.ts';
import type { PromptCache } from './prompt-cache.ts';
import { holdCredit, releaseCredit } from './credit-hold.ts';
import { loadChatbotWithKnowledge, loadPromptKnowledge, retrievalK, retrievePassages, type ChatbotWithKnowledge } from './prompt-knowledge.ts';
import type { ChatRateLimiter } from './rate-limit.ts';
import type { SessionIds } from './session-id.ts';
import { parseRecentTurns, type RecentTurns } from './recent-turns.ts';

export const ANSWER_FAILED = 'The chatbot could not answer right now. Please try again.';

export interface PublicChatLimits {
  maxMessageChars: number;
  maxOutputTokens: number;
  promptKnowledgeChars: number;
  historyChars: number;
}

export interface PublicChatDeps {
  db: PrismaClient;
  /** Where answered exchanges are stored: a pool whose sessions commit without waiting for the flush (conversation-store.ts); none: `db`. */
  exchanges?: PrismaClient;
  logger: Logger;
  chatbots: Client<typeof ChatbotService>;
  billing: Client<typeof BillingService>;
  /** Lets the history read start before the chatbot service has answered (see known-chatbots.ts). */
  knownChatbots?: KnownChatbots;
  /** Spares the chatbot service's call for a chatbot unchanged since its last message (see prompt-cache.ts). */
  promptCache?: PromptCache;
  /** Keeps each conversation's recent turns in Redis, where the rate-limit script reads them (see recent-turns.ts); none: every history is read from the database. */
  recentTurns?: RecentTurns;
  rateLimiter: ChatRateLimiter;
  /** Issues and recognises the conversations' session ids, so a visitor cannot choose (and so join) someone else's. */
  sessionIds: SessionIds;
  /** Null: no model configured, the chatbots answer in offline mode. */
  model: LanguageModel | null;
  publishUsage: (usage: Usage) => Promise<void>;
  publishInteraction: (interaction: Interaction) => Promise<void>;
  limits: PublicChatLimits;
}

export interface SendMessageResult {
  message: string;
  sessionId: string;
}

export type StreamEvent = { delta: string } | { done: SendMessageResult };

/** Everything known before the answer is produced. */
interface PreparedTurn {
  /** The answer's id: its credit hold, UsageRecorded (and its job id) and ChatbotInteraction. */
  requestId: string;
  input: MessageInput;
  chatbot: PublicChatbot;
  receivedAt: Date;
  /** With a model: the prompt, whose answer's largest cost is held. Offline: the quoted passages. */
  prompt: PromptMessage[] | null;
  passages: string[];
  /** The conversation's history the prompt was given (none offline). */
  history: Turn[];
}

async function prepare(deps: PublicChatDeps, raw: RawMessageInput): Promise<PreparedTurn> {
  const receivedAt = new Date();
  const requestId = randomUUID();
  const input = parseMessageInput(raw, deps.limits, deps.sessionIds);
  // Checked before the rate limit so that only a well-formed id ever names a Redis key.
  if (!isValidUniqueId(input.uniqueId)) throw notFound(PUBLIC_CHATBOT_NOT_FOUND);
  const uniqueId = input.uniqueId.trim();
  const budgetChars = deps.model ? deps.limits.promptKnowledgeChars : 0; // offline mode always quotes retrieved passages
  // What this instance knows of the chatbot from its earlier messages: the prompt knowledge it
  // cached, or at least the chatbot's id and owner. The rate-limit script then also reads the
  // conversation's recent turns kept in Redis (without those, the history is read from the
  // database alongside it); both are used only once the chatbot is confirmed to be the same one.
  // A refused message thus costs no call to billing (and no database read when the turns are kept
  // in Redis). The credit hold needs the whole prompt, so it is taken last.
  const cached = deps.model ? deps.promptCache?.get(uniqueId) : undefined;
  const known = cached?.chatbot ?? (deps.model ? deps.knownChatbots?.get(uniqueId) : undefined);
  const earlyHistory = known && !deps.recentTurns ? recentTurns(deps, input, known.id) : undefined;
  let revision: string | null | undefined;
  let kept: Turn[] | null = null;
  try {
    const admission = await deps.rateLimiter.take({
      uniqueId: input.uniqueId,
      clientIp: input.clientIp,
      revisionOf: known?.id,
      sessionId: deps.recentTurns ? input.sessionId : undefined,
    });
    revision = admission.revision;
    if (admission.turns) kept = parseRecentTurns(admission.turns);
  } catch (err) {
    if (err instanceof ConnectError) throw err; // the visitor's limit
    deps.logger.warn({ err: (err as Error).message }, 'rate limit check failed');
    throw unavailableToUser(ANSWER_FAILED);
  }

  let combined: ChatbotWithKnowledge | null;
  if (cached && revision !== undefined && cached.revision === revision && cached.budgetChars === budgetChars) {
    // Nothing the public chat reads of this chatbot has changed since it was cached.
    combined = { chatbot: cached.chatbot, passages: cached.passages, wholeKnowledge: true };
  } else {
    // One call for the chatbot and its knowledge; the two-call path answers when that one cannot.
    try {
      combined = await loadChatbotWithKnowledge(deps.chatbots, {
        uniqueId,
        message: input.message,
        budgetChars,
        k: deps.model ? retrievalK(deps.limits.promptKnowledgeChars) : OFFLINE_PASSAGES,
      });
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.NotFound) {
        deps.promptCache?.delete(uniqueId);
        throw notFound(PUBLIC_CHATBOT_NOT_FOUND);
      }
      deps.logger.warn({ err: (err as Error).message }, 'chatbot GetPromptKnowledge failed');
      throw unavailableToUser(CHATBOT_UNAVAILABLE);
    }
    if (!combined) return prepareInTwoCalls(deps, requestId, input, receivedAt);
    if (!deps.model) return { requestId, input, chatbot: combined.chatbot, receivedAt, prompt: null, passages: combined.passages, history: [] };
    deps.knownChatbots?.set(uniqueId, combined.chatbot);
    // Kept under the revision read before this call, and only for the chatbot that revision was read
    // for: a change committed meanwhile has set a newer one, so the next message fetches again.
    if (combined.wholeKnowledge && revision !== undefined && combined.chatbot.id === known?.id) {
      deps.promptCache?.set(uniqueId, { chatbot: combined.chatbot, passages: combined.passages, revision, budgetChars, storedAt: Date.now() });
    } else {
      deps.promptCache?.delete(uniqueId);
    }
  }
  const { chatbot, passages } = combined;
  if (!deps.model) return { requestId, input, chatbot, receivedAt, prompt: null, passages, history: [] };

  const same = known && known.id === chatbot.id && known.ownerId === chatbot.ownerId;
  let turns: Turn[];
  if (same && kept) turns = fitHistory(kept, deps.limits.historyChars);
  else if (same && earlyHistory) turns = await earlyHistory;
  else turns = await recentTurns(deps, input, chatbot.id); // nothing usable kept: the database
  return held(deps, { requestId, input, chatbot, receivedAt, prompt: promptFor(deps, input, chatbot, passages, turns), passages: [], history: turns });
}

/** The turn, once its answer's largest cost is held against the owner's credit. */
async function held(deps: PublicChatDeps, turn: PreparedTurn): Promise<PreparedTurn> {
  await holdCredit(deps, {
    requestId: turn.requestId,
    ownerId: turn.chatbot.ownerId,
    model: turn.input.model,
    prompt: turn.prompt!,
    maxOutputTokens: deps.limits.maxOutputTokens,
  });
  return turn;
}

/** The conversation's recent turns, started now (awaited later, or never). */
function recentTurns(deps: PublicChatDeps, input: MessageInput, chatbotId: string): Promise<Turn[]> {
  return settleLater(guard(deps, 'history', () => loadRecentTurns(deps.db, { chatbotId, sessionId: input.sessionId }, deps.limits.historyChars)));
}

function promptFor(deps: PublicChatDeps, input: MessageInput, chatbot: PublicChatbot, knowledge: string[], history: Turn[]): PromptMessage[] {
  return buildPrompt({
    botName: chatbot.name,
    language: chatbot.language,
    knowledge,
    knowledgeChars: deps.limits.promptKnowledgeChars,
    history,
    historyChars: deps.limits.historyChars,
    message: input.message,
  });
}

/** The same turn through GetPublicChatbot, then GetChatbot or Retrieve (the path before GetPromptKnowledge). */
async function prepareInTwoCalls(deps: PublicChatDeps, requestId: string, input: MessageInput, receivedAt: Date): Promise<PreparedTurn> {
  const chatbot = await getPublicChatbot(deps, input.uniqueId);

  if (!deps.model) {
    const passages = await guard(deps, 'retrieval', () => retrievePassages(deps.chatbots, chatbot.id, input.message, OFFLINE_PASSAGES));
    return { requestId, input, chatbot, receivedAt, prompt: null, passages, history: [] };
  }

  // The knowledge and the history are independent, so they are fetched side by side.
  const [knowledge, history] = await Promise.all([
    guard(deps, 'knowledge', () => loadPromptKnowledge(deps.chatbots, chatbot, input.message, deps.limits.promptKnowledgeChars)),
    guard(deps, 'history', () => loadRecentTurns(deps.db, { chatbotId: chatbot.id, sessionId: input.sessionId }, deps.limits.historyChars)),
  ]);
  return held(deps, { requestId, input, chatbot, receivedAt, prompt: promptFor(deps, input, chatbot, knowledge, history), passages: [], history });
}

/** The same promise, marked handled: it is awaited later, or never when an earlier step throws. */
function settleLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** A failing dependency (the chatbot service, the database) reaches the visitor as the clear "could not answer" error. */
async function guard<T>(deps: PublicChatDeps, step: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, step }, 'public chat dependency failed');
    throw unavailableToUser(ANSWER_FAILED);
  }
}

/** The model's answer to the held prompt; when there is none, the hold is released before the visitor hears of it. */
async function callModel(deps: PublicChatDeps, turn: PreparedTurn, onDelta?: (delta: string) => void): Promise<ModelAnswer> {
  const model = deps.model!;
  const req = { messages: turn.prompt!, maxTokens: deps.limits.maxOutputTokens };
  try {
    return onDelta ? await model.stream(req, onDelta) : await model.complete(req);
  } catch (err) {
    const e = err as Error;
    deps.logger.warn(
      { err: e.message, kind: err instanceof LanguageModelError ? err.kind : 'unexpected', status: err instanceof LanguageModelError ? err.status : undefined },
      'language model failed',
    );
    await releaseCredit(deps, turn.requestId);
    throw unavailableToUser(ANSWER_FAILED);
  }
}

/** Stores the exchange and publishes its events. The answer is already the visitor's: failures are logged, not thrown. */
async function finish(deps: PublicChatDeps, turn: PreparedTurn, text: string, usage: ModelAnswer | null): Promise<SendMessageResult> {
  const { requestId, input, chatbot } = turn;
  const answeredAt = new Date();
  const log = deps.logger.child({ requestId, chatbotId: chatbot.id });
  // Storing the exchange, publishing its two events and keeping the recent turns are independent: all go side by side.
  const writes: Promise<void>[] = [
    recordExchange(deps.exchanges ?? deps.db, {
      chatbotId: chatbot.id,
      ownerId: chatbot.ownerId,
      sessionId: input.sessionId,
      clientIp: input.clientIp,
      userAgent: input.userAgent,
      message: input.message,
      receivedAt: turn.receivedAt,
      answer: text,
      answeredAt,
    }).catch((err: Error) => log.error({ err: err.message }, 'storing the conversation failed')),
  ];
  if (usage) {
    if (!usage.usageReported) log.warn('the provider reported no token usage; billing an estimate');
    writes.push(deps
      .publishUsage({
        requestId,
        ownerId: chatbot.ownerId,
        chatbotId: chatbot.id,
        chatbotName: chatbot.name,
        model: input.model,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        occurredAt: answeredAt,
      })
      .catch((err: Error) => log.error({ err: err.message, promptTokens: usage.promptTokens, completionTokens: usage.completionTokens }, 'publishing UsageRecorded failed')));
  }
  writes.push(deps
    .publishInteraction({ requestId, chatbotId: chatbot.id, occurredAt: answeredAt })
    .catch((err: Error) => log.error({ err: err.message }, 'publishing ChatbotInteraction failed')));
  if (turn.prompt && deps.recentTurns) {
    // The next message's history: what this prompt was given, then this exchange. If it cannot be
    // kept, the next message reads the history from the database (where the exchange is stored).
    const turns: Turn[] = [...turn.history, { role: 'user', content: input.message }, { role: 'assistant', content: text }];
    writes.push(
      deps.recentTurns.keep(chatbot.id, input.sessionId, turns).catch((err: Error) => {
        log.warn({ err: err.message }, 'keeping the recent turns failed');
        return deps.recentTurns!.forget(chatbot.id, input.sessionId).catch(() => {});
      }),
    );
  }
  await Promise.all(writes);
  return { message: text, sessionId: input.sessionId };
}

export async function sendMessage(deps: PublicChatDeps, raw: RawMessageInput): Promise<SendMessageResult> {
  const turn = await prepare(deps, raw);
  if (!turn.prompt) return finish(deps, turn, offlineAnswer(turn.passages, turn.chatbot.language), null);
  const answer = await callModel(deps, turn);
  return finish(deps, turn, answer.text, answer);
}

/**
 * The same answer as a stream of text deltas, then one `done` event. The answer is produced by a
 * task of its own, so a visitor who stops reading does not stop it half-way.
 */
export async function* streamMessage(deps: PublicChatDeps, raw: RawMessageInput): AsyncGenerator<StreamEvent> {
  const turn = await prepare(deps, raw);
  const pending: string[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  let result: SendMessageResult | undefined;
  let failure: unknown;

  const push = (delta: string) => {
    pending.push(delta);
    wake?.();
  };
  const produce = async (): Promise<SendMessageResult> => {
    if (!turn.prompt) {
      const text = offlineAnswer(turn.passages, turn.chatbot.language);
      push(text);
      return finish(deps, turn, text, null);
    }
    const answer = await callModel(deps, turn, push);
    return finish(deps, turn, answer.text, answer);
  };
  void produce().then(
    (r) => {
      result = r;
    },
    (err) => {
      failure = err;
    },
  ).finally(() => {
    settled = true;
    wake?.();
  });

  for (;;) {
    const delta = pending.shift();
    if (delta !== undefined) {
      yield { delta };
      continue;
    }
    if (settled) break;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = undefined;
  }
  if (failure !== undefined) throw failure;
  yield { done: result! };
}
