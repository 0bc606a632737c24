// A chatbot's fallback (docs/adr/0039-the-model-layer.md): when its chosen model fails before its
// first token in a way another provider may not (no connection, the deadline, a 429, a 5xx or
// overloaded), the answer is asked once of the fallback model, with its own deadline; the visitor has
// seen nothing yet. What the provider refused (the key, the request, the prompt's length) or the
// caller aborted is not tried again, nor is a failure after the first token.
import type { Logger } from '@parley/common/logger.ts';
import { countFallback } from './model-metrics.ts';
import { LanguageModelError, type LanguageModel, type ModelAnswer } from './language-model.ts';
import type { RoutedModel } from './model-router.ts';

/** True when a failure of the chosen model lets its fallback answer. */
export function fallsBack(err: unknown): boolean {
  if (!(err instanceof LanguageModelError) || !err.beforeFirstToken) return false;
  switch (err.kind) {
    case 'timeout':
    case 'rate_limited':
    case 'overloaded':
      return true;
    case 'provider':
      // No answer at all (the connection refused or dropped), or the provider's own failure.
      return err.status === undefined || err.status >= 500;
    default:
      return false;
  }
}

export function withFallback(primary: RoutedModel, fallback: RoutedModel, logger: Logger): LanguageModel {
  async function answer(call: (model: LanguageModel) => Promise<ModelAnswer>): Promise<ModelAnswer> {
    try {
      return await call(primary.language);
    } catch (err) {
      if (!fallsBack(err)) throw err;
      const failure = err as LanguageModelError;
      logger.warn(
        { from: primary.model.id, to: fallback.model.id, kind: failure.kind, status: failure.status, err: failure.message },
        'the chosen model failed before its first token: its fallback answers',
      );
      const answered = await call(fallback.language);
      countFallback(primary.model.id, fallback.model.id);
      return { ...answered, fallback: true };
    }
  }
  return {
    complete: (req) => answer((model) => model.complete(req)),
    stream: (req, onDelta) => answer((model) => model.stream(req, onDelta)),
  };
}
