// The one client of the embeddings endpoint: any OpenAI-compatible API (…/v1/embeddings, e.g.
// OpenAI's or Ollama's), through the openai SDK. No retries here: the embed job is retried by its
// queue, and a visitor's question falls back to full-text search rather than wait (ADR 0015).
import type OpenAI from 'openai';
import { ConfigError } from '@parley/common/config.ts';
import type { ChatbotConfig } from '../../config.ts';

/** Inputs per request: OpenAI accepts far more, but smaller local servers (Ollama) answer a batch of 64 in reasonable time. */
export const EMBED_BATCH = 64;
/** A batch of chunks (the background job). */
export const BATCH_TIMEOUT_MS = 60_000;
/** A visitor's question: beyond this the answer goes on with full-text search alone. */
export const QUERY_TIMEOUT_MS = 2_000;

export const MODEL_REQUIRED = 'EMBEDDINGS_MODEL is required when EMBEDDINGS_URL is set (e.g. text-embedding-3-small or nomic-embed-text)';

export interface Embedder {
  readonly model: string;
  /** One vector per text, in order; texts are sent EMBED_BATCH at a time. */
  embed(texts: string[], opts?: { timeoutMs?: number }): Promise<number[][]>;
}

/** The embedder the configuration asks for, or null when none is configured. */
export function embedderFromConfig(
  config: Pick<ChatbotConfig, 'EMBEDDINGS_URL' | 'EMBEDDINGS_MODEL' | 'EMBEDDINGS_API_KEY'>,
): Embedder | null {
  if (!config.EMBEDDINGS_URL) return null;
  if (!config.EMBEDDINGS_MODEL) throw new ConfigError(MODEL_REQUIRED);
  return openAiEmbedder({ baseURL: config.EMBEDDINGS_URL, apiKey: config.EMBEDDINGS_API_KEY, model: config.EMBEDDINGS_MODEL });
}

export function openAiEmbedder(opts: { baseURL: string; apiKey?: string; model: string }): Embedder {
  // The openai SDK (≈ 240 modules) is loaded by the first embedding, not when the service starts.
  let loading: Promise<OpenAI> | undefined;
  const openai = () =>
    (loading ??= import('openai').then(
      ({ default: Sdk }) => new Sdk({ baseURL: opts.baseURL, apiKey: opts.apiKey ?? 'none', maxRetries: 0, timeout: BATCH_TIMEOUT_MS }),
    ));
  return {
    model: opts.model,
    async embed(texts, callOpts = {}) {
      const client = await openai();
      const vectors: number[][] = [];
      for (let i = 0; i < texts.length; i += EMBED_BATCH) {
        const input = texts.slice(i, i + EMBED_BATCH);
        const res = await client.embeddings.create(
          { model: opts.model, input, encoding_format: 'float' },
          { timeout: callOpts.timeoutMs ?? BATCH_TIMEOUT_MS },
        );
        if (res.data.length !== input.length)
          throw new Error(`the embeddings endpoint answered ${res.data.length} vectors for ${input.length} inputs`);
        const ordered = [...res.data].sort((a, b) => a.index - b.index);
        for (const d of ordered) {
          if (!Array.isArray(d.embedding) || d.embedding.length === 0) throw new Error('the embeddings endpoint answered an empty vector');
          vectors.push(d.embedding);
        }
      }
      return vectors;
    },
  };
}
