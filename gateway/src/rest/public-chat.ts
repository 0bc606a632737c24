// The public chat paths (spec §7, with issues 13 and 15's additions), used by the chat page without signing in:
//   GET  /api/chatbot/public/{uniqueId}          → { name, profilePicture, welcomeMessage, suggestedQuestions }
//   POST /api/chatbot/public/{uniqueId}/chat     → { message, sessionId, sources, messageId }
//   POST /api/chatbot/public/{uniqueId}/feedback   { sessionId, messageId, rating: "up" | "down" } → { messageId, rating }
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
import { Router, type Request, type Response } from 'express';
import { clientIp } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { SendMessageResponse } from '@parley/proto/parley/chat/v1/chat_pb.js';
import type { Clients } from '../clients.ts';
import { mapError } from '../errors.ts';
import { jsonObject, stringField } from './input.ts';

export interface PublicChatOptions {
  /** Deadline of one answer. */
  timeoutMs: number;
  logger: Logger;
}

export function publicChatRoutes(clients: Clients, opts: PublicChatOptions): Router {
  const router = Router();

  router.get('/:uniqueId', async (req, res) => {
    const { name, profilePicture, welcomeMessage, suggestedQuestions } = await clients.chat.getPublicChatbot({
      uniqueId: req.params.uniqueId,
    });
    res.json({ name, profilePicture: profilePicture || null, welcomeMessage, suggestedQuestions });
  });

  router.post('/:uniqueId/chat', async (req, res) => {
    const body = jsonObject(req.body);
    const input = {
      uniqueId: req.params.uniqueId,
      sessionId: stringField(body, 'sessionId'),
      message: stringField(body, 'message'),
      model: stringField(body, 'model'),
      clientIp: clientIp(req),
      userAgent: req.get('user-agent') ?? '',
    };
    // The visitor leaving stops the answer (and the model call behind it); a finished answer has
    // nothing to stop (and aborting would only build an unused DOMException per message).
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const callOptions = { timeoutMs: opts.timeoutMs, signal: abort.signal };

    if (!wantsEventStream(req)) {
      res.json(chatReply(await clients.chat.sendMessage(input, callOptions)));
      return;
    }

    const events = clients.chat.streamMessage(input, callOptions)[Symbol.asyncIterator]();
    // Refusals (unknown bot, empty message, rate limit, no credit) arrive before any event: they
    // throw here and are answered as JSON with their status by the router's error handler.
    const first = await events.next();
    startEventStream(res);
    try {
      for (let step = first; !step.done; step = await events.next()) {
        const { event } = step.value;
        if (event.case === 'delta') sendEvent(res, 'delta', { delta: event.value });
        else if (event.case === 'done') sendEvent(res, 'done', chatReply(event.value));
      }
    } catch (err) {
      if (!abort.signal.aborted) sendEvent(res, 'error', { message: mapError(err, opts.logger).message });
    }
    res.end();
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
    });
    res.json({ messageId: rated.messageId, rating: rated.rating });
  });

  return router;
}

/** The reply as the page reads it, as JSON and as the done event: `url` only for a source that has one. */
function chatReply({ message, sessionId, sources, messageId }: SendMessageResponse) {
  return {
    message,
    sessionId,
    sources: sources.map(({ entryId, title, url }) => (url ? { entryId, title, url } : { entryId, title })),
    messageId,
  };
}

function wantsEventStream(req: Request): boolean {
  return /\btext\/event-stream\b/i.test(req.get('accept') ?? '');
}

function startEventStream(res: Response): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  // Proxies such as nginx would otherwise hold the events back.
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
}

function sendEvent(res: Response, name: string, data: unknown): void {
  res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}
