// A local stand-in for an OpenAI-compatible API, for tests, benchmarks and the end-to-end suite:
// POST /v1/chat/completions answered plainly or as server-sent events exactly as OpenAI streams
// them (content deltas, then a usage chunk with `choices: []` when stream_options.include_usage is
// set, then `data: [DONE]`), and POST /v1/embeddings with fakeEmbedding's vectors. Token counts are
// rough (a token per four characters) but exact for a given text, so a test can predict them.
// By default it answers like a model that follows the chat service's prompt (groundedReply): from
// the numbered passage that shares the most words with the question, citing it, or with the
// no-answer message when none does, so citations can be tested end to end.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake } from './serve.ts';
import { fakeEmbedding } from './fake-embedding.ts';

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
  /** The error's message (400: "This model's maximum context length is 8192 tokens..." reads as a context too long); null: "Fake failure <status>". */
  failMessage: string | null;
  /** The answer: fixed text, or computed from the request. */
  reply: string | ((body: FakeOpenAIRequest) => string);
  /** Wait between streamed chunks, in ms. */
  chunkDelayMs: number;
  /** Answer every embeddings request with this HTTP status (chat completions keep `failWith`). */
  embeddingsFailWith: number | null;
  /**
   * Tool calls the answer makes after its text (finish_reason tool_calls): fixed, or computed from
   * the request (toolTriggers: a phrase in the visitor's message calls a tool, deterministically).
   */
  toolCalls: FakeToolCall[] | ((body: FakeOpenAIRequest) => FakeToolCall[]);
  /** Of the prompt, tokens reported as cached (prompt_tokens_details.cached_tokens). */
  cachedPromptTokens: number;
  /** Reasoning tokens reported (completion_tokens_details.reasoning_tokens), counted in the completion tokens. */
  reasoningTokens: number;
  /** API keys answered 401 "Incorrect API key provided" on GET /v1/models (a key check). */
  refusedKeys: string[];
}

