// A visitor's message, answered from the chatbot's knowledge base. It arrives on a channel (the
// public page, the widget, the developer API, the OpenAI-compatible endpoint: channels/channel.ts, ADR
// 0040), chosen where it entered (rpc.ts); the turn reads the channel's rules and never asks who
// called. Read top to bottom, `prepare` is the whole turn before the model, each step owned by one
// collaborator:
//
//   1. input       validated once here (message-input.ts); a malformed uniqueId never names a key
//   2. admission   ONE Redis round trip: counts the per-minute rate limits for the channel's visitor
//                  and, for a chatbot this instance knows, reads what its collaborators read along:
//                  its public revision, the conversation's kept turns, its handoff mirror (admission.ts)
//   3. chatbot     held under that revision (no call), else ONE GetPromptKnowledge call (chatbot-context.ts);
//                  then, with no I/O and when the channel's site rules apply, where it may run: the
//                  request's site (visitor-site.ts, 403)
//   3b. handoff    a chatbot with handoff on (docs/adr/0034-humans-in-the-loop.md): the conversation's
//                  mirror, read along in step 2 when this instance knew the chatbot with handoff on,
//                  else ONE Redis GET (never for a chatbot with handoff off, nor a new conversation).
//                  While a person has it (waiting or human) the bot stays silent: ONE statement stores
//                  the message, it is published to the agents, and the answer is the `handoff` state
//                  with an empty message. No day limit, no history, no credit, no model (visitor-handoff.ts).
//   4. proof       a new conversation's first message on a chatbot that asks for proof of work, on a
//                  channel that asks it: the solved challenge checked, then ONE Redis SET NX so it is
//                  used once (proof-of-work.ts, 403)
//   5. day limit   ONE Redis script: the visitor's messages today, the message counted (daily-limits.ts,
//                  429). No call for a chatbot without a visitor limit.
//   6. history     the channel's: the turns the client sent, or the conversation's: none for a new
//                  conversation, the kept turns when read for this chatbot, else ONE database read
//                  (history-source.ts)
//   7. credit      ONE ReserveCredit call to billing: the answer's largest cost held against the
//                  owner's credit and the chatbot's daily spend limit, both billing's rules
//                  (credit-hold.ts, ADR 0010 and 0022; the limit refuses with the day's 429)
// then the model (one call; on failure one ReleaseCredit and the visitor's message taken back), then
// the recorder (recorder.ts): ONE database statement (the exchange, whose answer's id the visitor
// rates it by; a new conversation keeps the visitor's id and name), the queue publishes
// (UsageRecorded, which settles the hold and counts the answer's exact cost in the chatbot's spend
// today; ChatbotInteraction for analytics) and one Redis SET (the kept turns), side by side. The
// answer's [n] markers become its sources (citations.ts), and stay in its text unless the channel
// shows text alone.
//
// What a message costs the owner: a model answer is billed its exact token cost (billing, from
// UsageRecorded) and counts that much in the chatbot's spend today. A message that matches one of
// the owner's Q&A pairs (step 3 says so) is answered with the owner's answer, verbatim and citing
// that pair: steps 1–5 only (no spend limit, it costs nothing), no history, no credit, no model; the
// exchange and ChatbotInteraction only. Offline mode (no model) likewise, quoting the passages.
// Both still count against the visitor's messages today.
// A refused message (rate or day limits, site, proof, unknown chatbot, no credit, the spend limit)
// stops at its step and writes nothing; one refused by a day limit or left without an answer after
// step 5 (no credit, the spend limit, the history unreadable, the model failed) counts nothing
// against the visitor's messages today.
//
// A failed or timed-out answer stores nothing, bills nothing and releases its hold. Once the model
// has answered, the answer is finished even if the visitor has gone (a streamed answer left
// half-way is still stored and billed, since the provider charged for it).
import { DEFAULT_LANGUAGE, readLanguage } from '@parley/proto/language.ts';
import { randomUUID } from 'node:crypto';
import { ConnectError } from '@connectrpc/connect';
import type { PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { admitMessage, type Admission, type ReadAlong, type Sighting } from '../core/admission.ts';
import type { Channel } from './channels/channel.ts';
import { publicPage } from './channels/public-page.ts';
import { buildPrompt, fitHistory } from './build-prompt.ts';
import type { ChatbotContext, Passage } from './chatbot-context.ts';
import { citeSources, withoutMarkers, type CitedAnswer, type Source } from './citations.ts';
import { maxPromptTokens, type CreditGate } from './credit-hold.ts';
import { visitorLimitsOf, utcDay, type VisitorLimits, type DailyMessageCounter, type DayCount } from './daily-limits.ts';
import type { HistorySource } from './history-source.ts';
import { LanguageModelError, type ModelAnswer } from '../models/language-model.ts';
import type { ChatModels, ChosenModel } from '../models/chat-models.ts';
import { parseMessageInput, type MessageInput, type RawMessageInput } from '../core/message-input.ts';
import { offlineAnswer } from './offline-answer.ts';
import type { ModelTurn, PreparedTurn } from './prepared-turn.ts';
import type { ProofOfWork } from './proof-of-work.ts';
import type { Recorder } from './recorder.ts';
import type { SessionIds } from '../core/session-id.ts';
import { answerFailed } from '../core/visitor-errors.ts';
import { checkSite } from '../core/visitor-site.ts';
import { offersHandoff, parseMirror, type HandoffView } from '../core/handoff.ts';
import type { VisitorHandoff } from './visitor-handoff.ts';
import { identityOf, verifyVisitor, type IdentitySecrets } from './visitor-identity.ts';
import { asStored, forTheModel, restored, restoringStream, turnPrivacy, type TurnPrivacy } from './privacy.ts';
import { chatbotTools, loopHoldTokens, runToolLoop, type LoopAnswer, type ToolLoopDeps } from './tool-loop.ts';
import { CONFIRMATION_INVALID, type PendingCall } from './pending-actions.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { isLimitStop, turnReason } from '../core/reasons.ts';

export interface PublicChatBounds {
  maxMessageChars: number;
  maxOutputTokens: number;
  promptKnowledgeChars: number;
  historyChars: number;
}

export interface PublicChatDeps {
  logger: Logger;
  /** Issues and recognises the conversations' session ids, so a visitor cannot choose (and so join) someone else's. */
  sessionIds: SessionIds;
  admission: Admission;
  chatbotContext: ChatbotContext;
  proofOfWork: ProofOfWork;
  dailyMessages: DailyMessageCounter;
  history: HistorySource;
  credit: CreditGate;
  /** The model of each chatbot (models/chat-models.ts); none offered: the chatbots answer in offline mode. */
  models: ChatModels;
  recorder: Recorder;
  bounds: PublicChatBounds;
  /** Handoff to a person (step 3b); absent: every conversation is the bot's. */
  handoff?: VisitorHandoff;
  /** The chatbots' identity secrets (verified visitors); absent: every visitor is unverified. */
  identity?: IdentitySecrets;
  /** The tool loop of chatbots with HTTP actions (tool-loop.ts); absent: actions are not offered. */
  tools?: ToolLoopDeps;
}

export interface SendMessageResult {
  /** The answer as the visitor finally sees it (and as it is recorded): its markers renumbered to `sources`. */
  message: string;
  sessionId: string;
  sources: Source[];
  /** The stored answer's id, what the visitor rates it by (RateMessage); empty when it could not be stored. */
  messageId: string;
  /** Set when a person has the conversation (waiting or human): the bot stayed silent, `message` and `messageId` are empty. */
  handoff: HandoffView | null;
  /** The bot offers a person: handoff is on, and the knowledge could not answer or the visitor asked for one. */
  offerHandoff: boolean;
  /** The knowledge could not answer (the unanswered rule: the answer cites nothing and is no Q&A pair's). */
  unanswered: boolean;
  /** The model asked for the lead form (its built-in show_lead_form tool, while the lead form is on). */
  showLeadForm: boolean;
  /** The tokens the answer is billed for (the recorder's UsageRecorded counts); null when no model answered: nothing billed. */
  usage: AnswerUsage | null;
  /** The answer ends on an action call waiting for the visitor's Confirm (the card); `message` is its question. Null otherwise. */
  confirmation: PendingConfirmation | null;
}

export interface PendingConfirmation {
  callId: string;
  actionName: string;
  question: string;
  expiresAt: string;
}

const toConfirmation = (p: PendingCall): PendingConfirmation => ({
  callId: p.id,
  actionName: p.actionName,
  question: p.question,
  expiresAt: p.expiresAt,
});

export interface AnswerUsage {
  promptTokens: number;
  completionTokens: number;
}

/** A message the bot stays silent on: a person has the conversation, the message is stored for them (step 3b). */
interface SilentTurn {
  kind: 'handoff';
  input: MessageInput;
  state: HandoffView;
}

/** `status`: a line the visitor sees while a tool runs ("Looking up order…"); the answer streams after it. */
export type StreamEvent = { delta: string } | { status: string } | { done: SendMessageResult };

async function prepare(deps: PublicChatDeps, channel: Channel, raw: RawMessageInput): Promise<PreparedTurn | SilentTurn> {
  const receivedAt = new Date();
  const requestId = randomUUID();
  const input = parseMessageInput(raw, deps.bounds, deps.sessionIds);
  const visitor = channel.visitor(input);
  const known = deps.chatbotContext.known(input.uniqueId);
  // A channel that counts nothing (the owner's test runs) skips admission: no limit, nothing read along.
  const sighting = channel.counted
    ? await admitMessage(deps, { ...input, rateLimited: visitor.rateLimited }, known, readingAlong(deps))
    : null;
  const { chatbot, knowledge, qaMatch } = await deps.chatbotContext.load(input, sighting);
  if (channel.siteRules) checkSite(input.site, chatbot);
  const privacy = turnPrivacy(chatbot);
  const silent = await heldByPerson(deps, input, chatbot, sighting, receivedAt, privacy);
  if (silent) return { kind: 'handoff', input, state: silent };
  // Only a message carrying a userHash reads the chatbot's secret (one row) and computes one HMAC.
  const identity = await verifyVisitor(deps.identity, chatbot.id, input);
  // Only a Confirm or Cancel reads its pending call (one GET, one SET NX): checked as this conversation's before anything is held.
  const decided = input.confirmation ? await decide(deps, channel, chatbot, input) : undefined;
  const visitorLimits = visitorLimitsOf(chatbot);
  if (channel.proofOfWork && visitorLimits.proofOfWork && input.newConversation) await redeemProof(deps, input.proofOfWork);
  const qa = decided ? null : qaMatch;
  const model = qa ? null : await chooseModel(deps, chatbot);
  const day = utcDay(receivedAt);
  const counted = channel.counted
    ? await countToday(deps, { chatbotId: chatbot.id, clientIp: visitor.countedToday, day, visitorLimits }).catch(
        limitStopped(deps, chatbot, input),
      )
    : { chatbotId: chatbot.id, day, visitorKey: null };
  if (qa) return { kind: 'qa', requestId, input, chatbot, receivedAt, identity, privacy, qa };
  if (!model) return { kind: 'offline', requestId, input, chatbot, receivedAt, identity, privacy, passages: knowledge };

  // From here a failure (the history unreadable, no credit, the spend limit) leaves the visitor
  // without an answer: the message no longer counts today.
  const { history, prompt, passages } = await promptAndReserve(
    deps,
    channel,
    requestId,
    input,
    chatbot,
    visitorLimits,
    knowledge,
    sighting,
    model,
    privacy,
  ).catch(async (err: unknown) => {
    await deps.dailyMessages.uncount(counted, deps.logger);
    return limitStopped(deps, chatbot, input)(err);
  });
  return {
    kind: 'model',
    model: model.language,
    requestId,
    input,
    chatbot,
    receivedAt,
    identity,
    privacy,
    prompt,
    passages,
    history,
    counted,
    decided,
  };
}

/** The visitor's Confirm or Cancel: the pending call, this conversation's, with the decision set once (pending-actions.ts). */
async function decide(deps: PublicChatDeps, channel: Channel, chatbot: PublicChatbot, input: MessageInput) {
  const confirmation = input.confirmation!;
  if (!usesTools(deps, channel, chatbot) || !deps.tools.pending || input.newConversation) throw invalid(CONFIRMATION_INVALID);
  const call = await deps.tools.pending
    .decide(confirmation.callId, chatbot.id, input.sessionId, confirmation.decision)
    .catch(redisStep(deps, 'reading a pending action call'));
  return { call, decision: confirmation.decision };
}

/**
 * A refusal passed on; when a visitor, spend or credit limit stopped a continued conversation of a
 * chatbot that offers a person, first noted (ONE Redis SET, only then) so the handoff asked next is
 * limit_reached (core/reasons.ts). Noting it never fails the refusal.
 */
function limitStopped(deps: PublicChatDeps, chatbot: PublicChatbot, input: MessageInput) {
  return async (err: unknown): Promise<never> => {
    if (isLimitStop(err) && deps.handoff && chatbot.handoff?.enabled === true && !input.newConversation) {
      await deps.handoff
        .limitStopped(chatbot.id, input.sessionId, new Date())
        .catch((e: Error) => deps.logger.warn({ err: e.message }, 'noting the limit stop failed'));
    }
    throw err;
  };
}

/** The collaborators that read along in admission's round trip, in the order their keys are read. */
const readingAlong = (deps: PublicChatDeps): ReadAlong[] =>
  deps.handoff ? [deps.chatbotContext, deps.history, deps.handoff] : [deps.chatbotContext, deps.history];

/** Steps 6 and 7: the history, the prompt built from it, and the credit held for its answer. */
async function promptAndReserve(
  deps: PublicChatDeps,
  channel: Channel,
  requestId: string,
  input: MessageInput,
  chatbot: PublicChatbot,
  visitorLimits: VisitorLimits,
  knowledge: Passage[],
  sighting: Sighting | null,
  model: ChosenModel,
  privacy: TurnPrivacy | null,
) {
  const history =
    channel.history === 'client'
      ? fitHistory(input.clientHistory ?? [], deps.bounds.historyChars)
      : await deps.history.load(chatbot, input, sighting);
  // What the model reads: with privacy on, the visitor's words with their personal data replaced.
  const read = forTheModel(privacy, history, input.message);
  const { messages: prompt, passages } = buildPrompt({
    botName: chatbot.name,
    language: readLanguage(chatbot) ?? DEFAULT_LANGUAGE,
    answerInVisitorLanguage: chatbot.voice?.answerInVisitorLanguage === true,
    voice: { instructions: chatbot.voice?.instructions ?? '', noAnswerMessage: chatbot.voice?.noAnswerMessage ?? '' },
    knowledge,
    knowledgeChars: model.knowledgeChars,
    history: read.history,
    historyChars: model.historyChars,
    message: read.message,
  });
  const loop = usesTools(deps, channel, chatbot) ? loopHoldTokens(maxPromptTokens(prompt), chatbotTools(chatbot, channel)) : null;
  await deps.credit.reserve({
    requestId,
    ownerId: chatbot.ownerId,
    model: model.holdModel(loop ? loop.promptTokens : maxPromptTokens(prompt)),
    loop: loop ? { maxPromptTokens: loop.promptTokens, maxCompletionTokens: loop.calls * deps.bounds.maxOutputTokens } : undefined,
    ownKey: model.ownKey,
    prompt,
    chatbotId: chatbot.id,
    dailySpendLimit: visitorLimits.dailySpendLimit,
  });
  return { history, prompt, passages };
}

/**
 * Step 3b: the handoff state of a continued conversation of a chatbot with handoff on, from the
 * mirror read along (a known chatbot) or one GET; when a person has it, the message stored for
 * them. Null: the bot answers (handoff off, a new conversation, the bot's, or the mirror unreadable:
 * a lost mirror lets the bot answer).
 */
async function heldByPerson(
  deps: PublicChatDeps,
  input: MessageInput,
  chatbot: PublicChatbot,
  sighting: Sighting | null,
  receivedAt: Date,
  privacy: TurnPrivacy | null,
): Promise<HandoffView | null> {
  if (!deps.handoff || chatbot.handoff?.enabled !== true || input.newConversation) return null;
  const handoff = deps.handoff;
  const readAlong = sighting?.chatbot.id === chatbot.id ? sighting.valueAt(handoff.key(chatbot.id, input.sessionId)) : undefined;
  let mirror: string | null;
  if (readAlong !== undefined) mirror = readAlong;
  else {
    try {
      mirror = await handoff.read(chatbot.id, input.sessionId);
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'reading the handoff mirror failed');
      return null;
    }
  }
  if (!parseMirror(mirror)) return null;
  try {
    return await handoff.keep({ chatbot, sessionId: input.sessionId, message: asStored(privacy, input.message), receivedAt });
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, "storing the visitor's message for a person failed");
    throw answerFailed();
  }
}

