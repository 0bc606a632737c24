// The public chat paths (docs/product.md, Public chat and The widget), used by the chat page, the
// embed page (/embed/{uniqueId}, inside the widget) and host pages, without signing in:
//   GET  /api/chatbot/public/{uniqueId}            → { name, profilePicture, welcomeMessage, suggestedQuestions,
//                                                      appearance: { primaryColor, position, launcherLabel, hideBranding },
//                                                      proofOfWork, leadForm: { name, email, phone, trigger, afterMessages,
//                                                      consentText }, handoff }
//   GET  /api/chatbot/public/{uniqueId}/challenge  → { algorithm, challenge, maxnumber, salt, signature } (ALTCHA)
//   POST /api/chatbot/public/{uniqueId}/chat         { message, sessionId?, model?, visitor?: { id?, name? }, proofOfWork? }
//                                                  → { message, sessionId, sources, messageId, offerHandoff, unanswered, handoff?, showLeadForm? }
//   POST /api/chatbot/public/{uniqueId}/feedback     { sessionId, messageId, rating: "up" | "down" } → { messageId, rating }
//   POST /api/chatbot/public/{uniqueId}/handoff      { sessionId } → { status, agentName, waitingSince }
//   GET  /api/chatbot/public/{uniqueId}/events?sessionId=&after=   server-sent events (below)
// sources are the knowledge entries the answer cites, [{ entryId, title, url? }] (url for a web page
// only), in the order of the answer's [n] markers; [] when it cites none. messageId is the stored
// answer's id, which feedback rates (only an answer of the visitor's own conversation: 404 otherwise;
// one rating per answer, changeable; counted against the visitor's chat rate limit).
// With `Accept: text/event-stream` the answer streams as server-sent events:
//   event: delta  data: {"delta":"..."}                                                   (repeated)
//   event: done   data: {"message":"...","sessionId":"...","sources":[...],"messageId":"..."} (last; the message
//                 may differ from the deltas joined: its markers are renumbered to match sources)
//   event: error  data: {"message":"..."}                                                 (instead of done, if it fails midway)
// A failure before the first event is an ordinary JSON error with its status.
//
// Humans in the loop (docs/adr/0034-humans-in-the-loop.md; `handoff` in the lookup: the visitor may
// ask for a person). An answer says `offerHandoff` when the bot offers a person (it could not answer,
// or the visitor asked for one) and `unanswered` when the knowledge could not answer; while the
// conversation is waiting for or with a person, the bot stays silent: `message` and `messageId` are
// "" and `handoff` is { status: "waiting" | "human", agentName (human; else null), waitingSince (ISO) }
// (absent while the bot answers). POST .../handoff asks for a person (the state as it now is;
// asking again changes nothing; 400 when the chatbot's handoff is off, 404 for a session the chat
// service did not issue). GET .../events streams the conversation while a person is involved:
//   event: message  id: <message id>  data: {"id","role":"user"|"assistant"|"system"|"agent","content",
//                                            "authorName" (agent; else null),"createdAt","sources"}
//   event: state    data: {"status","agentName","waitingSince","timedOut"}   (first as it is, then each change;
//                   timedOut true on the change that ended a wait nobody answered)
//   : ping          every 15 s
// first every message after `after` (a message id; the Last-Event-ID header wins over it), then each
// one as it is stored, on whichever replica. The stream has no deadline; a missing sessionId or an
// `after` that is not a message id is 400, an unknown session 404 (as JSON, before any event).
//
// Every call says where it came from (ADR 19): the site (siteHost, from the Origin header) and
// whether Parley's page is the embed page (the header X-Parley-Embed: 1). The chat service decides
// from them whether the chatbot may answer there (403 otherwise). Host pages on any origin call these
// paths, so they (and only they) answer CORS: any origin, no credentials; refusals stay readable.
//
// This file is the public chat's operation table (http/operations.ts): every row public, its body
// validated by the row's schema before the handler runs.
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { clientIp } from '@parley/common/http.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { GetPublicChatbotResponse, SendMessageResponse } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { appearanceView } from '../chatbots/chatbots.ts';
import { publicLeadForm } from '../leads/leads.ts';
import { answerSources } from '../conversations/conversations.ts';
import { clientGone, relayAnswer, sendEvent, wantsEventStream, type AnswerEvents } from '../../http/answer-stream.ts';
import { jsonBody, text, type JsonObject } from '../../http/input.ts';
import { operation, readWith, type Operation } from '../../http/operations.ts';
import { afterMessageId, handoffView, relayConversation, SESSION_ID_REQUIRED, sessionIdParam } from './conversation-events.ts';
import { EMBED_HEADER, requestSite, visitorOf } from './public-chat.ts';

