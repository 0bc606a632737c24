// A local stand-in for an OpenAI-compatible Chat Completions API, for tests, benchmarks and the
// end-to-end suite: POST /v1/chat/completions answered plainly or as server-sent events exactly as
// OpenAI streams them (content deltas, then a usage chunk with `choices: []` when
// stream_options.include_usage is set, then `data: [DONE]`). Token counts are rough (a token per
// four characters) but exact for a given text, so a test can predict them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface FakeOpenAIMessage {
  role: string;
  content: string;
}

export interface FakeOpenAIRequest {
  model: string;
  messages: FakeOpenAIMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  [key: string]: unknown;
}

export interface FakeOpenAIBehaviour {
  /** Wait before answering at all (before the response headers), in ms. */
  delayMs: number;
  /** Answer every request with this HTTP status and an OpenAI-style error body. */
  failWith: number | null;
  /** The answer: fixed text, or computed from the request. */
  reply: string | ((body: FakeOpenAIRequest) => string);
  /** Wait between streamed chunks, in ms. */
  chunkDelayMs: number;
}

export interface FakeOpenAI {
  /** Base URL for the SDK, ending in /v1. */
  url: string;
  /** Every request body received, oldest first. */
  requests: FakeOpenAIRequest[];
  /** Changes what the following requests get; unspecified fields keep their value. */
  setBehaviour(change: Partial<FakeOpenAIBehaviour>): void;
  /** Back to the defaults, and forgets the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

/** Rough token count: one token per four characters (code points), at least one for any text. */
export const fakeTokenCount = (text: string): number => Math.ceil([...text].length / 4);

/** The prompt tokens the fake reports for a request: every message's content counted together. */
export const fakePromptTokens = (messages: FakeOpenAIMessage[]): number => fakeTokenCount(messages.map((m) => m.content).join(''));

const defaultReply = (body: FakeOpenAIRequest): string => {
  const last = [...body.messages].reverse().find((m) => m.role === 'user');
  return `This is a test answer to: ${last?.content ?? ''}`;
};

const DEFAULTS: FakeOpenAIBehaviour = { delayMs: 0, failWith: null, reply: defaultReply, chunkDelayMs: 0 };

/** Splits an answer into streamed pieces of a few words each (whitespace kept, so they join back exactly). */
export function fakeChunks(text: string): string[] {
  return (
    text.match(/\S+\s*|\s+/g)?.reduce<string[]>((out, word, i) => {
      if (i % 3 === 0) out.push(word);
      else out[out.length - 1] += word;
      return out;
    }, []) ?? []
  );
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startFakeOpenAI(opts: Partial<FakeOpenAIBehaviour> & { port?: number; host?: string } = {}): Promise<FakeOpenAI> {
  const { port = 0, host = '127.0.0.1', ...initial } = opts;
  let behaviour: FakeOpenAIBehaviour = { ...DEFAULTS, ...initial };
  const requests: FakeOpenAIRequest[] = [];
  let seq = 0;

  const sendError = (res: ServerResponse, status: number, message: string, type = 'invalid_request_error') => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', created: 0, owned_by: 'fake' }] }));
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') return sendError(res, 404, `Unknown path ${req.method} ${path}`);

    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: FakeOpenAIRequest;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeOpenAIRequest;
      if (!Array.isArray(body.messages)) throw new Error('messages must be an array');
    } catch (err) {
      return sendError(res, 400, `Invalid body: ${(err as Error).message}`);
    }
    requests.push(body);
    const b = behaviour;

    if (b.delayMs) await sleep(b.delayMs);
    if (res.destroyed) return;
    if (!req.headers.authorization?.startsWith('Bearer ')) return sendError(res, 401, 'Missing API key', 'authentication_error');
    if (b.failWith)
      return sendError(res, b.failWith, `Fake failure ${b.failWith}`, b.failWith >= 500 ? 'server_error' : 'invalid_request_error');

    const text = typeof b.reply === 'function' ? b.reply(body) : b.reply;
    const usage = {
      prompt_tokens: fakePromptTokens(body.messages),
      completion_tokens: fakeTokenCount(text),
      total_tokens: fakePromptTokens(body.messages) + fakeTokenCount(text),
    };
    const id = `chatcmpl-fake-${++seq}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model;

    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
          usage,
        }),
      );
      return;
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(body.stream_options?.include_usage ? { usage: null } : {}),
    });
    send(chunk({ role: 'assistant', content: '' }, null));
    for (const piece of fakeChunks(text)) {
      if (b.chunkDelayMs) await sleep(b.chunkDelayMs);
      if (res.destroyed) return;
      send(chunk({ content: piece }, null));
    }
    send(chunk({}, 'stop'));
    if (body.stream_options?.include_usage) send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
    res.end('data: [DONE]\n\n');
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) sendError(res, 500, err.message, 'server_error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('fake OpenAI: no address');

  return {
    url: `http://${host}:${address.port}/v1`,
    requests,
    setBehaviour(change) {
      behaviour = { ...behaviour, ...change };
    },
    reset() {
      behaviour = { ...DEFAULTS, ...initial };
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