/** The chatbot's model; reading the workspace's own provider keys failed: the visitor is told the chatbot could not answer. */
async function chooseModel(deps: PublicChatDeps, chatbot: PublicChatbot): Promise<ChosenModel | null> {
  try {
    return await deps.models.choose(chatbot);
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, "reading the workspace's own provider keys failed");
    throw answerFailed();
  }
}

/** A Redis failure on the way to an answer: logged, and the visitor told the chatbot could not answer; a refusal passes through. */
function redisStep(deps: PublicChatDeps, what: string) {
  return (err: unknown): never => {
    if (err instanceof ConnectError) throw err; // the visitor's refusal
    deps.logger.warn({ err: (err as Error).message }, `${what} failed`);
    throw answerFailed();
  };
}

function redeemProof(deps: PublicChatDeps, payload: string): Promise<void> {
  return deps.proofOfWork.redeem(payload).catch(redisStep(deps, 'the proof-of-work check'));
}

function countToday(deps: PublicChatDeps, q: Parameters<DailyMessageCounter['count']>[0]): Promise<DayCount> {
  return deps.dailyMessages.count(q).catch(redisStep(deps, 'the daily limits check'));
}

/** Whether a chatbot's answer goes through the tool loop: it has tools (actions, MCP tools, built-in ones), and this service offers them. */
const usesTools = (deps: PublicChatDeps, channel: Channel, chatbot: PublicChatbot): deps is PublicChatDeps & { tools: ToolLoopDeps } =>
  deps.tools !== undefined && chatbotTools(chatbot, channel).length > 0;