// Where a call came from is every public path's rule, in the view module the lead form shares.
export { siteHost, UNKNOWN_SITE } from './public-chat.ts';

/**
 * CORS for the public paths only: any origin may call them (the chatbot's allowed domains are the
 * chat service's check, not the browser's), without credentials, and every answer, a refusal too,
 * is readable by the calling page. A preflight is answered here.
 */
export const publicChatCors: RequestHandler = (req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (req.method !== 'OPTIONS') return next();
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
  res.setHeader('Access-Control-Allow-Headers', `Content-Type, Accept, ${EMBED_HEADER}`);
  res.setHeader('Access-Control-Max-Age', '600');
  res.status(204).end();
};

const who = 'public';
const base = '/api/chatbot/public/:uniqueId';

// Each body's fields in the order they are checked: the first wrong one is the one named.
const chatBody = jsonBody({
  visitor: readWith(visitorOf),
  sessionId: text('sessionId'),
  message: text('message'),
  model: text('model'),
  proofOfWork: text('proofOfWork'),
  confirm: readWith(confirmOf),
});
const feedbackBody = jsonBody({ sessionId: text('sessionId'), messageId: text('messageId'), rating: text('rating') });
const handoffBody = jsonBody({ sessionId: text('sessionId').refine((id) => id !== '', SESSION_ID_REQUIRED) });
// `after` is read in the handler: the Last-Event-ID header, when sent, wins over it.
const eventsQuery = z.object({ sessionId: readWith(sessionIdParam) });

export const publicChatOperations: Operation[] = [
  operation({ method: 'GET', path: base, who }, async ({ req, app: { clients, publicUrl }, params }) =>
    publicChatbot(await clients.chat.getPublicChatbot({ uniqueId: params.uniqueId, ...requestSite(req, publicUrl) })),
  ),

  operation({ method: 'GET', path: `${base}/challenge`, who }, async ({ req, app: { clients, publicUrl }, params }) => {
    const challenge = await clients.chat.createChallenge({ uniqueId: params.uniqueId, ...requestSite(req, publicUrl) });
    // ALTCHA's own field names: the widget hands this object to its solver as it is.
    return {
      algorithm: challenge.algorithm,
      challenge: challenge.challenge,
      // int64 reaches JavaScript as a bigint (protobuf-es ignores jstype JS_NUMBER), which JSON cannot carry.
      maxnumber: Number(challenge.maxNumber),
      salt: challenge.salt,
      signature: challenge.signature,
    };
  }),

  operation(
    { method: 'POST', path: `${base}/chat`, who, body: chatBody, streams: true },
    async ({ req, res, app: { clients, publicUrl, chatTimeoutMs, logger }, params, body }) => {
      const { visitor } = body;
      const input = {
        uniqueId: params.uniqueId,
        sessionId: body.sessionId,
        message: body.message,
        model: body.model,
        clientIp: clientIp(req),
        userAgent: req.get('user-agent') ?? '',
        ...requestSite(req, publicUrl),
        visitorId: visitor.id,
        visitorName: visitor.name,
        visitorEmail: visitor.email,
        visitorUserHash: visitor.userHash,
        proofOfWork: body.proofOfWork,
        ...body.confirm,
      };
      const signal = clientGone(res);
      const callOptions = { timeoutMs: chatTimeoutMs, signal };

      if (!wantsEventStream(req)) return chatReply(await clients.chat.sendMessage(input, callOptions));
      await relayAnswer(res, clients.chat.streamMessage(input, callOptions), PUBLIC_EVENTS, { signal, logger });
      return undefined;
    },
  ),

  operation(
    { method: 'POST', path: `${base}/feedback`, who, body: feedbackBody },
    async ({ req, app: { clients, publicUrl }, params, body }) => {
      // The chat service owns every rule: the rating's values, whose message it is, the rate limit.
      const rated = await clients.chat.rateMessage({
        uniqueId: params.uniqueId,
        sessionId: body.sessionId,
        messageId: body.messageId,
        rating: body.rating,
        clientIp: clientIp(req),
        ...requestSite(req, publicUrl),
      });
      return { messageId: rated.messageId, rating: rated.rating };
    },
  ),

  operation(
    { method: 'POST', path: `${base}/handoff`, who, body: handoffBody },
    async ({ req, app: { clients, publicUrl }, params, body }) => {
      const { state } = await clients.chat.requestHandoff({
        uniqueId: params.uniqueId,
        sessionId: body.sessionId,
        clientIp: clientIp(req),
        ...requestSite(req, publicUrl),
      });
      return handoffView(state);
    },
  ),

  operation(
    { method: 'GET', path: `${base}/events`, who, query: eventsQuery, streams: true },
    async ({ req, res, app: { clients, publicUrl, logger, ssePingMs, streams }, params, query }) => {
      const input = {
        uniqueId: params.uniqueId,
        sessionId: query.sessionId,
        afterMessageId: afterMessageId(req.query.after, req.get('last-event-id')),
        ...requestSite(req, publicUrl),
      };
      // No deadline: the stream lasts while the visitor is there; the visitor leaving cancels it.
      const abort = new AbortController();
      res.on('close', () => abort.abort());
      await relayConversation(res, clients.chat.watchConversation(input, { signal: abort.signal, timeoutMs: 0 }), {
        signal: abort.signal,
        logger,
        pingMs: ssePingMs,
        streams,
      });
      return undefined;
    },
  ),
];

