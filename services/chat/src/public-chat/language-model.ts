// The language model behind the chatbots: any OpenAI-compatible Chat Completions endpoint, through
// the `openai` SDK. One deadline covers a whole answer (streamed or not), nothing is retried (a
// visitor is waiting, and a retry could be billed twice by the provider), and every failure becomes
// a LanguageModelError the use case turns into the visitor's message.
import OpenAI from 'openai';
import { modelCall } from './answer-metrics.ts';
import type { PromptMessage } from './build-prompt.ts';

export interface ModelRequest {
  messages: PromptMessage[];
  maxTokens: number;
  /** The sampling temperature; undefined: the provider's default. */
  temperature?: number;
  /** Aborts the call (for example when the service shuts down). */
  signal?: AbortSignal;
}

export interface ModelAnswer {
  text: string;
  /** Token counts as the provider reported them in its usage. */
  promptTokens: number;
  completionTokens: number;
  /**
   * False when the provider sent no usage (some OpenAI-compatible servers omit it): the counts are
   * then estimated at four characters a token so the answer is still metered.
   */
  usageReported: boolean;
}

export interface LanguageModel {
  complete(req: ModelRequest): Promise<ModelAnswer>;
  /** Calls `onDelta` with each piece of text as it arrives; resolves with the whole answer. */
  stream(req: ModelRequest, onDelta: (delta: string) => void): Promise<ModelAnswer>;
}

export class LanguageModelError extends Error {
  readonly kind: 'timeout' | 'provider';
  readonly status: number | undefined;
  constructor(kind: 'timeout' | 'provider', message: string, status?: number) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

export interface OpenAIModelOptions {
  apiKey: string;
  baseURL: string;
  /** The provider's model name. */
  model: string;
  timeoutMs: number;
}

/** The request's sampling settings: only those set, so an unset one stays the provider's default. */
const sampling = (req: ModelRequest) => (req.temperature === undefined ? {} : { temperature: req.temperature });

export function openAIModel(opts: OpenAIModelOptions): LanguageModel {
  const client = new OpenAI({ apiKey: opts.apiKey, baseURL: opts.baseURL, timeout: opts.timeoutMs, maxRetries: 0 });

  /**
   * Runs `call` under the answer's deadline, mapping every failure to a LanguageModelError; the call
   * is measured (answer-metrics.ts).
   */
  async function guarded(
    req: ModelRequest,
    mode: 'json' | 'stream',
    call: (signal: AbortSignal, firstToken: () => void) => Promise<ModelAnswer>,
  ): Promise<ModelAnswer> {
    const deadline = AbortSignal.timeout(opts.timeoutMs);
    const signal = req.signal ? AbortSignal.any([deadline, req.signal]) : deadline;
    const measured = modelCall(opts.model, mode);
    try {
      const answer = await call(signal, measured.firstToken);
      measured.succeeded(answer);
      return answer;
    } catch (err) {
      const failure = modelError(err, deadline);
      measured.failed(failure.kind);
      throw failure;
    }
  }

  function modelError(err: unknown, deadline: AbortSignal): LanguageModelError {
    if (err instanceof LanguageModelError) return err;
    if (deadline.aborted || err instanceof OpenAI.APIConnectionTimeoutError) {
      return new LanguageModelError('timeout', `no answer within ${opts.timeoutMs} ms`);
    }
    const status = err instanceof OpenAI.APIError ? err.status : undefined;
    return new LanguageModelError('provider', (err as Error).message, status);
  }

  const answerOf = (req: ModelRequest, text: string, usage: OpenAI.CompletionUsage | null | undefined): ModelAnswer => {
    if (!text.trim()) throw new LanguageModelError('provider', 'the model returned an empty answer');
    if (usage) return { text, promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, usageReported: true };
    const promptChars = req.messages.reduce((n, m) => n + m.content.length, 0);
    return { text, promptTokens: Math.ceil(promptChars / 4), completionTokens: Math.ceil(text.length / 4), usageReported: false };
  };

  return {
    complete: (req) =>
      guarded(req, 'json', async (signal) => {
        const completion = await client.chat.completions.create(
          { model: opts.model, messages: req.messages, max_tokens: req.maxTokens, ...sampling(req) },
          { signal },
        );
        return answerOf(req, completion.choices[0]?.message?.content ?? '', completion.usage);
      }),

    stream: (req, onDelta) =>
      guarded(req, 'stream', async (signal, firstToken) => {
        const stream = await client.chat.completions.create(
          {
            model: opts.model,
            messages: req.messages,
            max_tokens: req.maxTokens,
            ...sampling(req),
            stream: true,
            stream_options: { include_usage: true },
          },
          { signal },
        );
        let text = '';
        let usage: OpenAI.CompletionUsage | null | undefined;
        for await (const chunk of stream) {
          const delta = chunk.choices[0]?.delta?.content;
          if (delta) {
            firstToken();
            text += delta;
            onDelta(delta);
          }
          if (chunk.usage) usage = chunk.usage;
        }
        // The SDK ends the iteration quietly when the signal aborts mid-stream.
        if (signal.aborted) throw signal.reason ?? new Error('aborted');
        return answerOf(req, text, usage);
      }),
  };
}
