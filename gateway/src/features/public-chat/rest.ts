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
import { Router, type Request, type RequestHandler } from 'express';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { clientIp } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { GetPublicChatbotResponse, SendMessageResponse } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { appearanceView } from '../chatbots/chatbots.ts';
import { publicLeadForm } from '../leads/leads.ts';
import type { Clients } from '../../http/clients.ts';
import { answerSources } from '../conversations/conversations.ts';
import { clientGone, relayAnswer, sendEvent, wantsEventStream, type AnswerEvents } from '../../http/answer-stream.ts';
import { afterMessageId, handoffView, relayConversation, sessionIdParam, type OpenStreams } from '../conversations/conversation-events.ts';
import { jsonObject, stringField, type JsonObject } from '../../http/input.ts';

export interface PublicChatOptions {
  /** Deadline of one answer. */
  timeoutMs: number;
  logger: Logger;
  /** The product's public address: a request from its origin is from Parley's own pages. */
  publicUrl: string;
  /** How often an open conversation stream pings (conversation-events.ts's 15 s unless a test says otherwise). */
  pingMs?: number;
  /** The gateway's open conversation streams, ended when it shuts down. */
  streams?: OpenStreams;
}

/** The header the embed page sends on its API calls. */
export const EMBED_HEADER = 'X-Parley-Embed';

/**
 * The site of an Origin that names none (a sandboxed frame, a file, a data: URL: the browser sends
 * "null") or cannot be read, or that is not a web page's (http/https). It is from another site, so it
 * is served where the chatbot runs anywhere; and as it can never be a host name (a space and
 * parentheses), no allowed-domains list matches it, so a chatbot kept to its domains refuses it.
 */
export const UNKNOWN_SITE = '(unknown site)';

/**
 * Where a public call came from (the product's rule, common to every public path): "" for no Origin
 * and for Parley's own origins (the public URL's, or the request's own); else the Origin's host name
 * in lower case, without its port (allowed domains are host names: a site's ports are one site).
 */
export function siteHost(origin: string | undefined, ownOrigins: readonly string[]): string {
  if (origin === undefined || origin === '') return '';
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return UNKNOWN_SITE;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return UNKNOWN_SITE;
  // URL lower-cases the host and drops a default port, so the comparison is of origins, not spellings.
  if (ownOrigins.some((own) => originOf(own) === url.origin)) return '';
  return url.hostname;
}

function originOf(address: string): string | undefined {
  try {
    return new URL(address).origin;
  } catch {
    return undefined;
  }
}

/** The request's site and whether it came from the embed page, as the chat service's calls take them. */
export function requestSite(req: Request, publicUrl: string): { siteHost: string; embedded: boolean } {
  return {
    siteHost: siteHost(req.get('origin'), [publicUrl, `${req.protocol}://${req.get('host') ?? ''}`]),
    embedded: req.get(EMBED_HEADER) === '1',
  };
}

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

