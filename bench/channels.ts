// Messaging channels benchmark (a script that prints figures, not a test; ADR 44). In one run, on
// the whole product in this process (auth, billing, chatbot, chat with its workers, the gateway),
// real PostgreSQL and Redis, the fake OpenAI server with no delay and the fake Telegram Bot API:
//
//   1. CPU per message: the same question through Telegram (the webhook POST with its secret, until
//      the answer reached the fake Bot API's sendMessage) against the widget's JSON chat
//      (POST /api/chatbot/public/{uniqueId}/chat with the embed page's X-Parley-Embed), one message at a time,
//      alternated in rounds so both see the same background load. The process's CPU time per message
//      (every service and both fakes are in it; the fake Bot API's own work counts for Telegram).
//      Target: Telegram ≤ 1.3 × the widget.
//   2. The webhook's acknowledgement: 100 updates posted at once (distinct chats) by the provider's
//      side in a process of its own (bench/channels-ack-client.ts, over node:http), the time to each
//      200, repeated after a warm-up round; p50, p95 and p99 over every update, with the queue paused (a
//      deployment's chat-worker answers in processes of its own) and with the channel worker answering
//      in this same process meanwhile; then paused with the provider posting through fetch, and with
//      the posts made from this process (how the benchmark first measured it), with the process's CPU
//      per acknowledgement. First, the measure's own floor: the same client against a bare node:http
//      server that answers 200 at once. Target: p99 ≤ 50 ms.
//
//   node bench/channels.ts      (DATABASE_URL and REDIS_URL as for the tests; BENCH_MESSAGES, default 200 per variant;
//                                BENCH_PHASES=cpu,ack picks the parts, both by default; BENCH_ACK_ROUNDS, default 5; BENCH_ACK_WINDOW=FILE writes the
//                                acknowledgement runs' process.hrtime window, in microseconds, for bench/cpu-profile.ts;
//                                BENCH_BASE=DIR measures that checkout too, in the same run, alternated)
import { cpuUsage } from 'node:process';
import { writeFileSync } from 'node:fs';
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cpus, loadavg } from 'node:os';
import { startFakeOpenAI } from '../services/common/src/testing/fake-openai.ts';
import { startFakeTelegram, telegramTextUpdate } from '../services/common/src/testing/fake-telegram.ts';
import { Queue } from 'bullmq';
import { QUEUES } from '../services/common/src/queues.ts';
import { createRedis } from '../services/common/src/redis.ts';
import type * as StackModule from '../gateway/test/stack.ts';
import { percentile } from './stats.ts';

// BENCH_BASE=DIR: the whole benchmark for that checkout's product and for this one, each in a process
// of its own, alternated base, this, base, this (BENCH_RUNS pairs, default 2), in one run.
if (process.env.BENCH_BASE && !process.env.BENCH_STACK_ROOT) {
  const { execFileSync } = await import('node:child_process');
  const self = fileURLToPath(import.meta.url);
  const here = fileURLToPath(new URL('..', import.meta.url));
  for (let pair = 0; pair < Number(process.env.BENCH_RUNS ?? '2'); pair++) {
    for (const [name, root] of [
      ['base', process.env.BENCH_BASE],
      ['this checkout', here],
    ] as const) {
      console.log(`— ${name} (${root}), run ${pair + 1}`);
      execFileSync(process.execPath, [self], { env: { ...process.env, BENCH_STACK_ROOT: root }, stdio: 'inherit' });
    }
  }
  process.exit(0);
}
// BENCH_STACK_ROOT: another checkout whose product is measured (its gateway/test/stack.ts); BENCH_BASE runs that checkout and this one, alternated.
const STACK_ROOT = process.env.BENCH_STACK_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const { startStack } = (await import(pathToFileURL(join(STACK_ROOT, 'gateway/test/stack.ts')).href)) as typeof StackModule;
process.env.DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/parley_bench';
process.env.REDIS_URL ??= 'redis://127.0.0.1:6379';
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? '200');
const PHASES = new Set((process.env.BENCH_PHASES ?? 'cpu,ack').split(','));
const ROUND = 20;
const WARMUP = 20;
const CONCURRENT = 100;
const ACK_ROUNDS = Number(process.env.BENCH_ACK_ROUNDS ?? '5');
const TOKEN = '700800900:AABenchTokenForTheChannelsBenchmark_01';
const QUESTION = 'What are your opening hours on Saturday?';

const ms = (n: number) => n.toFixed(2);
const cpuMs = () => {
  const u = cpuUsage();
  return (u.user + u.system) / 1000;
};

const model = await startFakeOpenAI({ delayMs: 0, chunkDelayMs: 0 });
const telegram = await startFakeTelegram({ bots: { [TOKEN]: 'bench_bot' } });
const stack = await startStack({
  chatEnv: {
    OPENAI_API_KEY: 'bench-key',
    OPENAI_BASE_URL: model.url,
    TELEGRAM_API_BASE: telegram.url,
    CHAT_RATE_PER_VISITOR: '1000000',
    CHAT_RATE_PER_BOT: '10000000',
  },
});
const json = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(stack.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as Record<string, unknown>;
};