/**
 * The model's answer to the held prompt (through the tool loop for a chatbot with actions), its
 * placeholders restored for the visitor (streamed too: privacy.ts); when there is none, the hold is
 * released before the visitor hears of it.
 */
async function callModel(
  deps: PublicChatDeps,
  channel: Channel,
  turn: ModelTurn,
  onDelta?: (delta: string) => void,
  onStatus?: (status: string) => void,
): Promise<ModelAnswer | LoopAnswer> {
  // The owner's temperature when set; otherwise none is sent and the provider's default applies.
  const req = { messages: turn.prompt, maxTokens: deps.bounds.maxOutputTokens, temperature: turn.chatbot.voice?.temperature };
  try {
    const stream = onDelta ? restoringStream(turn.privacy, onDelta) : null;
    const answer = usesTools(deps, channel, turn.chatbot)
      ? await runToolLoop(deps.tools, {
          ...req,
          model: turn.model,
          prompt: turn.prompt,
          chatbotId: turn.chatbot.id,
          sessionId: turn.input.sessionId,
          requestId: turn.requestId,
          tools: chatbotTools(turn.chatbot, channel),
          onDelta: stream?.onDelta,
          onStatus,
          decided: turn.decided,
          identity: identityOf(turn),
        })
      : stream
        ? await turn.model.stream(req, stream.onDelta)
        : await turn.model.complete(req);
    stream?.end();
    return turn.privacy ? { ...answer, text: restored(turn.privacy, answer.text) } : answer;
  } catch (err) {
    deps.logger.warn(
      {
        err: (err as Error).message,
        kind: err instanceof LanguageModelError ? err.kind : 'unexpected',
        status: err instanceof LanguageModelError ? err.status : undefined,
      },
      'language model failed',
    );
    await Promise.all([deps.credit.release(turn.requestId), deps.dailyMessages.uncount(turn.counted, deps.logger)]);
    throw answerFailed();
  }
}

