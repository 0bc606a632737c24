// The adapter of OpenAI's Chat Completions protocol, through the `openai` SDK: OpenAI itself and any
// compatible endpoint (Ollama, vLLM, LM Studio, the test fake).
import OpenAI from 'openai';
import {
  checkAnswerLength,
  guardedCall,
  kindOfStatus,
  LanguageModelError,
  modelAnswer,
  pushToolCall,
  toolCallOf,
  TOOL_ARGUMENTS_MAX_BYTES,
  type AdapterContext,
  type LanguageModel,
  type ModelRequest,
  type ProviderAnswer,
  type ToolCall,
} from './language-model.ts';
import type { ProviderEndpoint } from './providers.ts';

/** One client per endpoint: the SDK's own deadline is the answer's, and it never retries. */
export const openAIClient = (endpoint: ProviderEndpoint, timeoutMs: number) =>
  new OpenAI({ apiKey: endpoint.apiKey, baseURL: endpoint.baseURL, timeout: timeoutMs, maxRetries: 0 });

/** A prompt too long for the model, as OpenAI and the compatible servers word it. */
const CONTEXT_TOO_LONG = /context[_ ]length|maximum context|context window|too many tokens|prompt is too long/i;

function classify(err: unknown): LanguageModelError {
  if (err instanceof OpenAI.APIConnectionTimeoutError) return new LanguageModelError('timeout', err.message);
  if (!(err instanceof OpenAI.APIError)) return new LanguageModelError('provider', (err as Error).message);
  const status = err.status;
  const code = typeof err.code === 'string' ? err.code : '';
  if (status === 400 && (code === 'context_length_exceeded' || CONTEXT_TOO_LONG.test(err.message)))
    return new LanguageModelError('context_too_long', err.message, status);
  return new LanguageModelError(kindOfStatus(status), err.message, status);
}

/** The request's options: sampling only when set (else the provider's default), tools only when given. */
function options(req: ModelRequest) {
  return {
    ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
    ...(req.jsonSchema
      ? {
          response_format: {
            type: 'json_schema' as const,
            json_schema: { name: req.jsonSchema.name, schema: req.jsonSchema.schema, strict: true },
          },
        }
      : {}),
    ...(req.tools?.length
      ? {
          tools: req.tools.map((t) => ({
            type: 'function' as const,
            function: { name: t.name, description: t.description, parameters: t.parameters },
          })),
        }
      : {}),
  };
}

function usageOf(usage: OpenAI.CompletionUsage | null | undefined): ProviderAnswer['usage'] {
  if (!usage) return null;
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    cachedPromptTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}

export function openAIModel(client: OpenAI, ctx: AdapterContext): LanguageModel {
  const model = ctx.providerModel;
  return {
    complete: (req) =>
      guardedCall(ctx, req, 'json', classify, async (signal) => {
        const completion = await client.chat.completions.create(
          { model, messages: req.messages, max_tokens: req.maxTokens, ...options(req) },
          { signal },
        );
        const message = completion.choices[0]?.message;
        const toolCalls: ToolCall[] = [];
        for (const call of message?.tool_calls ?? []) {
          if (call.type === 'function') pushToolCall(toolCalls, toolCallOf(call.id, call.function.name, call.function.arguments));
        }
        return modelAnswer(ctx, req, { text: message?.content ?? '', toolCalls, usage: usageOf(completion.usage) });
      }),

    stream: (req, onDelta) =>
      guardedCall(ctx, req, 'stream', classify, async (signal, firstToken) => {
        const stream = await client.chat.completions.create(
          {
            model,
            messages: req.messages,
            max_tokens: req.maxTokens,
            ...options(req),
            stream: true,
            stream_options: { include_usage: true },
          },
          { signal },
        );
        let text = '';
        let usage: OpenAI.CompletionUsage | null | undefined;
        // A tool call arrives as its id and name, then its arguments in pieces, by index.
        const pending = new Map<number, { id: string; name: string; args: string }>();
        for await (const chunk of stream) {
          const delta = chunk.choices[0]?.delta;
          if (delta?.content) {
            firstToken();
            text += delta.content;
            checkAnswerLength(text, req);
            onDelta(delta.content);
          }
          for (const call of delta?.tool_calls ?? []) {
            firstToken();
            const entry = pending.get(call.index) ?? { id: '', name: '', args: '' };
            entry.id ||= call.id ?? '';
            entry.name ||= call.function?.name ?? '';
            entry.args += call.function?.arguments ?? '';
            // Characters never outnumber bytes: past the bound in characters, it is past it in bytes.
            if (entry.args.length > TOOL_ARGUMENTS_MAX_BYTES)
              throw new LanguageModelError(
                'provider',
                `the arguments of the model's call to ${entry.name} exceed ${TOOL_ARGUMENTS_MAX_BYTES} bytes`,
              );
            pending.set(call.index, entry);
          }
          if (chunk.usage) usage = chunk.usage;
        }
        const toolCalls: ToolCall[] = [];
        for (const call of pending.values()) pushToolCall(toolCalls, toolCallOf(call.id, call.name, call.args));
        return modelAnswer(ctx, req, { text, toolCalls, usage: usageOf(usage) });
      }),
  };
}

/** One cheap call with the client's key (its models); throws the failure's kind ('auth': the key is refused). */
export async function checkOpenAIKey(client: OpenAI): Promise<void> {
  try {
    await client.models.list();
  } catch (err) {
    throw classify(err);
  }
}
