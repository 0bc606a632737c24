// Runs the fake OpenAI-compatible server as a process, for the end-to-end tests and benchmarks:
//   PORT=4090 node services/common/src/testing/fake-openai-main.ts
// prints its base URL (ending in /v1) on the first line of stdout. FAKE_OPENAI_REPLY sets a fixed
// answer, FAKE_OPENAI_DELAY_MS and FAKE_OPENAI_CHUNK_DELAY_MS slow it down.
import { startFakeOpenAI } from './fake-openai.ts';

const number = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`Invalid environment: ${name} must be a non-negative integer, got "${raw}"\n`);
    process.exit(1);
  }
  return n;
};

const fake = await startFakeOpenAI({
  port: number('PORT', 0),
  host: process.env.HOST || '127.0.0.1',
  delayMs: number('FAKE_OPENAI_DELAY_MS', 0),
  chunkDelayMs: number('FAKE_OPENAI_CHUNK_DELAY_MS', 0),
  ...(process.env.FAKE_OPENAI_REPLY ? { reply: process.env.FAKE_OPENAI_REPLY } : {}),
});
process.stdout.write(`${fake.url}\n`);

const stop = () => {
  void fake.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