try {
  const email = `bench.channels.${Date.now()}@example.com`;
  const registered = await json('/api/auth/register', { email, password: 'bench-pass', password2: 'bench-pass' });
  const token = registered.token as string;
  const auth = { authorization: `Bearer ${token}` };
  const userId = (registered.user as { id: string }).id;
  await stack.billingParts.prisma.account.update({ where: { ownerId: userId }, data: { creditBalance: 1_000_000 } });
  const bot = await json('/api/chatbot', { name: 'Bench Bot' }, auth);
  await json(
    `/api/chatbot/${bot._id as string}/knowledge-base/text`,
    { text: 'Opening hours: Saturday 10:00 to 16:00, closed on Sundays.' },
    auth,
  );
  const connected = await json(
    '/graphql',
    {
      query: 'mutation($c: ID!, $t: String!) { connectChannel(chatbotId: $c, channel: "telegram", token: $t) { id } }',
      variables: { c: bot._id, t: TOKEN },
    },
    auth,
  );
  const connectionId = (connected.data as { connectChannel: { id: string } }).connectChannel.id;
  const secret = telegram.webhooks.get(TOKEN)!.secretToken;
  const webhook = `/api/channels/telegram/${connectionId}`;
  const hook = { 'x-telegram-bot-api-secret-token': secret };

  const widgetSessions = new Map<number, string>();
  const widgetMessage = async (i: number) => {
    const visitor = i % 20;
    const res = await json(
      `/api/chatbot/public/${bot.uniqueId as string}/chat`,
      {
        message: QUESTION,
        sessionId: widgetSessions.get(visitor) ?? '',
      },
      { 'x-forwarded-for': `10.9.0.${visitor + 1}`, 'x-parley-embed': '1' },
    );
    widgetSessions.set(visitor, res.sessionId as string);
  };
  const telegramMessage = async (i: number) => {
    const sent = telegram.sent.length;
    await json(webhook, telegramTextUpdate(100 + (i % 20), QUESTION), hook);
    await telegram.sentCount(sent + 1);
    const answer = telegram.sent.at(-1)!.text;
    if (!answer.includes('Saturday')) throw new Error(`not an answer: ${answer.slice(0, 200)}`);
  };

  console.log(
    `channels benchmark of ${STACK_ROOT}, ${new Date().toISOString()}: ${cpus().length} CPUs, Node ${process.version}, load ${loadavg()[0].toFixed(1)}; ` +
      `${MESSAGES} sequential messages per variant in rounds of ${ROUND}, alternated, after ${WARMUP} warm-up each`,
  );
  for (let i = 0; i < WARMUP; i++) {
    await widgetMessage(i);
    await telegramMessage(i);
  }
  if (PHASES.has('cpu')) {
    const cpu = { widget: 0, telegram: 0 };
    for (let done = 0; done < MESSAGES; done += ROUND) {
      const order = (done / ROUND) % 2 === 0 ? (['widget', 'telegram'] as const) : (['telegram', 'widget'] as const);
      for (const variant of order) {
        const t0 = cpuMs();
        for (let i = 0; i < ROUND; i++) await (variant === 'widget' ? widgetMessage(done + i) : telegramMessage(done + i));
        cpu[variant] += cpuMs() - t0;
      }
    }
    const perWidget = cpu.widget / MESSAGES;
    const perTelegram = cpu.telegram / MESSAGES;
    const ratio = perTelegram / perWidget;
    console.log(`  CPU per message (whole product in this process): widget ${ms(perWidget)} ms, Telegram ${ms(perTelegram)} ms`);
    console.log(`  Telegram ÷ widget: ${ratio.toFixed(2)} × (target ≤ 1.3 ×: ${ratio <= 1.3 ? 'met' : 'NOT met'})`);
  }
  if (PHASES.has('ack')) {
    // The acknowledgement, twice: with the channel worker answering in this same process meanwhile, and
    // with the queue paused (as in a deployment, where chat-worker answers in processes of its own).
    const inboundRedis = createRedis(stack.redisUrl);
    const inbound = new Queue(QUEUES.channelInbound, { connection: inboundRedis, prefix: stack.queuePrefix });
    let update = 10_000;
    // The provider's side posts from a process of its own (as Telegram does), so the figure is the
    // gateway's and chat's alone; the last run posts from this process too, as the first versions of
    // this benchmark did (its client's own CPU then queues with the server's).
    const client = fork(fileURLToPath(new URL('./channels-ack-client.ts', import.meta.url)));
    const post = async (url: string, bodies: string[], via: 'http' | 'fetch') => {
      const answer = new Promise<{ acks?: number[]; error?: string; retried?: number; refused?: number }>((resolve) =>
        client.once('message', (m) => resolve(m as never)),
      );
      client.send({ url, headers: hook, bodies, client: via });
      return answer;
    };
    const body = () => JSON.stringify(telegramTextUpdate(update, QUESTION, { updateId: update++ }));
    {
      // The measure's own floor: the provider's side against a server that does nothing but answer.
      const bare = createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' }).end('{}'));
      });
      bare.keepAliveTimeout = 60_000;
      await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
      const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
      const acks: number[] = [];
      for (let round = 0; round <= ACK_ROUNDS; round++) {
        const { acks: got } = await post(bareUrl, Array.from({ length: CONCURRENT }, body), 'http');
        if (round > 0) acks.push(...got!);
      }
      bare.close();
      const sorted = acks.sort((a, b) => a - b);
      console.log(
        `  the measure's own floor, a bare node:http server answering 200, ${CONCURRENT} posts at once × ${ACK_ROUNDS} over node:http: ` +
          `p50 ${ms(percentile(sorted, 50))} ms, p95 ${ms(percentile(sorted, 95))} ms, p99 ${ms(percentile(sorted, 99))} ms`,
      );
    }
    const postRound = async (bodies: string[]): Promise<number[]> => {
      if (!clientInProcess) {
        const { acks, error, retried, refused } = await post(stack.url + webhook, bodies, via);
        if (error) throw new Error(error);
        retriedPosts = retried ?? 0;
        refusedPosts = refused ?? 0;
        return acks!;
      }
      return Promise.all(
        bodies.map(async (body) => {
          const t0 = performance.now();
          const res = await fetch(stack.url + webhook, { method: 'POST', headers: { 'content-type': 'application/json', ...hook }, body });
          await res.arrayBuffer();
          if (!res.ok) throw new Error(`webhook answered ${res.status}`);
          return performance.now() - t0;
        }),
      );
    };
    // Every acknowledged update's answer, or 60 s at most (an update refused with a 503 may or may not have been queued).
    const answered = (count: number) =>
      refusedPosts === 0 ? telegram.sentCount(count) : Promise.race([telegram.sentCount(count), new Promise((r) => setTimeout(r, 60_000))]);
    let clientInProcess = false;
    let via: 'http' | 'fetch' = 'http';
    let retriedPosts = 0;
    let refusedPosts = 0;
    const modes = [
      {
        worker: false,
        inProcess: false,
        via: 'http',
        label: 'queue paused (chat-worker in its own processes, as deployed), provider in another process over node:http',
      },
      {
        worker: true,
        inProcess: false,
        via: 'http',
        label: 'worker answering in this process, provider in another process over node:http',
      },
      { worker: false, inProcess: false, via: 'fetch', label: 'queue paused, provider in another process over fetch' },
      { worker: false, inProcess: true, via: 'fetch', label: 'queue paused, provider posting from this process over fetch' },
    ] as const;
    for (const mode of modes) {
      clientInProcess = mode.inProcess;
      via = mode.via;
      const acks: number[] = [];
      if (!mode.worker) await inbound.pause();
      // One warm-up round: the provider's connections opened, the connection's verifier kept.
      await postRound(Array.from({ length: CONCURRENT }, body));
      const cpuBefore = cpuMs();
      const fromUs = Number(process.hrtime.bigint() / 1000n);
      for (let round = 0; round < ACK_ROUNDS; round++) {
        const before = telegram.sent.length;
        acks.push(...(await postRound(Array.from({ length: CONCURRENT }, body))));
        if (mode.worker) await answered(before + CONCURRENT);
      }
      const ackCpu = (cpuMs() - cpuBefore) / (CONCURRENT * ACK_ROUNDS);
      if (process.env.BENCH_ACK_WINDOW && !mode.worker && !mode.inProcess && mode.via === 'http')
        writeFileSync(process.env.BENCH_ACK_WINDOW, JSON.stringify({ fromUs, toUs: Number(process.hrtime.bigint() / 1000n) }));
      if (!mode.worker) {
        const before = telegram.sent.length;
        await inbound.resume();
        await answered(before + CONCURRENT * (ACK_ROUNDS + 1));
      } else await telegram.sentCount(telegram.sent.length);
      const sorted = [...acks].sort((a, b) => a - b);
      const p99 = percentile(sorted, 99);
      console.log(
        `  webhook acknowledgement, ${CONCURRENT} updates at once × ${ACK_ROUNDS}, ${mode.label}: p50 ${ms(percentile(sorted, 50))} ms, ` +
          `p95 ${ms(percentile(sorted, 95))} ms, p99 ${ms(p99)} ms (target ≤ 50 ms: ${p99 <= 50 ? 'met' : 'NOT met'})` +
          (mode.worker ? '' : `; CPU of this process per acknowledgement ${ms(ackCpu)} ms`),
      );
    }
    client.disconnect();
    console.log(
      `  posts the provider's side made again after a closed connection, in all: ${retriedPosts}; answered other than 200: ${refusedPosts}`,
    );
    await inbound.close();
    inboundRedis.disconnect();
  }
  const perChat = new Map<string, number>();
  for (const s of telegram.sent) perChat.set(s.chat_id, (perChat.get(s.chat_id) ?? 0) + 1);
  console.log(
    `  ${telegram.sent.length} answers sent in all; every update of the acknowledgement runs answered once: ${[...perChat].filter(([c]) => Number(c) >= 10_000).every(([, n]) => n === 1)}`,
  );
  console.log(`  load at the end ${loadavg()[0].toFixed(1)}`);
} finally {
  await stack.close();
  await telegram.close();
  await model.close();
}
