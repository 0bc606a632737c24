// Chatting through the developer API: POST /chatbots/{id}/chat and the OpenAI-compatible pair. Both
// go through the chat service's SendMessage and StreamMessage, the public chat's own path: the same
// rate and day limits, credit holds and spend cap, the same recording and billing, with the key's id
// carried along (the answer's cost is attributed to it) and the browser's rules (site, proof of work)
// left out, the key standing for them. The chatbot's public id, which those calls take, is looked up
// once per chatbot and kept (it never changes; a deleted chatbot is refused by the chat service).
// A reply waiting for the user's Confirm carries `confirmation`; the next request's
// `confirm { callId, decision }` answers it, as the public page's does (ADR 54).
import { randomUUID } from 'node:crypto';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Response } from 'express';
import { cache } from '@parley/common/cache.ts';
import { clientIp } from '@parley/common/http.ts';
import { Code, ConnectError, invalid, notFound } from '@parley/common/rpc-errors.ts';
import { CHATBOT_NOT_FOUND } from '@parley/common/not-found.ts';
import type { SendMessageResponse, StreamMessageResponse } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { bearerToken } from '../access/bearer.ts';
import type { Clients } from '../http/clients.ts';
import { answerSources } from '../features/conversations/conversations.ts';
import { clientGone, relayAnswer, sendEvent, type AnswerEvents } from '../http/answer-stream.ts';
import { keyReaches, type ApiV1Options, type On, type V1Call } from './call.ts';
import { bearerChallenge } from '../access/api-keys.ts';

export const modelNotFound = (model: string) => `The model \`${model.slice(0, 100)}\` does not exist or this API key may not use it.`;
export const NO_USER_MESSAGE = 'messages must end with a user message';
export const TEXT_ONLY = 'Only text content is supported';
export const ROLE_UNSUPPORTED = (role: string) => `Messages of the role "${role.slice(0, 40)}" are not supported`;

/**
 * The tokens an answer is billed for, as the chat service counted them for billing; zero when no model
 * answered (a Q&A pair's answer, offline mode): nothing is billed.
 */
export function answerUsage({ usage }: SendMessageResponse) {
  const promptTokens = usage?.promptTokens ?? 0;
  const completionTokens = usage?.completionTokens ?? 0;
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

/** The same counts in OpenAI's words. */
function openAIUsage(reply: SendMessageResponse) {
  const { promptTokens, completionTokens, totalTokens } = answerUsage(reply);
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: totalTokens };
}

/** The API's reply, as JSON and as the done event; `confirmation` only while an action waits for the user (ADR 54). */
const chatReply = (reply: SendMessageResponse) => ({
  message: reply.message,
  conversationId: reply.sessionId,
  sources: answerSources(reply.sources),
  messageId: reply.messageId,
  usage: answerUsage(reply),
  ...(reply.confirmation
    ? {
        confirmation: {
          callId: reply.confirmation.callId,
          actionName: reply.confirmation.actionName,
          question: reply.confirmation.question,
          expiresAt: reply.confirmation.expiresAt ? timestampDate(reply.confirmation.expiresAt).toISOString() : null,
        },
      }
    : {}),
});

/** The public page's events, the conversation named as the API names it. */
const API_EVENTS: AnswerEvents = {
  delta: (res, delta) => sendEvent(res, 'delta', { delta }),
  done: (res, reply) => sendEvent(res, 'done', chatReply(reply)),
  error: (res, message) => sendEvent(res, 'error', { message }),
};