/**
 * The answer (the model's streamed through `onDelta` as it comes, markers as the model wrote them),
 * then its citations in the channel's form, recorded as the visitor finally sees it before it is returned.
 */
async function answer(
  deps: PublicChatDeps,
  channel: Channel,
  turn: PreparedTurn | SilentTurn,
  onDelta?: (delta: string) => void,
  onStatus?: (status: string) => void,
): Promise<SendMessageResult> {
  if (turn.kind === 'handoff') {
    return {
      message: '',
      sessionId: turn.input.sessionId,
      sources: [],
      messageId: '',
      handoff: turn.state,
      offerHandoff: false,
      unanswered: false,
      showLeadForm: false,
      usage: null,
      confirmation: null,
    };
  }
  let cited: CitedAnswer;
  let usage: ModelAnswer | LoopAnswer | null = null;
  if (turn.kind === 'model') {
    usage = await callModel(deps, channel, turn, onDelta, onStatus);
    cited = citeSources(usage.text, turn.passages);
  } else {
    cited =
      turn.kind === 'qa'
        ? { message: turn.qa.answer, sources: [{ entryId: turn.qa.entryId, title: turn.qa.question, url: '' }] }
        : offlineAnswer(turn.passages, readLanguage(turn.chatbot) ?? DEFAULT_LANGUAGE);
    onDelta?.(cited.message);
  }
  const shown = channel.answer.citations === 'markers' ? cited : withoutMarkers(cited);
  const asked = usage && 'offerHandoff' in usage ? usage : null;
  const confirmation = asked?.confirmation ? toConfirmation(asked.confirmation) : null;
  const unanswered = turn.kind !== 'qa' && !confirmation && shown.sources.length === 0;
  // The phrase and unanswered rules, or the model's built-in handoff tool (offered only while handoff is on).
  const offerHandoff =
    offersHandoff(turn.chatbot.handoff?.enabled === true, unanswered, turn.input.message) || asked?.offerHandoff === true;
  const showLeadForm = asked?.showLeadForm === true;
  // Why the answer could not help (core/reasons.ts), stored with it: no I/O of its own.
  const reason = turnReason({ message: turn.input.message, unanswered, offerHandoff, ...asked?.reasonFacts });
  const messageId = await deps.recorder.record(turn, shown, usage, reason);
  // The counts the recorder billed (UsageRecorded), so the caller can tell its own client what the answer cost.
  const billed = usage ? { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens } : null;
  return {
    ...shown,
    sessionId: turn.input.sessionId,
    messageId,
    handoff: null,
    offerHandoff,
    unanswered,
    showLeadForm,
    usage: billed,
    confirmation,
  };
}

