// What the chat service reports of its public chat answers (docs/metrics.md): how many are being
// answered now (the language model's calls are measured in models/model-metrics.ts).
import { gauge } from '@parley/common/metrics.ts';

type Mode = 'json' | 'stream';

const inFlight = gauge(
  'parley_chat_answers_in_flight',
  'Public chat messages this chat service is answering now, by mode (json: one reply; stream: server-sent events).',
  ['mode'],
);

/** Runs one public chat answer, counted in parley_chat_answers_in_flight while it runs. */
export async function countedAnswer<T>(mode: Mode, answer: () => Promise<T>): Promise<T> {
  const gauge = inFlight.labels(mode);
  gauge.inc();
  try {
    return await answer();
  } finally {
    gauge.dec();
  }
}

/** A streamed answer, counted in parley_chat_answers_in_flight until its last event (or its caller leaves). */
export async function* countedStream<T>(events: AsyncIterable<T>): AsyncGenerator<T> {
  const gauge = inFlight.labels('stream');
  gauge.inc();
  try {
    yield* events;
  } finally {
    gauge.dec();
  }
}