export function chatRoutes(on: On, opts: ApiV1Options): void {
  const { clients } = opts;
  const uniqueIds = publicIds(clients);

  on('POST /api/v1/chatbots/:id/chat', async ({ req, res, key, ownerId, accessMark, body }) => {
    const uniqueId = await uniqueIds(ownerId, String(req.params.id));
    const input = {
      uniqueId,
      sessionId: body.conversationId ?? '',
      message: body.message,
      model: '',
      clientIp: clientIp(req),
      userAgent: req.get('user-agent') ?? '',
      visitorId: body.visitor?.id ?? '',
      visitorName: body.visitor?.name ?? '',
      visitorEmail: body.visitor?.email ?? '',
      visitorUserHash: body.visitor?.userHash ?? '',
      apiKeyId: key.apiKeyId,
      confirmCallId: body.confirm?.callId ?? '',
      confirmDecision: body.confirm?.decision ?? '',
    };
    if (!body.stream) {
      res.json(chatReply(await clients.chat.sendMessage(input, { timeoutMs: opts.chatTimeoutMs, signal: clientGone(res) })));
      return;
    }
    await streamAnswer(
      opts,
      { req, res, key, accessMark },
      (signal) => clients.chat.streamMessage(input, { timeoutMs: opts.chatTimeoutMs, signal }),
      API_EVENTS,
    );
  });

  on('GET /api/v1/openai/models', async ({ res, key, ownerId }) => {
    const { chatbots } = await clients.chatbot.listChatbots({ ownerId, includeKnowledgeBase: false });
    res.json({
      object: 'list',
      data: chatbots
        .filter((c) => keyReaches(key, c.id))
        .map((c) => ({ id: c.id, object: 'model', created: Number(c.createdAt?.seconds ?? 0n), owned_by: 'parley' })),
    });
  });

  on('POST /api/v1/openai/chat/completions', async ({ req, res, key, ownerId, accessMark, body }) => {
    const model = body.model;
    if (!keyReaches(key, model)) throw notFound(modelNotFound(model));
    const uniqueId = await uniqueIds(ownerId, model).catch((err: unknown) => {
      // An id that is no chatbot's, in OpenAI's words (the SDK reads 404 as NotFoundError).
      if (err instanceof ConnectError && (err.code === Code.NotFound || err.code === Code.InvalidArgument))
        throw notFound(modelNotFound(model));
      throw err;
    });
    const { message, history } = conversationOf(body.messages);
    const input = {
      uniqueId,
      sessionId: '',
      message,
      model: '',
      clientIp: clientIp(req),
      userAgent: req.get('user-agent') ?? '',
      visitorId: body.user ?? '',
      apiKeyId: key.apiKeyId,
      history,
    };
    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    if (!body.stream) {
      const reply = await clients.chat.sendMessage(input, { timeoutMs: opts.chatTimeoutMs, signal: clientGone(res) });
      res.json({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          { index: 0, message: { role: 'assistant', content: reply.message, refusal: null }, finish_reason: 'stop', logprobs: null },
        ],
        usage: openAIUsage(reply),
        parley_sources: answerSources(reply.sources),
        parley_message_id: reply.messageId,
      });
      return;
    }
    await streamAnswer(
      opts,
      { req, res, key, accessMark },
      (signal) => clients.chat.streamMessage(input, { timeoutMs: opts.chatTimeoutMs, signal }),
      openAIEvents(id, created, model, body.stream_options?.include_usage === true),
    );
  });
}

/**
 * A key's streamed answer, held (held-streams.ts, ADR 35): a key revoked, rolled past its overlap or
 * expired while the answer streams stops the answer (and the model behind it) and ends the stream
 * with the API's error event; before the first event it is the 401 any refused key gets.
 */
