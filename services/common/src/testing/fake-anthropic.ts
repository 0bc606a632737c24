// A local stand-in for Anthropic's Messages API, for tests and benchmarks: POST /v1/messages answered
// plainly or as server-sent events exactly as Anthropic streams them (message_start, then per
// content block content_block_start, its deltas (text_delta, input_json_delta) and
// content_block_stop, then message_delta with the stop reason and the output usage, and
// message_stop), and errors as Anthropic writes them (`{type: "error", error: {type, message}}`).
// The official `@anthropic-ai/sdk` runs against it unmodified (baseURL is the fake's url). Token
// counts are fake-openai.ts's (a token per four characters, the system prompt included), and the
// default answer is its groundedReply, so a test predicts both whatever the provider.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake } from './serve.ts';
import {
  fakeChunks,
  fakePromptTokens,
  fakeTokenCount,
  groundedReply,
  type FakeOpenAIMessage,
  type FakeOpenAIRequest,
} from './fake-openai.ts';

type Block = { type: string; text?: string; [key: string]: unknown };

export interface FakeAnthropicRequest {
  model: string;
  max_tokens: number;
  system?: string | Block[];
  messages: { role: string; content: string | Block[] }[];
  stream?: boolean;
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
  temperature?: number;
  [key: string]: unknown;
}

export interface FakeToolUse {
  name: string;
  input: Record<string, unknown>;
}

export interface FakeAnthropicBehaviour {
  /** Wait before answering at all (before the response headers), in ms. */
  delayMs: number;
  /**
   * Answer every request with this HTTP status and Anthropic's error body of that status (429, 529,
   * 401, 400, 500...); or, computed from each request (as fake-openai's messages), that status or null to answer it.
   */
  failWith: number | null | ((body: FakeOpenAIRequest) => number | null);
  /** The error's message (400: "prompt is too long: 250000 tokens > 200000 maximum" reads as a context too long). */
  failMessage: string | null;
  /** The answer: fixed text, or computed from the request (as fake-openai's messages: the system prompt first). */
  reply: string | ((body: FakeOpenAIRequest) => string);
  /** Tool calls the answer makes after its text (stop_reason tool_use). */
  toolUses: FakeToolUse[];
  /** Of the prompt, tokens reported as read from the cache (cache_read_input_tokens). */
  cacheReadTokens: number;
  /** Wait between streamed events, in ms. */
  chunkDelayMs: number;
  /** Keys answered 401 (authentication_error), on every path: what Anthropic does with a revoked key. */
  refusedKeys: string[];
}

