// Redaction benchmark (a script that prints figures, not a test): what keeping personal data from the
// model (docs/adr/0049-personal-data-kept-from-the-model.md) adds to one public chat message, in the
// chat service's own functions (services/chat/src/public-chat/privacy.ts): the turn's redactor made
// from the chatbot's privacy, the history (6 turns) and the message redacted for the prompt, the
// answer (about 400 characters, echoing the placeholders) restored as a stream of 30 deltas and
// whole, and the message, the answer and the history as the recorder stores them (placeholders: the
// owner did not keep the originals). The messages are the redaction test's corpus: the 200 with
// personal data and the 240 ordinary sentences, alternated. "Off" is a chatbot without privacy: the
// same calls, which return what they were given. On and off are alternated message by message, so
// both see the same load. No I/O: redaction adds no SQL statement, RPC call or Redis command (the
// message budget test says so).
//
//   npm run bench redaction        (or: node bench/redaction.ts)
//
// BENCH_MESSAGES (default 20000) per variant, after 2000 warm-up messages each. Target: ≤ 0.3 ms p50 when on.
import { create } from '@bufbuild/protobuf';
import { PrivacySchema, PublicChatbotSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { ORDINARY_SENTENCES, PERSONAL_DATA_SAMPLES } from '../services/common/src/testing/personal-data-corpus.ts';
import { asStored, forTheModel, restored, restoringStream, turnPrivacy } from '../services/chat/src/public-chat/privacy.ts';
import type { Turn } from '../services/chat/src/public-chat/build-prompt.ts';
import { latencies, load } from './stats.ts';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? '20000');
const WARMUP = 2000;
const TARGET_P50_MS = 0.3;
const ms = (n: number) => n.toFixed(3);

const texts = PERSONAL_DATA_SAMPLES.flatMap((s, i) => [s.text, ORDINARY_SENTENCES[i % ORDINARY_SENTENCES.length]!]);
const history: Turn[] = [
  { role: 'user', content: 'Hello, I ordered a lamp last week (order 123456) and it has not arrived.' },
  { role: 'assistant', content: 'I am sorry to hear that. Could you tell me the email address you ordered with?' },
  { role: 'user', content: 'It is anna.smith@example.com, and my phone is +44 20 7946 0958.' },
  {
    role: 'assistant',
    content: 'Thank you. Orders usually arrive within 3 to 5 working days; yours left the warehouse on 2026-11-28 [1].',
  },
  { role: 'user', content: 'Can you refund it to DE89 3704 0044 0532 0130 00 if it does not come by Friday?' },
  { role: 'assistant', content: 'Refunds go back to the original payment method within 14 days [2]. Is there anything else?' },
];
const on = create(PublicChatbotSchema, {
  id: 'b',
  privacy: create(PrivacySchema, { redactPersonalData: true, patterns: ['CUST-\\d{6}'] }),
});
const off = create(PublicChatbotSchema, { id: 'b' });

/** One message's redaction work, as send-message.ts and recorder.ts do it; returns what it produced, so nothing is optimised away. */
function oneMessage(chatbot: typeof on, message: string): number {
  const privacy = turnPrivacy(chatbot);
  const read = forTheModel(privacy, history, message);
  // The model echoes what it read, at the length of a usual answer.
  const modelAnswer = `Thanks for your message. You wrote: ${read.message} We will look into it and get back to you within two working days [1]. ${read.history[2]!.content}`;
  let shown = '';
  const stream = restoringStream(privacy, (d) => {
    shown += d;
  });
  const step = Math.ceil(modelAnswer.length / 30);
  for (let i = 0; i < modelAnswer.length; i += step) stream.onDelta(modelAnswer.slice(i, i + step));
  stream.end();
  const whole = restored(privacy, modelAnswer);
  const stored = [asStored(privacy, message), asStored(privacy, whole), ...history.map((t) => asStored(privacy, t.content))];
  return shown.length + whole.length + stored.reduce((n, s) => n + s.length, 0) + read.history.length;
}

let sink = 0;
const timings = { on: [] as number[], off: [] as number[] };
for (let i = 0; i < WARMUP + MESSAGES; i++) {
  const text = texts[i % texts.length]!;
  for (const [name, chatbot] of i % 2
    ? ([
        ['on', on],
        ['off', off],
      ] as const)
    : ([
        ['off', off],
        ['on', on],
      ] as const)) {
    const start = performance.now();
    sink += oneMessage(chatbot, text);
    const took = performance.now() - start;
    if (i >= WARMUP) timings[name].push(took);
  }
}

const a = latencies(timings.on);
const b = latencies(timings.off);
console.log(
  `redaction per message, ${MESSAGES} messages each (history of ${history.length} turns, answer streamed in 30 deltas), load ${load()}`,
);
console.log(`  on:  p50 ${ms(a.p50)} ms, p95 ${ms(a.p95)} ms, p99 ${ms(a.p99)} ms`);
console.log(`  off: p50 ${ms(b.p50)} ms, p95 ${ms(b.p95)} ms, p99 ${ms(b.p99)} ms`);
console.log(
  `  added when on: p50 +${ms(a.p50 - b.p50)} ms (target ≤ ${TARGET_P50_MS} ms: ${a.p50 - b.p50 <= TARGET_P50_MS ? 'met' : 'not met'})`,
);
if (sink === 0) console.log('(nothing produced)');