async function streamAnswer(
  opts: ApiV1Options,
  call: Pick<V1Call<'POST /api/v1/chatbots/:id/chat'>, 'req' | 'res' | 'key' | 'accessMark'>,
  start: (signal: AbortSignal) => AsyncIterable<StreamMessageResponse>,
  events: AnswerEvents,
): Promise<void> {
  const { req, res, key } = call;
  const revoked = new AbortController();
  const signal = AbortSignal.any([clientGone(res), revoked.signal]);
  const secret = bearerToken(req) ?? '';
  const held = opts.held.hold({
    holder: { apiKeyId: key.apiKeyId, workspaceId: key.workspaceId },
    since: call.accessMark,
    expiresAtMs: key.expiresAtMs,
    check: async () => (await opts.keys.recheck(secret)).expiresAtMs,
    end: ({ message }) => {
      revoked.abort();
      if (res.writableEnded) return;
      if (!res.headersSent)
        res
          .status(401)
          .setHeader('WWW-Authenticate', bearerChallenge(secret))
          .json({ error: { code: 'unauthenticated', message } });
      else {
        events.error(res, message);
        res.end();
      }
    },
  });
  try {
    await relayAnswer(res, start(signal), events, { signal, logger: opts.logger, held });
  } finally {
    held.release();
  }
}

/**
 * OpenAI's chunks (`data:` lines only, no event names): the role first, then the text, then an
 * empty delta with finish_reason "stop" carrying the sources, then `data: [DONE]`. Asked for the
 * usage (stream_options.include_usage), as OpenAI does: every chunk carries `usage: null`, and one
 * more chunk with no choices carries the answer's usage before `data: [DONE]`. A failure midway is
 * `data: {"error": {...}}`, which OpenAI's SDKs raise as an error.
 */
function openAIEvents(id: string, created: number, model: string, includeUsage: boolean): AnswerEvents {
  let started = false;
  const write = (res: Response, choices: unknown[], extra: Record<string, unknown>) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`);
  const chunk = (res: Response, delta: Record<string, unknown>, extra: Record<string, unknown> = {}, finish: string | null = null) =>
    write(res, [{ index: 0, delta, finish_reason: finish, logprobs: null }], includeUsage ? { usage: null, ...extra } : extra);
  const start = (res: Response) => {
    if (!started) chunk(res, { role: 'assistant', content: '' });
    started = true;
  };
  return {
    delta(res, text) {
      start(res);
      chunk(res, { content: text });
    },
    done(res, reply) {
      start(res);
      chunk(res, {}, { parley_sources: answerSources(reply.sources), parley_message_id: reply.messageId }, 'stop');
      if (includeUsage) write(res, [], { usage: openAIUsage(reply) });
      res.write('data: [DONE]\n\n');
    },
    error(res, message) {
      res.write(`data: ${JSON.stringify({ error: { message, type: 'server_error', code: 'answer_failed' } })}\n\n`);
    },
  };
}

type OpenAIMessage = { role: string; content?: string | null | Array<{ type: string; text?: string }> };

/** The last user message (the visitor's) and the user and assistant turns before it; system messages are the chatbot's own. */
export function conversationOf(messages: OpenAIMessage[]): { message: string; history: { role: string; content: string }[] } {
  const turns: { role: string; content: string }[] = [];
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'developer') continue;
    if (m.role !== 'user' && m.role !== 'assistant') throw invalid(ROLE_UNSUPPORTED(m.role));
    const content = textOf(m.content);
    if (content) turns.push({ role: m.role, content });
  }
  const last = turns.pop();
  if (!last || last.role !== 'user') throw invalid(NO_USER_MESSAGE);
  return { message: last.content, history: turns };
}

function textOf(content: OpenAIMessage['content']): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (part.type !== 'text' || typeof part.text !== 'string') throw invalid(TEXT_ONLY);
      return part.text;
    })
    .join('');
}

/** The public id of a chatbot of the workspace (404 for any other), kept once known. */
function publicIds(clients: Clients) {
  const known = cache<string, string>({ maxEntries: 10_000, maxAgeMs: 10 * 60_000 });
  return (ownerId: string, chatbotId: string): Promise<string> =>
    known.getOrLoad(`${ownerId}:${chatbotId}`, null, async () => {
      const { chatbot } = await clients.chatbot.getChatbot({ ownerId, chatbotId });
      if (!chatbot) throw notFound(CHATBOT_NOT_FOUND);
      return chatbot.uniqueId;
    });
}
