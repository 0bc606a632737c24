// The language models behind the chatbots, one adapter per wire protocol (openai-model.ts,
// anthropic-model.ts, gemini-model.ts), each through its provider's official SDK, all behind this
// one interface. One deadline covers a whole answer (streamed or not), nothing is retried (a
// visitor is waiting, and a retry could be billed twice by the provider), and every failure becomes
// a LanguageModelError of one kind the use case turns into the visitor's message
// (docs/adr/0039-the-model-layer.md).
import type { CatalogueModel, Provider } from '@parley/common/models/catalogue.ts';
import { modelCall } from './model-metrics.ts';

export interface ModelMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A tool the model may call: its arguments are described by a JSON schema (an object's). */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A call the model asked for, its arguments parsed (an object, within TOOL_ARGUMENTS_MAX_BYTES). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ModelRequest {
  messages: ModelMessage[];
  maxTokens: number;
  /** The sampling temperature; undefined: the provider's default. */
  temperature?: number;
  /** Tools the model may call; none: a plain answer. */
  tools?: ToolDefinition[];
  /**
   * The JSON the reply must be (structured output): the OpenAI protocol's json_schema response
   * format, strict. Other protocols read the prompt's own instructions; the caller parses the reply
   * against the same schema in every case.
   */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  /** Aborts the call (the visitor left, the service shuts down). */
  signal?: AbortSignal;
}

export interface ModelAnswer {
  text: string;
  /** Token counts as the provider reported them: the whole prompt (cached part included), and the whole output (reasoning included). */
  promptTokens: number;
  completionTokens: number;
  /** Of the prompt, the tokens the provider served from its cache; 0 when it does not say. */
  cachedPromptTokens: number;
  /** Of the output, the model's reasoning tokens; 0 when it does not say. */
  reasoningTokens: number;
  /**
   * False when the provider sent no usage (some OpenAI-compatible servers omit it): the counts are
   * then estimated at four characters a token so the answer is still metered.
   */
  usageReported: boolean;
  toolCalls: ToolCall[];
  /** The catalogue's id of the model that answered, and its provider: what the answer is billed as. */
  model: string;
  provider: Provider;
  /** The chosen model failed before its first token and this answer is its fallback's (fallback-model.ts). */
  fallback: boolean;
  /** Given on the workspace's own provider key (set by chat-models.ts): billed at the own-key fee, not in credit. */
  ownKey?: boolean;
}

export interface LanguageModel {
  complete(req: ModelRequest): Promise<ModelAnswer>;
  /** Calls `onDelta` with each piece of text as it arrives; resolves with the whole answer. */
  stream(req: ModelRequest, onDelta: (delta: string) => void): Promise<ModelAnswer>;
}

export const MODEL_ERROR_KINDS = [
  'timeout',
  'rate_limited',
  'overloaded',
  'auth',
  'bad_request',
  'context_too_long',
  'provider',
  'aborted',
] as const;
/**
 * timeout: no whole answer within the deadline; rate_limited: the provider's 429; overloaded: its
 * 503/529; auth: the key refused; bad_request: the request refused; context_too_long: the prompt
 * does not fit the model; provider: any other failure (connection refused, a 5xx, an empty or
 * malformed answer); aborted: the caller's signal (the visitor left).
 */
export type ModelErrorKind = (typeof MODEL_ERROR_KINDS)[number];