export function publicChatRoutes(clients: Clients, opts: PublicChatOptions): Router {
  const router = Router();

  router.get('/:uniqueId', async (req, res) => {
    const chatbot = await clients.chat.getPublicChatbot({ uniqueId: req.params.uniqueId, ...requestSite(req, opts.publicUrl) });
    res.json(publicChatbot(chatbot));
  });

  router.get('/:uniqueId/challenge', async (req, res) => {
    const challenge = await clients.chat.createChallenge({ uniqueId: req.params.uniqueId, ...requestSite(req, opts.publicUrl) });
    // ALTCHA's own field names: the widget hands this object to its solver as it is.
    res.json({
      algorithm: challenge.algorithm,
      challenge: challenge.challenge,
      // int64 reaches JavaScript as a bigint (protobuf-es ignores jstype JS_NUMBER), which JSON cannot carry.
      maxnumber: Number(challenge.maxNumber),
      salt: challenge.salt,
      signature: challenge.signature,
    });
  });

  router.post('/:uniqueId/chat', async (req, res) => {
    const body = jsonObject(req.body);
    const visitor = visitorField(body);
    const input = {
      uniqueId: req.params.uniqueId,
      sessionId: stringField(body, 'sessionId'),
      message: stringField(body, 'message'),
      model: stringField(body, 'model'),
      clientIp: clientIp(req),
      userAgent: req.get('user-agent') ?? '',
      ...requestSite(req, opts.publicUrl),
      visitorId: visitor.id,
      visitorName: visitor.name,
      visitorEmail: visitor.email,
      visitorUserHash: visitor.userHash,
      proofOfWork: stringField(body, 'proofOfWork'),
      ...confirmField(body),
    };
    const signal = clientGone(res);
    const callOptions = { timeoutMs: opts.timeoutMs, signal };

    if (!wantsEventStream(req)) {
      res.json(chatReply(await clients.chat.sendMessage(input, callOptions)));
      return;
    }
    await relayAnswer(res, clients.chat.streamMessage(input, callOptions), PUBLIC_EVENTS, { signal, logger: opts.logger });
  });

  router.post('/:uniqueId/feedback', async (req, res) => {
    const body = jsonObject(req.body);
    // The chat service owns every rule: the rating's values, whose message it is, the rate limit.
    const rated = await clients.chat.rateMessage({
      uniqueId: req.params.uniqueId,
      sessionId: stringField(body, 'sessionId'),
      messageId: stringField(body, 'messageId'),
      rating: stringField(body, 'rating'),
      clientIp: clientIp(req),
      ...requestSite(req, opts.publicUrl),
    });
    res.json({ messageId: rated.messageId, rating: rated.rating });
  });

  router.post('/:uniqueId/handoff', async (req, res) => {
    const body = jsonObject(req.body);
    const { state } = await clients.chat.requestHandoff({
      uniqueId: req.params.uniqueId,
      sessionId: sessionIdParam(stringField(body, 'sessionId')),
      clientIp: clientIp(req),
      ...requestSite(req, opts.publicUrl),
    });
    res.json(handoffView(state));
  });

  router.get('/:uniqueId/events', async (req, res) => {
    const input = {
      uniqueId: req.params.uniqueId,
      sessionId: sessionIdParam(req.query.sessionId),
      afterMessageId: afterMessageId(req.query.after, req.get('last-event-id')),
      ...requestSite(req, opts.publicUrl),
    };
    // No deadline: the stream lasts while the visitor is there; the visitor leaving cancels it.
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    await relayConversation(res, clients.chat.watchConversation(input, { signal: abort.signal, timeoutMs: 0 }), {
      signal: abort.signal,
      logger: opts.logger,
      pingMs: opts.pingMs,
      streams: opts.streams,
    });
  });

  return router;
}

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
 * What the host page told the widget about its visitor (Parley.identify): `visitor: { id?, name?,
 * email?, userHash? }`, each "" when not told. Lengths are the chat service's rule, and so is the
 * userHash's check (a wrong one leaves the visitor unverified); only JSON types are checked here.
 */
export function visitorField(body: JsonObject): { id: string; name: string; email: string; userHash: string } {
  const value = body.visitor;
  if (value === undefined || value === null) return { id: '', name: '', email: '', userHash: '' };
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('visitor must be an object');
  const visitor = value as JsonObject;
  for (const key of VISITOR_FIELDS) {
    const field = visitor[key];
    if (field !== undefined && field !== null && typeof field !== 'string') throw invalid(`visitor.${key} must be a string`);
  }
  return {
    id: stringField(visitor, 'id'),
    name: stringField(visitor, 'name'),
    email: stringField(visitor, 'email'),
    userHash: stringField(visitor, 'userHash'),
  };
}

const VISITOR_FIELDS = ['id', 'name', 'email', 'userHash'] as const;

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
function confirmField(body: JsonObject): { confirmCallId: string; confirmDecision: string } {
  const value = body.confirm;
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
