// What the chat service reports of its language model calls (docs/metrics.md): latency to the first
// token and of the whole call, tokens, and the answers a fallback gave, measured around the
// provider's call. Labels are catalogue model ids, the answer's mode and outcome: never a visitor's input.
import { currentTrace } from '@parley/common/context.ts';
import { counter, histogram } from '@parley/common/metrics.ts';
import { startSpan } from '@parley/common/tracing.ts';

type Mode = 'json' | 'stream';

/** Seconds: a first token comes within a second or two, a long answer takes up to the model's timeout. */
const MODEL_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60];

const firstToken = histogram(
  'parley_model_time_to_first_token_seconds',
  "Time from the language model call to the answer's first words (a reply in one piece: to the reply), by model and mode.",
  ['model', 'mode'],
  MODEL_BUCKETS,
);
const duration = histogram(
  'parley_model_duration_seconds',
  'Time of whole language model calls, by model, mode and outcome (ok, or the failure: timeout, rate_limited, overloaded, auth, bad_request, context_too_long, provider, aborted).',
  ['model', 'mode', 'outcome'],
  MODEL_BUCKETS,
);
const tokens = counter(
  'parley_model_tokens_total',
  'Tokens of answered language model calls, by model and kind (prompt, completion), as the provider reported them (or estimated when it did not).',
  ['model', 'kind'],
);
const fallbacks = counter(
  'parley_model_fallbacks_total',
  "Answers given by a chatbot's fallback model because its chosen model failed before its first token, by the chosen (from) and the fallback (to) model.",
  ['from', 'to'],
);

export interface ModelCall {
  /** The answer's first words arrived (the first call counts). */
  firstToken(): void;
  succeeded(answer: { promptTokens: number; completionTokens: number }): void;
  failed(outcome: string): void;
}

/** Measures one call to the model: a client span, its time to first token and duration, its tokens. */
export function modelCall(model: string, mode: Mode): ModelCall {
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  const span = startSpan('language model', 'client', currentTrace(), { 'gen_ai.request.model': model, 'parley.answer.mode': mode });
  let first = false;
  const firstTokenNow = () => {
    if (first) return;
    first = true;
    firstToken.labels(model, mode).observe(seconds());
  };
  return {
    firstToken: firstTokenNow,
    succeeded({ promptTokens, completionTokens }) {
      firstTokenNow();
      duration.labels(model, mode, 'ok').observe(seconds());
      tokens.series({ model, kind: 'prompt' }).inc(promptTokens);
      tokens.series({ model, kind: 'completion' }).inc(completionTokens);
      span.end({ 'gen_ai.usage.input_tokens': promptTokens, 'gen_ai.usage.output_tokens': completionTokens });
    },
    failed(outcome) {
      duration.labels(model, mode, outcome).observe(seconds());
      span.end({ 'error.type': outcome }, outcome);
    },
  };
}

/** Counts an answer its fallback model gave. */
export function countFallback(from: string, to: string): void {
  fallbacks.series({ from, to }).inc();
}
