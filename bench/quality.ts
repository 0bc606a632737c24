// Quality loop benchmark (a script that prints figures, not a test): what a chatbot's test run does
// to the visitors of other chatbots (docs/adr/0050-quality-loop.md). In one run: 50 visitors at once,
// each sending messages one after another, alone; then the same with a 200-case test run of another
// owner's chatbot answered beside them by the same chat instance (TEST_RUN_CONCURRENCY 4); then alone
// again. The visitors' p50 with the run is compared with the mean of the two phases without it.
// Real chat (with its queue workers), chatbot and billing services in this process, real PostgreSQL,
// Redis and BullMQ, the fake OpenAI server answering after BENCH_MODEL_MS (default 50 ms).
//
//   npm run bench quality        (or: node bench/quality.ts)
//
// DATABASE_URL defaults to postgresql://postgres@127.0.0.1:5432/parley_bench and REDIS_URL to
// redis://127.0.0.1:6379; fresh schemas and a Redis prefix of its own, dropped at the end.
// BENCH_MESSAGES (default 10) per visitor per phase. Target: p50 with the run ≤ 1.10 × without.
import { cpus, loadavg } from 'node:os';
import { startInProcessStack } from './in-process-stack.ts';
import { latencies as latencyStats, ms } from './stats.ts';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? '10');
const MODEL_MS = Number(process.env.BENCH_MODEL_MS ?? '50');
const VISITORS = 50;
const CASES = 200;
const TARGET_RATIO = 1.1;
const KNOWLEDGE = [
  'Opening hours: Monday to Friday 9:00 to 18:00, Saturday 10:00 to 16:00. We are closed on Sundays and public holidays.',
  'Returns: items can be returned within thirty days in their original packaging. After thirty days we offer store credit only.',
];

const stack = await startInProcessStack({
  name: 'quality',
  modelDelayMs: MODEL_MS,
  chatWorkers: true,
  chatEnv: { TEST_RUN_CONCURRENCY: '4', RPC_TIMEOUT_MS: '30000' },
});
const { billing, chat, chatbots, billingClient, client, prefix } = stack;

try {
  // Two owners with credit that never runs out: the visitors' chatbot, and the tested chatbot.
  const owner = async (id: string) => {
    await billingClient.getAccount({ ownerId: id });
    await billing.prisma.account.update({ where: { ownerId: id }, data: { creditBalance: 1_000_000 } });
    return id;
  };
  const make = async (ownerId: string, name: string) => {
    const { chatbot: c } = await chatbots.createChatbot({ ownerId, name });
    for (const text of KNOWLEDGE) await chatbots.addTextEntry({ ownerId, chatbotId: c!.id, text });
    return c!;
  };
  const visited = await make(await owner(`bench-visited-${prefix}`), 'Visited');
  const testerId = await owner(`bench-tester-${prefix}`);
  const tested = await make(testerId, 'Tested');
  const cases = Array.from({ length: CASES }, (_, i) => ({
    line: i + 1,
    question: `What are your opening hours on day ${i}?`,
    checks: [{ kind: 'contains', phrases: ['9:00'], entryId: '' }],
  }));
  await client.importTestCases({ ownerId: testerId, chatbotId: tested.id, cases });

  const sessions = new Map<number, string>();
  let refused = 0;
  let sent = 0;
  const visitor = async (v: number, latencies: number[]) => {
    for (let m = 0; m < MESSAGES; m++) {
      const t0 = performance.now();
      try {
        const res = await client.sendMessage({
          uniqueId: visited.uniqueId,
          sessionId: sessions.get(v) ?? '',
          message: `What are your opening hours? (${sent++})`,
          model: 'gpt-4o-mini',
          clientIp: `10.43.0.${v + 1}`,
          userAgent: 'bench',
        });
        sessions.set(v, res.sessionId);
        latencies.push(performance.now() - t0);
      } catch (err) {
        refused++;
        if (refused <= 3) console.log(`  visitor: ${(err as Error).message}`);
      }
    }
  };
  const phase = async () => {
    const latencies: number[] = [];
    const t0 = performance.now();
    const refusedBefore = refused;
    await Promise.all(Array.from({ length: VISITORS }, (_, v) => visitor(v, latencies)));
    return {
      ...latencyStats(latencies),
      seconds: (performance.now() - t0) / 1000,
      count: latencies.length,
      refused: refused - refusedBefore,
    };
  };
  const answered = async (runId: string) => chat.prisma.testResult.count({ where: { runId } });

  console.log(
    `quality benchmark, ${new Date().toISOString()}: ${cpus().length} CPUs, Node ${process.version}, load ${loadavg()[0].toFixed(1)}; ` +
      `${VISITORS} visitors × ${MESSAGES} messages per phase, model ${MODEL_MS} ms, a ${CASES}-case run at TEST_RUN_CONCURRENCY 4`,
  );
  await phase(); // warm-up
  const before = await phase();
  const { run } = await client.startTestRun({ ownerId: testerId, chatbotId: tested.id });
  // The run under way before the visitors start.
  while ((await answered(run!.id)) < 4) await new Promise((r) => setTimeout(r, 20));
  const atStart = await answered(run!.id);
  const during = await phase();
  const atEnd = await answered(run!.id);
  if (atEnd >= CASES) console.log('  the run finished before the phase did: raise BENCH_MESSAGES');
  await client.cancelTestRun({ ownerId: testerId, chatbotId: tested.id, runId: run!.id });
  while ((await chat.prisma.testRun.findUniqueOrThrow({ where: { id: run!.id } })).finishedAt === null)
    await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 500));
  const after = await phase();
  for (const [name, s] of [
    ['without a run', before],
    [`beside the run (${atEnd - atStart} cases answered meanwhile)`, during],
    ['without a run, again', after],
  ] as const)
    console.log(
      `  ${name}: p50 ${ms(s.p50)} ms, p95 ${ms(s.p95)} ms, p99 ${ms(s.p99)} ms; ${s.count} messages in ${s.seconds.toFixed(1)} s${s.refused ? `, ${s.refused} refused` : ''}`,
    );
  const baseline = (before.p50 + after.p50) / 2;
  const ratio = during.p50 / baseline;
  console.log(
    `  visitors' p50 beside the run ÷ without: ${ratio.toFixed(3)} (${ms(during.p50)} vs ${ms(baseline)} ms; target ≤ ${TARGET_RATIO}: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'})`,
  );
} finally {
  await stack.stop();
}
