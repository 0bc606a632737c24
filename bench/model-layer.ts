// What the model layer costs one message in CPU: a streamed answer from the fake OpenAI server (its
// own process, so only the caller's CPU is counted) through the model layer (the chatbot's model
// chosen by chat-models.ts from the router, the output cap, the fallback wrapper, the adapter's
// deadline, metrics and usage) against the same request made directly with the `openai` SDK, in
// alternated rounds; the difference is the layer's. Target: at most 0.2 ms of CPU per message.
//   node bench/model-layer.ts [--calls 400] [--rounds 5]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import OpenAI from 'openai';
import { loadCatalogue } from '../services/common/src/models/catalogue.ts';
import { createLogger } from '../services/common/src/logger.ts';
import { chatModels } from '../services/chat/src/models/chat-models.ts';
import { modelRouter } from '../services/chat/src/models/model-router.ts';
import { ms, verdict } from './stats.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CALLS = arg('calls', 400);
const ROUNDS = arg('rounds', 5);
const TARGET_MS = 0.2;

const fake = spawn(process.execPath, [new URL('../services/common/src/testing/fake-openai-main.ts', import.meta.url).pathname], {
  env: { ...process.env, PORT: '0', FAKE_OPENAI_REPLY: 'The museum opens at ten and closes at six, every day but Monday. [1]' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [url] = (await once(createInterface({ input: fake.stdout! }), 'line')) as [string];

const messages = [
  {
    role: 'system' as const,
    content: `You are the museum's assistant.\n<knowledge_base>\n[1] Hours\n${'The museum opens at ten. '.repeat(200)}\n</knowledge_base>`,
  },
  { role: 'user' as const, content: 'Is the museum open every day?' },
];
const logger = createLogger('bench', 'silent');
const catalogue = loadCatalogue({});
const router = modelRouter({ catalogue, endpoints: { openai: { apiKey: 'bench', baseURL: url } }, timeoutMs: 30_000, logger });
const models = chatModels(router, { maxMessageChars: 4000, maxOutputTokens: 800, promptKnowledgeChars: 12000, historyChars: 4000 }, logger);
const chatbot = { model: { modelId: 'gpt-4o-mini', fallbackModelId: 'gpt-4.1-mini' } };
const sdk = new OpenAI({ apiKey: 'bench', baseURL: url, timeout: 30_000, maxRetries: 0 });

async function direct(): Promise<void> {
  const stream = await sdk.chat.completions.create(
    { model: 'gpt-4o-mini', messages, max_tokens: 800, stream: true, stream_options: { include_usage: true } },
    { signal: AbortSignal.timeout(30_000) },
  );
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  if (!text) throw new Error('no answer');
}

async function layered(): Promise<void> {
  const chosen = (await models.choose(chatbot))!;
  const answer = await chosen.language.stream({ messages, maxTokens: 800 }, () => {});
  if (!answer.text) throw new Error('no answer');
}

/** CPU (user + system) of this process per call, in ms, over CALLS calls one after the other. */
async function cpuPerCall(call: () => Promise<void>): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await call();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / CALLS;
}

for (let i = 0; i < 100; i++) {
  await direct();
  await layered();
}
const results = { direct: [] as number[], layered: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  results.direct.push(await cpuPerCall(direct));
  results.layered.push(await cpuPerCall(layered));
}
fake.kill('SIGTERM');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const d = median(results.direct);
const l = median(results.layered);
console.log(`CPU per streamed answer, medians of ${ROUNDS} rounds of ${CALLS} calls (the fake server in its own process):`);
console.log(`  the openai SDK directly:            ${ms(d)} ms`);
console.log(`  the model layer (router + adapter): ${ms(l)} ms`);
console.log(`  added by the model layer:           ${ms(l - d)} ms (target ≤ ${TARGET_MS} ms: ${verdict(1, l - d <= TARGET_MS)})`);
