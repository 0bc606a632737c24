// A local stand-in for Google's Gemini API, for tests and benchmarks: POST
// /v1beta/models/{model}:generateContent answered with one GenerateContentResponse, and
// :streamGenerateContent?alt=sse with a server-sent event per piece of the answer, the last one
// carrying the finish reason and the whole usageMetadata (promptTokenCount, candidatesTokenCount,
// cachedContentTokenCount, thoughtsTokenCount), functionCall parts for tool calls, and errors as
// Google writes them (`{error: {code, message, status}}`). The official `@google/genai` SDK runs
// against it unmodified (httpOptions.baseUrl is the fake's url). Token counts are fake-openai.ts's
// (a token per four characters, the system instruction included), and the default answer is its
// groundedReply, so a test predicts both whatever the provider.
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

type Part = {
  text?: string;
  thought?: boolean;
  functionCall?: { id?: string; name: string; args: Record<string, unknown> };
  [key: string]: unknown;
};

export interface FakeGeminiRequest {
  /** The model named in the path. */
  model: string;
  /** True for :streamGenerateContent. */
  stream: boolean;
  contents: { role?: string; parts: Part[] }[];
  systemInstruction?: { role?: string; parts: Part[] };
  generationConfig?: { maxOutputTokens?: number; temperature?: number; [key: string]: unknown };
  tools?: { functionDeclarations?: { name: string; description?: string; [key: string]: unknown }[] }[];
  [key: string]: unknown;
}

export interface FakeFunctionCall {
  name: string;
  args: Record<string, unknown>;
}

export interface FakeGeminiBehaviour {
  /** Wait before answering at all (before the response headers), in ms. */
  delayMs: number;
  /** Answer every request with this HTTP status and Google's error body of that status (429, 503, 401, 400, 500...). */
  failWith: number | null;
  /** The error's message (400: "The input token count (250000) exceeds the maximum number of tokens allowed (8192)." reads as a context too long). */
  failMessage: string | null;
  /** The answer: fixed text, or computed from the request (as fake-openai's messages: the system instruction first). */
  reply: string | ((body: FakeOpenAIRequest) => string);
  /** Function calls the answer makes after its text. */
  functionCalls: FakeFunctionCall[];
  /** Of the prompt, tokens reported as cached (cachedContentTokenCount). */
  cachedTokens: number;
  /** Thinking tokens reported (thoughtsTokenCount), billed as output. */
  thoughtsTokens: number;
  /** Wait between streamed events, in ms. */
  chunkDelayMs: number;
  /** API keys answered 400 "API key not valid" on GET /v1beta/models (a key check), as Google answers an unknown key. */
  refusedKeys: string[];
}

