// What metrics and trace context cost one public chat message in CPU, without OTLP export: the kit's
// per-request work (a server span continuing the caller's traceparent, the request's context, its
// duration observed) and per-call work (a client span, its traceparent header, its duration observed),
// measured apart in one process, in alternated rounds. A message is 3 requests served (gateway, chat,
// billing), 2 calls made (gateway to chat, chat to billing), a model call and 2 jobs processed
// (usage, analytics), each of the last three one span and a histogram observation or none:
// `node bench/trace-overhead.ts` prints each unit and their sum for a message.
import { formatTraceparent, parseTraceparent, runWithRequestId } from '../services/common/src/context.ts';
import { histogram } from '../services/common/src/metrics.ts';
import { startSpan } from '../services/common/src/tracing.ts';

const ROUNDS = 5;
const N = 100_000;
const duration = histogram('bench_request_duration_seconds', 'Bench.', ['route', 'method', 'status']);
const header = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

function served(): void {
  const span = startSpan('request', 'server', parseTraceparent(header));
  runWithRequestId('bench', () => undefined, span.context);
  duration.labels('parley.chat.v1.ChatService/SendMessage', 'POST', '200').observe(0.004);
  span.end();
}

function called(): void {
  const span = startSpan('parley.billing.v1.BillingService/ReserveCredit', 'client', parseTraceparent(header));
  formatTraceparent(span.context);
  duration.labels('parley.billing.v1.BillingService', 'ReserveCredit', 'ok').observe(0.002);
  span.end();
}

function microseconds(unit: () => void): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < N; i++) unit();
  return Number(process.hrtime.bigint() - started) / N / 1000;
}

for (let i = 0; i < 20_000; i++) {
  served();
  called();
}
const results = { served: [] as number[], called: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  results.served.push(microseconds(served));
  results.called.push(microseconds(called));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const s = median(results.served);
const c = median(results.called);
console.log(`a request served: ${s.toFixed(2)} µs; a call made: ${c.toFixed(2)} µs (medians of ${ROUNDS} rounds of ${N})`);
console.log(`a public chat message (3 requests served, 2 calls made, 3 more spans): ≈ ${(3 * s + 5 * c).toFixed(1)} µs of CPU`);