export class LanguageModelError extends Error {
  readonly kind: ModelErrorKind;
  /** The provider's HTTP status, when it answered with one. */
  readonly status: number | undefined;
  /** True when the model had sent no text yet: nothing reached the visitor, another model may answer. */
  beforeFirstToken = true;
  constructor(kind: ModelErrorKind, message: string, status?: number) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

/** The most tool calls of one answer, and the largest arguments of one, as JSON. */
export const TOOL_CALLS_MAX = 16;
export const TOOL_ARGUMENTS_MAX_BYTES = 64 * 1024;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A tool call as the provider sent it, checked and bounded: arguments as JSON text or an already parsed value. */
export function toolCallOf(id: string, name: string, args: string | unknown): ToolCall {
  if (!TOOL_NAME.test(name))
    throw new LanguageModelError('provider', `the model called a tool with an invalid name "${name.slice(0, 80)}"`);
  const json = typeof args === 'string' ? args || '{}' : JSON.stringify(args ?? {});
  if (Buffer.byteLength(json, 'utf8') > TOOL_ARGUMENTS_MAX_BYTES)
    throw new LanguageModelError('provider', `the arguments of the model's call to ${name} exceed ${TOOL_ARGUMENTS_MAX_BYTES} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new LanguageModelError('provider', `the arguments of the model's call to ${name} are not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new LanguageModelError('provider', `the arguments of the model's call to ${name} are not an object`);
  return { id: id.slice(0, 200), name, arguments: parsed as Record<string, unknown> };
}

/** Adds a call to an answer's list, refusing more than TOOL_CALLS_MAX. */
export function pushToolCall(calls: ToolCall[], call: ToolCall): void {
  if (calls.length >= TOOL_CALLS_MAX) throw new LanguageModelError('provider', `the model made more than ${TOOL_CALLS_MAX} tool calls`);
  calls.push(call);
}

/** What an adapter read from the provider, before it becomes a ModelAnswer. */
export interface ProviderAnswer {
  text: string;
  toolCalls: ToolCall[];
  usage: { promptTokens: number; completionTokens: number; cachedPromptTokens: number; reasoningTokens: number } | null;
}

export interface AdapterContext {
  /** The catalogue's model this adapter answers as. */
  model: CatalogueModel;
  /** The provider's name for it (the catalogue's providerModel, else its id). */
  providerModel: string;
  timeoutMs: number;
}

/** Four characters a token, as the estimate when a provider reports no usage. */
const estimateTokens = (chars: number) => Math.ceil(chars / 4);

/** The most characters one token of an answer may stand for: past it, the provider wrote more than it was asked. */
export const ANSWER_CHARS_PER_TOKEN_MAX = 64;
/** The largest count of tokens one call may report (billing's bound of a usage). */
const MAX_REPORTED_TOKENS = 1_000_000_000;

/** Refuses an answer longer than its token cap allows, as it grows (a provider's text is untrusted). */
export function checkAnswerLength(text: string, req: ModelRequest): void {
  if (text.length > req.maxTokens * ANSWER_CHARS_PER_TOKEN_MAX)
    throw new LanguageModelError('provider', `the model wrote more than ${req.maxTokens} tokens can hold`);
}

/** Usage whose every count is a whole number within bounds, the parts within their wholes; else none reported. */
function saneUsage(usage: ProviderAnswer['usage']): ProviderAnswer['usage'] {
  if (!usage) return null;
  const counts = [usage.promptTokens, usage.completionTokens, usage.cachedPromptTokens, usage.reasoningTokens];
  if (!counts.every((n) => Number.isSafeInteger(n) && n >= 0 && n <= MAX_REPORTED_TOKENS)) return null;
  if (usage.cachedPromptTokens > usage.promptTokens || usage.reasoningTokens > usage.completionTokens) return null;
  return usage;
}

/**
 * The answer the use case gets: usage as reported, or estimated when the provider sent none or
 * counts that cannot be (the answer is still metered); an empty or overlong answer is a failure.
 */
export function modelAnswer(ctx: AdapterContext, req: ModelRequest, read: ProviderAnswer): ModelAnswer {
  if (!read.text.trim() && read.toolCalls.length === 0) throw new LanguageModelError('provider', 'the model returned an empty answer');
  checkAnswerLength(read.text, req);
  const answeredAs = { toolCalls: read.toolCalls, model: ctx.model.id, provider: ctx.model.provider, fallback: false };
  const usage = saneUsage(read.usage);
  if (usage) return { text: read.text, ...usage, usageReported: true, ...answeredAs };
  const promptChars = req.messages.reduce((n, m) => n + m.content.length, 0);
  return {
    text: read.text,
    promptTokens: estimateTokens(promptChars),
    completionTokens: estimateTokens(read.text.length),
    cachedPromptTokens: 0,
    reasoningTokens: 0,
    usageReported: false,
    ...answeredAs,
  };
}

/**
 * Runs one provider call under the answer's deadline and the caller's signal, measured
 * (model-metrics.ts), every failure mapped to a LanguageModelError by `classify` (the adapter's
 * reading of its SDK's errors). `call` gets the signal to pass to its SDK and `firstToken` to call
 * with the first text.
 */
export async function guardedCall(
  ctx: AdapterContext,
  req: ModelRequest,
  mode: 'json' | 'stream',
  classify: (err: unknown) => LanguageModelError,
  call: (signal: AbortSignal, firstToken: () => void) => Promise<ModelAnswer>,
): Promise<ModelAnswer> {
  const deadline = AbortSignal.timeout(ctx.timeoutMs);
  const signal = req.signal ? AbortSignal.any([deadline, req.signal]) : deadline;
  const measured = modelCall(ctx.model.id, mode);
  let started = false;
  try {
    const answer = await call(signal, () => {
      started = true;
      measured.firstToken();
    });
    // An SDK may end a stream quietly when the signal aborts mid-way.
    if (signal.aborted) throw signal.reason ?? new Error('aborted');
    measured.succeeded(answer);
    return answer;
  } catch (err) {
    let failure: LanguageModelError;
    if (req.signal?.aborted) failure = new LanguageModelError('aborted', 'the caller aborted the answer');
    else if (deadline.aborted) failure = new LanguageModelError('timeout', `no answer within ${ctx.timeoutMs} ms`);
    else failure = err instanceof LanguageModelError ? err : classify(err);
    failure.beforeFirstToken = !started;
    measured.failed(failure.kind);
    throw failure;
  }
}

/** The kind of a provider's HTTP error status, shared by the adapters (each refines 400s and its own bodies). */
export function kindOfStatus(status: number | undefined): ModelErrorKind {
  if (status === undefined) return 'provider';
  if (status === 429) return 'rate_limited';
  if (status === 503 || status === 529) return 'overloaded';
  if (status === 401 || status === 403) return 'auth';
  if (status === 413) return 'context_too_long';
  if (status >= 400 && status < 500) return 'bad_request';
  return 'provider';
}
