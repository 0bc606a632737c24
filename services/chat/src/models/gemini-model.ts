// The adapter of Google's Gemini API, through `@google/genai`: the system prompt goes in
// `systemInstruction`, the conversation as user and model turns, an answer streams as
// generateContentStream's responses, tool calls come as functionCall parts, and the usage is read
// from usageMetadata (thinking tokens are output, billed as such).
import { ApiError, GoogleGenAI, type Content, type GenerateContentParameters, type GenerateContentResponse } from '@google/genai';
import {
  checkAnswerLength,
  guardedCall,
  kindOfStatus,
  LanguageModelError,
  modelAnswer,
  pushToolCall,
  toolCallOf,
  type AdapterContext,
  type LanguageModel,
  type ModelRequest,
  type ProviderAnswer,
  type ToolCall,
} from './language-model.ts';
import type { ProviderEndpoint } from './providers.ts';

/**
 * One client per endpoint: the SDK's own deadline is the answer's, and it never retries (no
 * retryOptions). The v1beta API, whose generateContent takes tools as JSON schemas and reports thinking tokens.
 */
export const geminiClient = (endpoint: ProviderEndpoint, timeoutMs: number) =>
  new GoogleGenAI({ apiKey: endpoint.apiKey, httpOptions: { baseUrl: endpoint.baseURL, apiVersion: 'v1beta', timeout: timeoutMs } });

/** A prompt too long for the model, as Google words it. */
const CONTEXT_TOO_LONG = /exceeds the maximum number of tokens|input token count|context (length|window)/i;

function classify(err: unknown): LanguageModelError {
  if (!(err instanceof ApiError)) return new LanguageModelError('provider', (err as Error).message);
  const status = err.status;
  if (status === 400 && CONTEXT_TOO_LONG.test(err.message)) return new LanguageModelError('context_too_long', err.message, status);
  if (status === 504) return new LanguageModelError('timeout', err.message, status);
  return new LanguageModelError(kindOfStatus(status), err.message, status);
}

function params(model: string, req: ModelRequest, signal: AbortSignal): GenerateContentParameters {
  const system = req.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const contents: Content[] = req.messages
    .filter((m) => m.role !== 'system')
    .map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] }));
  return {
    model,
    contents,
    config: {
      abortSignal: signal,
      // The SDK's own retries of a broken stream (a second request, billed again) are off: nothing is retried.
      automaticContinuation: false,
      maxOutputTokens: req.maxTokens,
      ...(system ? { systemInstruction: system } : {}),
      ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
      ...(req.tools?.length
        ? {
            tools: [
              {
                functionDeclarations: req.tools.map((t) => ({
                  name: t.name,
                  description: t.description,
                  parametersJsonSchema: t.parameters,
                })),
              },
            ],
          }
        : {}),
    },
  };
}

/** The answer's text and tool calls of one response (the model's thoughts are not the answer). */
function read(response: GenerateContentResponse, toolCalls: ToolCall[]): string {
  let text = '';
  for (const part of response.candidates?.[0]?.content?.parts ?? []) {
    if (part.text && !part.thought) text += part.text;
    if (part.functionCall) {
      const call = part.functionCall;
      pushToolCall(toolCalls, toolCallOf(call.id ?? `call_${toolCalls.length}`, call.name ?? '', call.args ?? {}));
    }
  }
  return text;
}

function usageOf(response: GenerateContentResponse | undefined): ProviderAnswer['usage'] {
  const u = response?.usageMetadata;
  if (!u || u.promptTokenCount === undefined) return null;
  const thoughts = u.thoughtsTokenCount ?? 0;
  return {
    promptTokens: u.promptTokenCount,
    completionTokens: (u.candidatesTokenCount ?? 0) + thoughts,
    cachedPromptTokens: u.cachedContentTokenCount ?? 0,
    reasoningTokens: thoughts,
  };
}

export function geminiModel(client: GoogleGenAI, ctx: AdapterContext): LanguageModel {
  const model = ctx.providerModel;
  return {
    complete: (req) =>
      guardedCall(ctx, req, 'json', classify, async (signal) => {
        const response = await client.models.generateContent(params(model, req, signal));
        const toolCalls: ToolCall[] = [];
        const text = read(response, toolCalls);
        return modelAnswer(ctx, req, { text, toolCalls, usage: usageOf(response) });
      }),

    stream: (req, onDelta) =>
      guardedCall(ctx, req, 'stream', classify, async (signal, firstToken) => {
        const stream = await client.models.generateContentStream(params(model, req, signal));
        let text = '';
        const toolCalls: ToolCall[] = [];
        let last: GenerateContentResponse | undefined;
        for await (const response of stream) {
          const piece = read(response, toolCalls);
          if (piece || toolCalls.length) firstToken();
          if (piece) {
            text += piece;
            checkAnswerLength(text, req);
            onDelta(piece);
          }
          // Google reports the usage so far on each response; the last one is the whole answer's.
          if (response.usageMetadata) last = response;
        }
        return modelAnswer(ctx, req, { text, toolCalls, usage: usageOf(last) });
      }),
  };
}

/** One cheap call with the client's key (the first page of its models); throws the failure's kind ('auth': the key is refused). */
export async function checkGeminiKey(client: GoogleGenAI): Promise<void> {
  try {
    await client.models.list({ config: { pageSize: 1 } });
  } catch (err) {
    throw classify(err);
  }
}