/** A message on `channel` (chosen by rpc.ts); a caller that names none is the public page. */
export async function sendMessage(deps: PublicChatDeps, raw: RawMessageInput, channel: Channel = publicPage): Promise<SendMessageResult> {
  return answer(deps, channel, await prepare(deps, channel, raw));
}

/**
 * The same answer as a stream of text deltas (when the channel's answers stream; else none), then
 * one `done` event. The answer is produced by a task of its own, so a visitor who stops reading
 * does not stop it half-way.
 */
export async function* streamMessage(
  deps: PublicChatDeps,
  raw: RawMessageInput,
  channel: Channel = publicPage,
): AsyncGenerator<StreamEvent> {
  const turn = await prepare(deps, channel, raw);
  const pending: ({ delta: string } | { status: string })[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  let outcome: { result: SendMessageResult } | { failure: unknown } | undefined;

  const push = (event: { delta: string } | { status: string }) => {
    pending.push(event);
    wake?.();
  };
  const streams = channel.answer.streams;
  void answer(deps, channel, turn, streams ? (delta) => push({ delta }) : undefined, streams ? (status) => push({ status }) : undefined)
    .then(
      (result) => {
        outcome = { result };
      },
      (failure: unknown) => {
        outcome = { failure };
      },
    )
    .finally(() => {
      settled = true;
      wake?.();
    });

  for (;;) {
    const event = pending.shift();
    if (event !== undefined) {
      yield event;
      continue;
    }
    if (settled) break;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = undefined;
  }
  if (!outcome || 'failure' in outcome) throw outcome ? outcome.failure : answerFailed();
  yield { done: outcome.result };
}
