// The adapter of Anthropic's Messages API, through `@anthropic-ai/sdk`: the system prompt goes in
// `system`, an answer streams as Anthropic's events (text_delta pieces of text, input_json_delta
// pieces of a tool call's arguments), and the usage is read from message_start (the prompt, its
// cached part) and message_delta (the output so far).
import Anthropic from '@anthropic-ai/sdk';
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
export const anthropicClient = (endpoint: ProviderEndpoint, timeoutMs: number) =>
  new Anthropic({ apiKey: endpoint.apiKey, baseURL: endpoint.baseURL, timeout: timeoutMs, maxRetries: 0 });

/** The error type in Anthropic's body (`{type: "error", error: {type, message}}`), also sent as a stream's `error` event. */
function errorType(err: InstanceType<typeof Anthropic.APIError>): string {
  const body = err.error as { error?: { type?: unknown } } | undefined;
  return typeof body?.error?.type === 'string' ? body.error.type : '';
}

function classify(err: unknown): LanguageModelError {
  if (err instanceof Anthropic.APIConnectionTimeoutError) return new LanguageModelError('timeout', err.message);
  if (!(err instanceof Anthropic.APIError)) return new LanguageModelError('provider', (err as Error).message);
  const type = errorType(err);
  const status = err.status;
  if (type === 'overloaded_error') return new LanguageModelError('overloaded', err.message, status);
  if (type === 'rate_limit_error') return new LanguageModelError('rate_limited', err.message, status);
  if (type === 'request_too_large' || (status === 400 && /prompt is too long/i.test(err.message)))
    return new LanguageModelError('context_too_long', err.message, status);
  return new LanguageModelError(kindOfStatus(status), err.message, status);
}

/** Anthropic's request: the system prompt apart, the conversation as user and assistant turns. */
function params(model: string, req: ModelRequest) {
  const system = req.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const messages = req.messages
    .filter((m) => m.role !== 'system')
    .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content }));
  return {
    model,
    max_tokens: req.maxTokens,
    messages,
    ...(system ? { system } : {}),
    ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
    ...(req.tools?.length
      ? {
          tools: req.tools.map((t) => ({
            name: t.name,
            description: t.description,
            input_schema: t.parameters as Anthropic.Tool.InputSchema,
          })),
        }
      : {}),
  };
}

/** The prompt's tokens are Anthropic's input plus what it wrote to and read from its cache. */
function usageOf(start: Anthropic.Usage | undefined, outputTokens: number | undefined): ProviderAnswer['usage'] {
  if (!start) return null;
  const cached = start.cache_read_input_tokens ?? 0;
  return {
    promptTokens: start.input_tokens + (start.cache_creation_input_tokens ?? 0) + cached,
    completionTokens: outputTokens ?? start.output_tokens,
    cachedPromptTokens: cached,
    reasoningTokens: 0,
  };
}

export function anthropicModel(client: Anthropic, ctx: AdapterContext): LanguageModel {
  const model = ctx.providerModel;
  return {
    complete: (req) =>
      guardedCall(ctx, req, 'json', classify, async (signal) => {
        const message = await client.messages.create(params(model, req), { signal, timeout: ctx.timeoutMs });
        let text = '';
        const toolCalls: ToolCall[] = [];
        for (const block of message.content) {
          if (block.type === 'text') text += block.text;
          else if (block.type === 'tool_use') pushToolCall(toolCalls, toolCallOf(block.id, block.name, block.input));
        }
        return modelAnswer(ctx, req, { text, toolCalls, usage: usageOf(message.usage, message.usage.output_tokens) });
      }),

    stream: (req, onDelta) =>
      guardedCall(ctx, req, 'stream', classify, async (signal, firstToken) => {
        const stream = await client.messages.create({ ...params(model, req), stream: true }, { signal, timeout: ctx.timeoutMs });
        let text = '';
        let start: Anthropic.Usage | undefined;
        let outputTokens: number | undefined;
        const toolCalls: ToolCall[] = [];
        // The tool call being streamed: its id and name from content_block_start, its arguments in pieces.
        let tool: { id: string; name: string; json: string } | null = null;
        for await (const event of stream) {
          switch (event.type) {
            case 'message_start':
              start = event.message.usage;
              break;
            case 'content_block_start':
              if (event.content_block.type === 'tool_use') {
                firstToken();
                tool = { id: event.content_block.id, name: event.content_block.name, json: '' };
              }
              break;
            case 'content_block_delta':
              if (event.delta.type === 'text_delta' && event.delta.text) {
                firstToken();
                text += event.delta.text;
                checkAnswerLength(text, req);
                onDelta(event.delta.text);
              } else if (event.delta.type === 'input_json_delta' && tool) {
                tool.json += event.delta.partial_json;
                // Characters never outnumber bytes: past the bound in characters, it is past it in bytes.
                if (tool.json.length > TOOL_ARGUMENTS_MAX_BYTES)
                  throw new LanguageModelError(
                    'provider',
                    `the arguments of the model's call to ${tool.name} exceed ${TOOL_ARGUMENTS_MAX_BYTES} bytes`,
                  );
              }
              break;
            case 'content_block_stop':
              if (tool) pushToolCall(toolCalls, toolCallOf(tool.id, tool.name, tool.json));
              tool = null;
              break;
            case 'message_delta':
              outputTokens = event.usage.output_tokens;
              break;
          }
        }
        return modelAnswer(ctx, req, { text, toolCalls, usage: usageOf(start, outputTokens) });
      }),
  };
}

/** One cheap call with the client's key (the first page of its models); throws the failure's kind ('auth': the key is refused). */
export async function checkAnthropicKey(client: Anthropic): Promise<void> {
  try {
    await client.models.list({ limit: 1 });
  } catch (err) {
    throw classify(err);
  }
}