/** The public lookup as the page and the widget read it. */
function publicChatbot({
  name,
  profilePicture,
  welcomeMessage,
  suggestedQuestions,
  appearance,
  proofOfWork,
  leadForm,
  handoff,
}: GetPublicChatbotResponse) {
  return {
    name,
    profilePicture: profilePicture || null,
    welcomeMessage,
    suggestedQuestions,
    appearance: appearanceView(appearance),
    proofOfWork,
    leadForm: publicLeadForm(leadForm),
    handoff,
  };
}

/**
 * The reply as the page reads it, as JSON and as the done event: `url` only for a source that has
 * one; `handoff` only while a person is asked for or answering (the bot stayed silent);
 * `showLeadForm` only when the model asked for the lead form (its built-in tool, ADR 55).
 */
function chatReply({
  message,
  sessionId,
  sources,
  messageId,
  handoff,
  offerHandoff,
  unanswered,
  showLeadForm,
  confirmation,
}: SendMessageResponse) {
  const withPerson = handoff && handoff.status !== '' && handoff.status !== 'bot';
  return {
    message,
    sessionId,
    sources: answerSources(sources),
    messageId,
    offerHandoff,
    unanswered,
    ...(withPerson ? { handoff: handoffView(handoff) } : {}),
    ...(showLeadForm ? { showLeadForm: true } : {}),
    ...(confirmation
      ? {
          confirmation: {
            callId: confirmation.callId,
            actionName: confirmation.actionName,
            question: confirmation.question,
            expiresAt: confirmation.expiresAt ? timestampDate(confirmation.expiresAt).toISOString() : null,
          },
        }
      : {}),
  };
}

/**
 * The visitor's answer to a confirmation card: `confirm: { callId, decision }` (decision "confirm"
 * or "cancel"). Whether the call is theirs and still open is the chat service's rule.
 */
function confirmOf(value: unknown): { confirmCallId: string; confirmDecision: string } {
  if (value === undefined || value === null) return { confirmCallId: '', confirmDecision: '' };
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('confirm must be an object');
  const confirm = value as JsonObject;
  if (typeof confirm.callId !== 'string' || typeof confirm.decision !== 'string')
    throw invalid('confirm.callId and confirm.decision must be strings');
  return { confirmCallId: confirm.callId, confirmDecision: confirm.decision };
}

/** The public page's events: delta (and status while an action runs), then done (the reply) or error. */
const PUBLIC_EVENTS: AnswerEvents = {
  delta: (res, delta) => sendEvent(res, 'delta', { delta }),
  status: (res, status) => sendEvent(res, 'status', { status }),
  done: (res, reply) => sendEvent(res, 'done', chatReply(reply)),
  error: (res, message) => sendEvent(res, 'error', { message }),
};