export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** What a tool result in the prompt looks like (the chat service's tool loop): its tool, status and data. */
const TOOL_RESULT = /<tool_result name="([^"]*)" status="([^"]*)">\n([\s\S]*?)\n<\/tool_result>/;

/** The tool results in a request, in order. */
export function toolResults(body: FakeOpenAIRequest): { name: string; status: string; data: string }[] {
  return body.messages.flatMap((m) => {
    const found = TOOL_RESULT.exec(m.content);
    return found ? [{ name: found[1], status: found[2], data: found[3] }] : [];
  });
}

/**
 * Tool calls triggered by the visitor's message, as a model that wants a tool would: each rule
 * whose pattern matches the visitor's last message (not a tool result) calls its tool once, with
 * the arguments it draws from the match, when the request offers that tool and no result of it is
 * in the prompt yet. With no rule matching, no call: the model answers.
 */
export function toolTriggers(
  rules: { pattern: RegExp; tool: string; args: (match: RegExpExecArray) => Record<string, unknown> }[],
): (body: FakeOpenAIRequest) => FakeToolCall[] {
  return (body) => {
    const offered = new Set(((body.tools ?? []) as { function?: { name?: string } }[]).map((t) => t.function?.name));
    const visitor = [...body.messages].reverse().find((m) => m.role === 'user' && !TOOL_RESULT.test(m.content))?.content ?? '';
    const done = new Set(toolResults(body).map((r) => r.name));
    for (const rule of rules) {
      const match = rule.pattern.exec(visitor);
      if (match && offered.has(rule.tool) && !done.has(rule.tool)) return [{ name: rule.tool, arguments: rule.args(match) }];
    }
    return [];
  };
}

/**
 * The built-in tools' triggers (the chat service's `handoff` and `show_lead_form`), as a model that
 * understood the visitor would call them: wanting someone from the team without the handoff phrases
 * ("someone from your team", "a real agent"), or wanting to be contacted ("contact me", "a quote").
 */
export const BUILT_IN_TOOL_RULES = [
  { pattern: /\b(someone from your team|a real agent|an actual agent)\b/i, tool: 'handoff', args: () => ({}) },
  { pattern: /\b(contact me|get back to me|call me back|send me a quote)\b/i, tool: 'show_lead_form', args: () => ({}) },
];

/** The answer after a tool ran: its data quoted when it succeeded, an apology when it failed. */
export function toolResultReply(body: FakeOpenAIRequest): string | null {
  const last = toolResults(body).at(-1);
  if (!last) return null;
  return last.status === 'ok' ? `Here is what I found: ${last.data}` : `Sorry, I could not do that: ${last.data}`;
}

export interface FakeEmbeddingsRequest {
  model: string;
  input: string | string[];
  encoding_format?: 'float' | 'base64';
  dimensions?: number;
}

export interface FakeOpenAI {
  /** Base URL for the SDK, ending in /v1. */
  url: string;
  /** Every chat completion request body received, oldest first. */
  requests: FakeOpenAIRequest[];
  /** Every embeddings request body received, oldest first. */
  embeddingRequests: FakeEmbeddingsRequest[];
  /** The API key of every GET /v1/models (a key check), oldest first. */
  modelListKeys: string[];
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

const lastUserMessage = (body: FakeOpenAIRequest): string => [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';

/** The answer of earlier versions: the question echoed, for tests that want an answer tied to the question alone. */
export const echoReply = (body: FakeOpenAIRequest): string => `This is a test answer to: ${lastUserMessage(body)}`;

/** Words too common to show that a passage is about the question. */
const TRIVIAL = new Set(
  (
    'the and for are but not you your yours our ours out was were has have had can could does did doing with from this that these those ' +
    'what when where which who whom whose why how there their them they then than into onto about over under also just only very any all ' +
    "some more most such its it's his her him she will would shall should may might must been being let get got per via yes"
  ).split(' '),
);

/** Lower-cased words of three letters or more that say something (any script's letters and digits). */
const contentWords = (text: string): Set<string> =>
  new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => [...w].length >= 3 && !TRIVIAL.has(w)));

/** The passages of a system prompt as the chat service numbers them: `[n] title` on a line, then the text. */
export function promptPassages(system: string): { n: number; text: string }[] {
  const block = /<knowledge_base>\n([\s\S]*)\n<\/knowledge_base>/.exec(system)?.[1] ?? '';
  const passages: { n: number; text: string }[] = [];
  for (const part of block.split('\n\n---\n\n')) {
    const numbered = /^\[(\d+)\][^\n]*\n([\s\S]*)$/.exec(part);
    if (numbered) passages.push({ n: Number(numbered[1]), text: numbered[2] });
    // A passage whose own text held the separator: the rest still belongs to it.
    else if (passages.length) passages[passages.length - 1].text += `\n\n---\n\n${part}`;
  }
  return passages;
}

const firstSentence = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  const sentence = /^.*?(?:[.!?](?=\s|$)|[。！？])/u.exec(flat)?.[0] ?? flat;
  const chars = [...sentence];
  return chars.length > 200 ? chars.slice(0, 200).join('').trimEnd() : sentence;
};

/**
 * A deterministic answer from the prompt, as a model following the chat service's rules would give:
 * the numbered passage sharing the most words (at least two, not trivial ones) with the visitor's
 * last message, answered with its first sentence (200 characters at most) and its marker; with no
 * such passage, the owner's no-answer message when the prompt carries one, else "I don't know."
 */
export function groundedReply(body: FakeOpenAIRequest): string {
  const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
  const question = contentWords(lastUserMessage(body));
  let best: { n: number; text: string; shared: number } | null = null;
  for (const passage of promptPassages(system)) {
    let shared = 0;
    for (const word of contentWords(passage.text)) if (question.has(word)) shared++;
    if (shared >= 2 && (!best || shared > best.shared)) best = { ...passage, shared };
  }
  if (best) return `${firstSentence(best.text)} [${best.n}]`;
  return /<no_answer>\n([\s\S]*?)\n<\/no_answer>/.exec(system)?.[1] ?? "I don't know.";
}

/** The text between `<tag ...>` and `</tag>` on lines of their own in any message, or ''. */
const tagged = (body: FakeOpenAIRequest, tag: string): string => {
  const pattern = new RegExp(`<${tag}(?: [^>]*)?>\\n([\\s\\S]*?)\\n</${tag}>`);
  for (const m of body.messages) {
    const found = pattern.exec(m.content);
    if (found) return found[1];
  }
  return '';
};

/**
 * The chat service's judge (a request whose structured output is named parley_judge), graded
 * deterministically: each numbered criterion of <judge_rubric> passes when the answer shares at
 * least two words that say something with its <cited_passages>, and fails otherwise; a criterion
 * about the tone always passes. Nothing else asks for this output, so no other test sees it.
 */
export function judgeReply(body: FakeOpenAIRequest): string {
  const criteria = tagged(body, 'judge_rubric')
    .split('\n')
    .filter((l) => /^\d+\. /.test(l));
  const answer = contentWords(tagged(body, 'answer'));
  let shared = 0;
  for (const word of contentWords(tagged(body, 'cited_passages'))) if (answer.has(word)) shared++;
  const grounded = shared >= 2;
  return JSON.stringify({
    verdicts: criteria.map((c, i) =>
      /\btone\b/i.test(c)
        ? { criterion: i + 1, passed: true, reason: 'The tone is polite and clear.' }
        : grounded
          ? { criterion: i + 1, passed: true, reason: 'The cited passages support the answer.' }
          : { criterion: i + 1, passed: false, reason: 'No cited passage supports the answer.' },
    ),
  });
}

/**
 * The chat service's generated cases (structured output named parley_test_cases), from the
 * knowledge in <generate_test_cases count="N">: one case per entry (blank-line separated, a
 * "# title" line left out), at most N, asking about the entry's first sentence ("Tell me: <its
 * first six words>?") with that sentence as the fact.
 */
export function generatedCasesReply(body: FakeOpenAIRequest): string {
  const count = Number(/<generate_test_cases count="(\d+)">/.exec(body.messages.map((m) => m.content).join('\n'))?.[1] ?? '1');
  const entries = tagged(body, 'generate_test_cases')
    .split(/\n\n+/)
    .map((e) =>
      e
        .split('\n')
        .filter((l) => !l.startsWith('# '))
        .join(' ')
        .trim(),
    )
    .filter(Boolean);
  return JSON.stringify({
    cases: entries.slice(0, count).map((e) => {
      const fact = firstSentence(e);
      const words = fact
        .replace(/[^\p{L}\p{N}\s]/gu, '')
        .split(/\s+/)
        .slice(0, 6)
        .join(' ');
      return { question: `Tell me: ${words.toLowerCase()}?`, facts: [fact] };
    }),
  });
}

/** The structured output a request asks for by name (response_format json_schema), or null. */
const structuredOutput = (body: FakeOpenAIRequest): string | null => {
  const format = body.response_format as { json_schema?: { name?: string } } | undefined;
  return format?.json_schema?.name ?? null;
};

/** The answer a request asking for the judge's or the generated cases' structured output gets; null for any other. */
export function structuredReply(body: FakeOpenAIRequest): string | null {
  const name = structuredOutput(body);
  if (name === 'parley_judge') return judgeReply(body);
  if (name === 'parley_test_cases') return generatedCasesReply(body);
  return null;
}

const DEFAULTS: FakeOpenAIBehaviour = {
  delayMs: 0,
  failWith: null,
  failMessage: null,
  reply: (body) => structuredReply(body) ?? toolResultReply(body) ?? groundedReply(body),
  chunkDelayMs: 0,
  embeddingsFailWith: null,
  toolCalls: [],
  cachedPromptTokens: 0,
  reasoningTokens: 0,
  refusedKeys: [],
};

/** An embedding as OpenAI's base64 encoding carries it: the float32 values, little-endian. */
const base64Embedding = (vector: number[]): string => Buffer.from(new Float32Array(vector).buffer).toString('base64');

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
  const embeddingRequests: FakeEmbeddingsRequest[] = [];
  const modelListKeys: string[] = [];
  let seq = 0;

  const sendError = (res: ServerResponse, status: number, message: string, type = 'invalid_request_error') => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'GET' && path === '/v1/models') {
      const apiKey = req.headers.authorization?.startsWith('Bearer ') ? req.headers.authorization.slice('Bearer '.length) : '';
      modelListKeys.push(apiKey);
      if (!apiKey || behaviour.refusedKeys.includes(apiKey))
        return sendError(
          res,
          401,
          'Incorrect API key provided. You can find your API key in your account settings.',
          'invalid_request_error',
        );
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', created: 0, owned_by: 'fake' }] }));
      return;
    }
    if (req.method === 'POST' && path === '/v1/embeddings') return embeddings(req, res);
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
      return sendError(
        res,
        b.failWith,
        b.failMessage ?? `Fake failure ${b.failWith}`,
        b.failWith >= 500 ? 'server_error' : b.failWith === 429 ? 'rate_limit_exceeded' : 'invalid_request_error',
      );

    const calls = typeof b.toolCalls === 'function' ? b.toolCalls(body) : b.toolCalls;
    // A computed call comes alone, as a model's usually does; a fixed list follows the answer's text.
    const text = calls.length && typeof b.toolCalls === 'function' ? '' : typeof b.reply === 'function' ? b.reply(body) : b.reply;
    const promptTokens = fakePromptTokens(body.messages);
    const toolJson = calls.map((t) => JSON.stringify(t.arguments));
    const completionTokens = fakeTokenCount(text) + toolJson.reduce((n, j) => n + fakeTokenCount(j), 0) + b.reasoningTokens;
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      ...(b.cachedPromptTokens ? { prompt_tokens_details: { cached_tokens: Math.min(b.cachedPromptTokens, promptTokens) } } : {}),
      ...(b.reasoningTokens ? { completion_tokens_details: { reasoning_tokens: b.reasoningTokens } } : {}),
    };
    const id = `chatcmpl-fake-${++seq}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model;
    const finishReason = calls.length ? 'tool_calls' : 'stop';
    const toolCalls = calls.map((t, i) => ({
      id: `call_fake_${seq}_${i}`,
      type: 'function',
      function: { name: t.name, arguments: toolJson[i] },
    }));

    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: text, refusal: null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
              logprobs: null,
              finish_reason: finishReason,
            },
          ],
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
    // A tool call streams as its id and name, then its arguments in pieces, as OpenAI sends them.
    for (const [index, call] of toolCalls.entries()) {
      send(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, null));
      for (let at = 0; at < call.function.arguments.length; at += 16)
        send(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(at, at + 16) } }] }, null));
    }
    send(chunk({}, finishReason));
    if (body.stream_options?.include_usage) send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
    res.end('data: [DONE]\n\n');
  };

  const embeddings = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: FakeEmbeddingsRequest;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeEmbeddingsRequest;
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      if (!inputs.length || !inputs.every((i) => typeof i === 'string')) throw new Error('input must be a string or an array of strings');
      if (typeof body.model !== 'string' || !body.model) throw new Error('model is required');
      if (body.dimensions !== undefined && !(Number.isInteger(body.dimensions) && body.dimensions > 0))
        throw new Error('dimensions must be a positive integer');
    } catch (err) {
      return sendError(res, 400, `Invalid body: ${(err as Error).message}`);
    }
    embeddingRequests.push(body);
    const b = behaviour;
    if (b.delayMs) await sleep(b.delayMs);
    if (res.destroyed) return;
    if (!req.headers.authorization?.startsWith('Bearer ')) return sendError(res, 401, 'Missing API key', 'authentication_error');
    if (b.embeddingsFailWith) return sendError(res, b.embeddingsFailWith, `Fake failure ${b.embeddingsFailWith}`, 'server_error');

    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    const tokens = inputs.reduce((n, text) => n + fakeTokenCount(text), 0);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        object: 'list',
        data: inputs.map((text, index) => {
          const vector = fakeEmbedding(text, body.dimensions);
          return { object: 'embedding', index, embedding: body.encoding_format === 'base64' ? base64Embedding(vector) : vector };
        }),
        model: body.model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      }),
    );
  };

  const { origin, close } = await serveFake('OpenAI', handle, (res, message) => sendError(res, 500, message, 'server_error'), host, port);

  return {
    url: `${origin}/v1`,
    requests,
    embeddingRequests,
    modelListKeys,
    setBehaviour(change) {
      behaviour = { ...behaviour, ...change };
    },
    reset() {
      behaviour = { ...DEFAULTS, ...initial };
      requests.length = 0;
      embeddingRequests.length = 0;
      modelListKeys.length = 0;
    },
    close,
  };
}
