// Visitor limits benchmark (a script that prints figures, not a test): what the daily limits (ADR 19)
// add to a public chat message. In one run, the same message (SendMessage over Connect, as the
// gateway calls it) on two chatbots of the same owner, alternated message by message so both see the
// same background load: one without limits (none: no Redis call for them), one with the product's
// limits switched on but set so high that nothing is refused (10,000 messages per visitor per day, a
// $10,000.00 daily cap): the day-limits script before the credit hold, the spend reservation after
// it, and its settlement beside the recorder's writes. Real chat, chatbot and billing services in
// this process, real PostgreSQL and Redis, the fake OpenAI server with no delay.
//
//   npm run bench visitor-limits        (or: node bench/visitor-limits.ts)
//
// DATABASE_URL defaults to postgresql://postgres@127.0.0.1:5432/parley_bench and REDIS_URL to
// redis://127.0.0.1:6379; fresh schemas and a Redis prefix of its own, dropped at the end.
// BENCH_MESSAGES (default 2000) per variant, after 200 warm-up messages each. Target: ≤ 2 ms p50.
import { cpus, loadavg } from 'node:os';
import { createRedis } from '../services/common/src/redis.ts';
import { redisUrl, startInProcessStack } from './in-process-stack.ts';
import { percentile } from './stats.ts';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? '2000');
const WARMUP = 200;
const VISITORS = 50;
const TARGET_P50_MS = 2;
const KNOWLEDGE = [
  'Opening hours: Monday to Friday 9:00 to 18:00, Saturday 10:00 to 16:00. We are closed on Sundays and public holidays.',
  'Returns: items can be returned within thirty days in their original packaging. After thirty days we offer store credit only.',
];

const ms = (n: number) => n.toFixed(2);
const stats = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99) };
};

const stack = await startInProcessStack({ name: 'limits', modelDelayMs: 0, chatWorkers: false });
const { billing, chatbots, billingClient, client, prefix } = stack;

try {
  // One pro owner (so two chatbots), credit that never runs out, two chatbots with the same knowledge.
  const ownerId = `bench-owner-${prefix}`;
  await billingClient.getAccount({ ownerId });
  await billing.prisma.account.update({ where: { ownerId }, data: { plan: 'pro', creditBalance: 1_000_000 } });
  const make = async (name: string) => {
    const { chatbot: c } = await chatbots.createChatbot({ ownerId, name });
    for (const text of KNOWLEDGE) await chatbots.addTextEntry({ ownerId, chatbotId: c!.id, text });
    return c!;
  };
  const plain = await make('Without limits');
  const limited = await make('With limits');
  await chatbots.updateChatbot({
    ownerId,
    chatbotId: plain.id,
    limits: { clearVisitorMessagesPerDay: true, clearDailySpendLimit: true, proofOfWork: false },
  });
  await chatbots.updateChatbot({
    ownerId,
    chatbotId: limited.id,
    limits: { visitorMessagesPerDay: 10_000, dailySpendLimit: '10000.00', proofOfWork: false },
  });

  // The comparison means something only if the plain chatbot really has no limits and the other has them.
  const [{ chatbot: plainSeen }, { chatbot: limitedSeen }] = await Promise.all([
    chatbots.getPublicChatbot({ uniqueId: plain.uniqueId }),
    chatbots.getPublicChatbot({ uniqueId: limited.uniqueId }),
  ]);
  if (plainSeen?.limits?.visitorMessagesPerDay !== undefined || plainSeen?.limits?.dailySpendLimit !== undefined)
    throw new Error('the chatbot without limits still has some');
  if (limitedSeen?.limits?.visitorMessagesPerDay !== 10_000 || !limitedSeen.limits.dailySpendLimit)
    throw new Error('the limited chatbot has no limits');

  const variants = [
    { name: 'without limits', uniqueId: plain.uniqueId, sessions: new Map<number, string>(), latencies: [] as number[] },
    {
      name: 'with limits (10,000/visitor/day, $10,000.00/day)',
      uniqueId: limited.uniqueId,
      sessions: new Map<number, string>(),
      latencies: [] as number[],
    },
  ];
  let refused = 0;
  const send = async (v: (typeof variants)[number], i: number) => {
    const visitor = i % VISITORS;
    const t0 = performance.now();
    try {
      const res = await client.sendMessage({
        uniqueId: v.uniqueId,
        sessionId: v.sessions.get(visitor) ?? '',
        message: `What are your opening hours? (${i})`,
        model: 'gpt-4o-mini',
        clientIp: `10.42.0.${visitor + 1}`,
        userAgent: 'bench',
      });
      v.sessions.set(visitor, res.sessionId);
    } catch (err) {
      refused++;
      if (refused <= 3) console.log(`  ${v.name}: ${(err as Error).message}`);
    }
    return performance.now() - t0;
  };

  console.log(
    `visitor limits benchmark, ${new Date().toISOString()}: ${cpus().length} CPUs, Node ${process.version}, load ${loadavg()[0].toFixed(1)}; ` +
      `${MESSAGES} sequential JSON messages per variant, alternated, after ${WARMUP} warm-up each`,
  );
  for (let i = 0; i < WARMUP; i++) for (const v of variants) await send(v, i);
  for (let i = 0; i < MESSAGES; i++) {
    // Alternated, the first of each pair switching, so neither variant always runs right after the other.
    const order = i % 2 === 0 ? variants : [...variants].reverse();
    for (const v of order) v.latencies.push(await send(v, WARMUP + i));
  }
  if (refused) throw new Error(`${refused} messages were refused: the limits must not refuse anything here`);
  const [without, withLimits] = variants.map((v) => ({ ...stats(v.latencies), name: v.name }));
  for (const s of [without, withLimits]) console.log(`  ${s.name}: p50 ${ms(s.p50)} ms, p95 ${ms(s.p95)} ms, p99 ${ms(s.p99)} ms`);
  const added = withLimits.p50 - without.p50;
  console.log(
    `  added by the limits: p50 ${ms(added)} ms, p95 ${ms(withLimits.p95 - without.p95)} ms (target ≤ ${TARGET_P50_MS} ms p50: ${added <= TARGET_P50_MS ? 'met' : 'NOT met'})`,
  );
  const redis = createRedis(redisUrl);
  const day = new Date().toISOString().slice(0, 10);
  console.log(
    `  the limited chatbot's spend today: ${(await redis.get(`${prefix}:chat-limit:spend:${limited.id}:${day}`)) ?? 0} pico-dollars`,
  );
  await redis.quit();
} finally {
  await stack.stop();
}