export interface FakeAnthropic {
  /** Base URL for the SDK (the host; the SDK adds /v1/messages). */
  url: string;
  /** Every messages request body received, oldest first. */
  requests: FakeAnthropicRequest[];
  /** The key of each messages request (its x-api-key header, else its bearer token), in the order of `requests`. */
  apiKeys: string[];
  /** The key of each GET /v1/models (what a key's check calls), oldest first. */
  modelListKeys: string[];
  /** Changes what the following requests get; unspecified fields keep their value. */
  setBehaviour(change: Partial<FakeAnthropicBehaviour>): void;
  /** Back to the defaults, and forgets the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULTS: FakeAnthropicBehaviour = {
  delayMs: 0,
  failWith: null,
  failMessage: null,
  reply: groundedReply,
  toolUses: [],
  cacheReadTokens: 0,
  chunkDelayMs: 0,
  refusedKeys: [],
};

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const textOf = (content: string | Block[] | undefined): string =>
  typeof content === 'string' ? content : (content ?? []).map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('');

/** The request as OpenAI's messages (the system prompt first), for the shared reply and token counts. */
export function anthropicAsOpenAIMessages(body: FakeAnthropicRequest): FakeOpenAIMessage[] {
  const system = textOf(body.system);
  return [
    ...(system ? [{ role: 'system', content: system }] : []),
    ...body.messages.map((m) => ({ role: m.role, content: textOf(m.content) })),
  ];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startFakeAnthropic(
  opts: Partial<FakeAnthropicBehaviour> & { port?: number; host?: string } = {},
): Promise<FakeAnthropic> {
  const { port = 0, host = '127.0.0.1', ...initial } = opts;
  let behaviour: FakeAnthropicBehaviour = { ...DEFAULTS, ...initial };
  const requests: FakeAnthropicRequest[] = [];
  const apiKeys: string[] = [];
  const modelListKeys: string[] = [];
  let seq = 0;

  const sendError = (res: ServerResponse, status: number, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_fake_${seq}` });
    res.end(JSON.stringify({ type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    // The key as Anthropic takes it: an x-api-key header, or a bearer token (the SDK's own choice).
    const bearer = req.headers.authorization?.startsWith('Bearer ') ? req.headers.authorization.slice('Bearer '.length) : '';
    const apiKey = typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : bearer;
    if (req.method === 'GET' && path === '/v1/models') {
      modelListKeys.push(apiKey);
      if (!apiKey || behaviour.refusedKeys.includes(apiKey)) return sendError(res, 401, 'invalid x-api-key');
      res.writeHead(200, { 'content-type': 'application/json' });
      const data = [{ type: 'model', id: 'claude-fake', display_name: 'Claude (fake)', created_at: '2025-01-01T00:00:00Z' }];
      res.end(JSON.stringify({ data, has_more: false, first_id: 'claude-fake', last_id: 'claude-fake' }));
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/messages') return sendError(res, 404, `Unknown path ${req.method} ${path}`);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: FakeAnthropicRequest;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeAnthropicRequest;
      if (!Array.isArray(body.messages) || body.messages.length === 0) throw new Error('messages: at least one message is required');
      if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) throw new Error('max_tokens: must be a positive integer');
      if (body.messages.some((m) => m.role !== 'user' && m.role !== 'assistant'))
        throw new Error('messages: roles must be user or assistant');
    } catch (err) {
      return sendError(res, 400, (err as Error).message);
    }
    requests.push(body);
    apiKeys.push(apiKey);
    seq++;
    const b = behaviour;
    if (b.delayMs) await sleep(b.delayMs);
    if (res.destroyed) return;
    if (!apiKey) return sendError(res, 401, 'x-api-key header is required');
    if (b.refusedKeys.includes(apiKey)) return sendError(res, 401, 'invalid x-api-key');
    if (!req.headers['anthropic-version']) return sendError(res, 400, 'anthropic-version header is required');
    const asOpenAI: FakeOpenAIRequest = { model: body.model, messages: anthropicAsOpenAIMessages(body) };
    const failWith = typeof b.failWith === 'function' ? b.failWith(asOpenAI) : b.failWith;
    if (failWith) return sendError(res, failWith, b.failMessage ?? `Fake failure ${failWith}`);

    const text = typeof b.reply === 'function' ? b.reply(asOpenAI) : b.reply;
    const promptTokens = fakePromptTokens(asOpenAI.messages);
    const cacheRead = Math.min(b.cacheReadTokens, promptTokens);
    const toolJson = b.toolUses.map((t) => JSON.stringify(t.input));
    const outputTokens = fakeTokenCount(text) + toolJson.reduce((n, j) => n + fakeTokenCount(j), 0);
    const usage = { input_tokens: promptTokens - cacheRead, cache_creation_input_tokens: 0, cache_read_input_tokens: cacheRead };
    const id = `msg_fake_${seq}`;
    const toolIds = b.toolUses.map((_, i) => `toolu_fake_${seq}_${i}`);
    const stopReason = b.toolUses.length ? 'tool_use' : 'end_turn';

    if (!body.stream) {
      const content: Block[] = [
        ...(text ? [{ type: 'text', text }] : []),
        ...b.toolUses.map((t, i) => ({ type: 'tool_use', id: toolIds[i], name: t.name, input: t.input })),
      ];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          type: 'message',
          role: 'assistant',
          model: body.model,
          content,
          stop_reason: stopReason,
          stop_sequence: null,
          usage: { ...usage, output_tokens: outputTokens },
        }),
      );
      return;
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = async (event: string, data: unknown) => {
      if (b.chunkDelayMs) await sleep(b.chunkDelayMs);
      if (res.destroyed) return false;
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      return true;
    };
    await send('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    });
    let index = 0;
    if (text) {
      await send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of fakeChunks(text)) {
        if (!(await send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } })))
          return;
      }
      await send('content_block_stop', { type: 'content_block_stop', index });
      index++;
    }
    for (const [i, tool] of b.toolUses.entries()) {
      await send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: toolIds[i], name: tool.name, input: {} },
      });
      const json = toolJson[i]!;
      // The arguments arrive as pieces of JSON text, as Anthropic streams them.
      for (let at = 0; at < json.length; at += 16) {
        const partial = json.slice(at, at + 16);
        if (
          !(await send('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: partial },
          }))
        )
          return;
      }
      await send('content_block_stop', { type: 'content_block_stop', index });
      index++;
    }
    await send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    });
    await send('message_stop', { type: 'message_stop' });
    res.end();
  };

  const { origin, close } = await serveFake('Anthropic', handle, (res, message) => sendError(res, 500, message), host, port);

  return {
    url: origin,
    requests,
    apiKeys,
    modelListKeys,
    setBehaviour(change) {
      behaviour = { ...behaviour, ...change };
    },
    reset() {
      behaviour = { ...DEFAULTS, ...initial };
      requests.length = 0;
      apiKeys.length = 0;
      modelListKeys.length = 0;
    },
    close,
  };
}
