// Relaying a streamed answer of the chat service (StreamMessage) to an HTTP client as server-sent
// events, the one way every path streams (the public chat, the developer API and its
// OpenAI-compatible call; only the events' wording differs). Refusals (unknown chatbot, empty message,
// rate limit, no credit) arrive before any event: they throw before the stream starts, and are
// answered as JSON with their status. A failure midway becomes the caller's error event. The client
// leaving stops the answer (and the model call behind it).
import type { Request, Response } from 'express';
import type { Logger } from '@parley/common/logger.ts';
import { gauge } from '@parley/common/metrics.ts';
import type { SendMessageResponse, StreamMessageResponse } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { mapError } from './errors.ts';
import type { HeldStream } from '../access/held-streams.ts';

/** How one kind of client reads the events. */
export interface AnswerEvents {
  delta(res: Response, text: string): void;
  /** A line while one of the chatbot's actions runs ("Looking up order…"); a client without it sees none. */
  status?(res: Response, text: string): void;
  done(res: Response, reply: SendMessageResponse): void;
  error(res: Response, message: string): void;
}

/** Answers this gateway is streaming right now (each one an open SSE response). */
const openAnswers = gauge(
  'parley_gateway_sse_answers_open',
  'Public chat answers this gateway is streaming to visitors now (open SSE responses).',
  [],
);

/** A signal that aborts when the client leaves before the answer is over. */
export function clientGone(res: Response): AbortSignal {
  // A finished answer has nothing to stop (and aborting would only build an unused DOMException per message).
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  return abort.signal;
}

export function wantsEventStream(req: Request): boolean {
  return /\btext\/event-stream\b/i.test(req.get('accept') ?? '');
}

/** Streams the call's events to the client in `events`' words; throws a refusal that comes before the first event. */
export async function relayAnswer(
  res: Response,
  call: AsyncIterable<StreamMessageResponse>,
  events: AnswerEvents,
  opts: { signal: AbortSignal; logger: Logger; held?: HeldStream },
): Promise<void> {
  const stream = call[Symbol.asyncIterator]();
  const first = await stream.next();
  startEventStream(res);
  openAnswers.inc();
  res.once('close', () => openAnswers.dec());
  try {
    for (let step = first; !step.done; step = await stream.next()) {
      // A held answer (a key's) writes nothing while its access is asked about, and nothing once it ended.
      if (opts.held && !(await opts.held.allowed())) return;
      const { event } = step.value;
      if (event.case === 'delta') events.delta(res, event.value);
      else if (event.case === 'done') events.done(res, event.value);
      else if (event.case === 'status') events.status?.(res, event.value);
    }
  } catch (err) {
    if (!opts.signal.aborted) events.error(res, mapError(err, opts.logger).message);
  }
  res.end();
}

export function startEventStream(res: Response): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  // Proxies such as nginx would otherwise hold the events back.
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
}

/** One named event (`event: name`), as the public page and the developer API send them. */
export function sendEvent(res: Response, name: string, data: unknown): void {
  res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}