export interface FakeGemini {
  /** Base URL for the SDK (the host; the SDK adds /v1beta/models/...). */
  url: string;
  /** Every generate request received, oldest first. */
  requests: FakeGeminiRequest[];
  /** The API key of every GET /v1beta/models (a key check), oldest first. */
  modelListKeys: string[];
  /** Changes what the following requests get; unspecified fields keep their value. */
  setBehaviour(change: Partial<FakeGeminiBehaviour>): void;
  /** Back to the defaults, and forgets the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULTS: FakeGeminiBehaviour = {
  delayMs: 0,
  failWith: null,
  failMessage: null,
  reply: groundedReply,
  functionCalls: [],
  cachedTokens: 0,
  thoughtsTokens: 0,
  chunkDelayMs: 0,
  refusedKeys: [],
};

const STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const textOf = (parts: Part[] | undefined): string => (parts ?? []).map((p) => p.text ?? '').join('');

/** The request as OpenAI's messages (the system instruction first), for the shared reply and token counts. */
export function geminiAsOpenAIMessages(body: FakeGeminiRequest): FakeOpenAIMessage[] {
  const system = textOf(body.systemInstruction?.parts);
  return [
    ...(system ? [{ role: 'system', content: system }] : []),
    ...body.contents.map((c) => ({ role: c.role === 'model' ? 'assistant' : 'user', content: textOf(c.parts) })),
  ];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startFakeGemini(opts: Partial<FakeGeminiBehaviour> & { port?: number; host?: string } = {}): Promise<FakeGemini> {
  const { port = 0, host = '127.0.0.1', ...initial } = opts;
  let behaviour: FakeGeminiBehaviour = { ...DEFAULTS, ...initial };
  const requests: FakeGeminiRequest[] = [];
  const modelListKeys: string[] = [];
  let seq = 0;

  const sendError = (res: ServerResponse, code: number, message: string) => {
    res.writeHead(code, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify({ error: { code, message, status: STATUSES[code] ?? 'UNKNOWN' } }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/v1beta/models') {
      const header = req.headers['x-goog-api-key'];
      const apiKey = (typeof header === 'string' ? header : '') || (url.searchParams.get('key') ?? '');
      modelListKeys.push(apiKey);
      if (!apiKey) return sendError(res, 403, "Method doesn't allow unregistered callers.");
      if (behaviour.refusedKeys.includes(apiKey)) return sendError(res, 400, 'API key not valid. Please pass a valid API key.');
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      const models = [{ name: 'models/gemini-fake', displayName: 'Gemini (fake)', supportedGenerationMethods: ['generateContent'] }];
      res.end(JSON.stringify({ models }));
      return;
    }
    const route = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(url.pathname);
    if (req.method !== 'POST' || !route) return sendError(res, 404, `Unknown path ${req.method} ${url.pathname}`);
    const stream = route[2] === 'streamGenerateContent';
    if (stream && url.searchParams.get('alt') !== 'sse') return sendError(res, 400, 'this fake streams only with alt=sse');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: FakeGeminiRequest;
    try {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeGeminiRequest;
      if (!Array.isArray(parsed.contents) || parsed.contents.length === 0) throw new Error('contents is not specified');
      if (parsed.contents.some((c) => !Array.isArray(c.parts) || (c.role !== undefined && c.role !== 'user' && c.role !== 'model')))
        throw new Error('contents: each needs parts, and a role of user or model');
      body = { ...parsed, model: decodeURIComponent(route[1]!), stream };
    } catch (err) {
      return sendError(res, 400, `Invalid JSON payload received. ${(err as Error).message}`);
    }
    requests.push(body);
    seq++;
    const b = behaviour;
    if (b.delayMs) await sleep(b.delayMs);
    if (res.destroyed) return;
    if (!req.headers['x-goog-api-key'] && !url.searchParams.get('key'))
      return sendError(res, 401, "Method doesn't allow unregistered callers.");
    if (b.failWith) return sendError(res, b.failWith, b.failMessage ?? `Fake failure ${b.failWith}`);

    const asOpenAI: FakeOpenAIRequest = { model: body.model, messages: geminiAsOpenAIMessages(body) };
    const text = typeof b.reply === 'function' ? b.reply(asOpenAI) : b.reply;
    const promptTokenCount = fakePromptTokens(asOpenAI.messages);
    const calls: Part[] = b.functionCalls.map((f) => ({ functionCall: { name: f.name, args: f.args } }));
    const candidatesTokenCount = fakeTokenCount(text) + b.functionCalls.reduce((n, f) => n + fakeTokenCount(JSON.stringify(f.args)), 0);
    const usageMetadata = {
      promptTokenCount,
      candidatesTokenCount,
      totalTokenCount: promptTokenCount + candidatesTokenCount + b.thoughtsTokens,
      ...(b.cachedTokens ? { cachedContentTokenCount: Math.min(b.cachedTokens, promptTokenCount) } : {}),
      ...(b.thoughtsTokens ? { thoughtsTokenCount: b.thoughtsTokens } : {}),
    };
    const responseId = `fake-gemini-${seq}`;
    const response = (parts: Part[], last: boolean) => ({
      candidates: [{ content: { role: 'model', parts }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
      // Google reports the prompt on every event and the whole usage on the last.
      usageMetadata: last ? usageMetadata : { promptTokenCount, totalTokenCount: promptTokenCount },
      modelVersion: body.model,
      responseId,
    });

    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(response([...(text ? [{ text }] : []), ...calls], true)));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const pieces = fakeChunks(text);
    const events: Part[][] = pieces.map((t) => [{ text: t }]);
    if (calls.length) events.push(calls);
    if (events.length === 0) events.push([]);
    for (const [i, parts] of events.entries()) {
      if (b.chunkDelayMs) await sleep(b.chunkDelayMs);
      if (res.destroyed) return;
      res.write(`data: ${JSON.stringify(response(parts, i === events.length - 1))}\r\n\r\n`);
    }
    res.end();
  };

  const { origin, close } = await serveFake('Gemini', handle, (res, message) => sendError(res, 500, message), host, port);

  return {
    url: origin,
    requests,
    modelListKeys,
    setBehaviour(change) {
      behaviour = { ...behaviour, ...change };
    },
    reset() {
      behaviour = { ...DEFAULTS, ...initial };
      requests.length = 0;
      modelListKeys.length = 0;
    },
    close,
  };
}
