// Tool loop benchmark (a script that prints figures, not a test): what one tool call adds to an
// answer, besides the target API's and the model's own time (ADR 45). Two parts, in this process:
//
//   1. the chat side: runToolLoop with one tool call (two model calls) against the same answer with
//      no tools (one call), on a model and an ActionService that answer at once (in process), so the
//      difference is the loop's own work: tools as a JSON schema, the prompt's steps, the result's
//      delimiting, the usage summed. The second model call's own time is the model's, and not here:
//      the stub answers at once.
//   2. the chatbot side: runAction (arguments checked, templates filled, secrets placed and masked,
//      the guarded connection with its pinned lookup, the answer parsed and its fields read) against
//      a target on loopback answering at once, against a bare undici request to the same target.
//
//   3. an MCP tool's call (ADR 55): callServerTool (the official SDK's client over Streamable HTTP
//      through the guarded fetch: initialize, the initialized notice, tools/call, as each call is its
//      own session) against the SDK's McpServer on loopback, against one bare tools/call POST to it.
//   4. a confirmation card (ADR 54, ADR 60): what the card adds to the two turns, on REDIS_URL's
//      Redis: open (SET NX, SET) on the model's call, decide (GET, SET NX, DEL) on the visitor's
//      Confirm. A chatbot without a confirm action or tool never reaches it.
//
// Not in these figures: the RunAction RPC hop and the ActionCall log row (one insert and one update).
//
//   node bench/tool-loop.ts            BENCH_CALLS (default 2000) per variant, after 200 warm-up
//                                      (parts 3 and 4: a tenth of that)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { create } from '@bufbuild/protobuf';
import { ActionToolSchema, ActionInputSchema } from '@parley/proto/parley/chatbot/v1/actions_pb.js';
import { createLogger } from '../services/common/src/logger.ts';
import { parseAllowList } from '../services/common/src/outbound/guard.ts';
import { runToolLoop } from '../services/chat/src/public-chat/tool-loop.ts';
import type { LanguageModel, ModelAnswer, ModelRequest } from '../services/chat/src/models/language-model.ts';
import { runAction } from '../services/chatbot/src/actions/run-action.ts';
import { parseActionDefinition } from '../services/chatbot/src/actions/actions.ts';
import { load, ms, percentile } from './stats.ts';
import { UNVERIFIED } from '../services/chat/src/public-chat/visitor-identity.ts';
import { redisPendingActions } from '../services/chat/src/public-chat/pending-actions.ts';
import { callServerTool } from '../services/chatbot/src/actions/mcp-client.ts';
import { startFakeMcpServer } from '../services/common/src/testing/fake-mcp-server.ts';
import { createRedis, unlinkMatching } from '../services/common/src/redis.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? '2000');
const WARMUP = 200;
const logger = createLogger('bench', 'silent');

const answerOf = (text: string, toolCalls: ModelAnswer['toolCalls']): ModelAnswer => ({
  text,
  promptTokens: 100,
  completionTokens: 10,
  cachedPromptTokens: 0,
  reasoningTokens: 0,
  usageReported: true,
  toolCalls,
  model: 'gpt-4o-mini',
  provider: 'openai',
  fallback: false,
});
/** Calls a tool on its first call of an answer when tools are offered, then answers. */
const model: LanguageModel = {
  complete: () => Promise.resolve(answerOf('ok', [])),
  stream: (req: ModelRequest, onDelta) => {
    const called = req.messages.some((m) => m.content.startsWith('<tool_result'));
    if (req.tools && !called) return Promise.resolve(answerOf('', [{ id: 'c1', name: 'look_up_order', arguments: { order_id: '1042' } }]));
    onDelta('Your order has shipped.');
    return Promise.resolve(answerOf('Your order has shipped.', []));
  },
};
const actions = {
  runAction: () =>
    Promise.resolve({
      status: 'ok',
      error: '',
      result: '{"order.status":"shipped"}',
      fieldsRead: ['order.status'],
      durationMs: 0,
      repeated: false,
    }),
} as never;
const tool = create(ActionToolSchema, {
  name: 'look_up_order',
  whenToUse: 'When the visitor asks where their order is',
  inputs: [create(ActionInputSchema, { name: 'order_id', type: 'string', required: true, source: 'model' })],
  method: 'GET',
});
const prompt = [
  { role: 'system' as const, content: 'You are Helper. '.repeat(200) },
  { role: 'user' as const, content: 'Where is my order 1042?' },
];

async function measure(run: () => Promise<unknown>, calls = CALLS): Promise<{ p50: number; cpuPerCall: number }> {
  for (let i = 0; i < Math.min(WARMUP, calls); i++) await run();
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), cpuPerCall: (used.user + used.system) / 1000 / calls };
}

// No MCP tool here: the chatbot service's MCP client is never asked.
const deps = { actions, mcp: {} as never, logger, deadlineMs: 60_000 };
const input = {
  model,
  prompt,
  maxTokens: 800,
  chatbotId: 'c',
  sessionId: 's',
  requestId: 'r',
  onDelta: () => {},
  onStatus: () => {},
  identity: UNVERIFIED,
};
const plain = await measure(() => model.stream({ messages: prompt, maxTokens: 800 }, () => {}));
const loop = await measure(() => runToolLoop(deps, { ...input, tools: [{ kind: 'action', name: tool.name, action: tool }] }));

const target = createServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end('{"order":{"id":"1042","status":"shipped","total":"42.00"},"items":[{"name":"Kettle"}]}');
});
await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
const def = await parseActionDefinition({
  name: 'look_up_order',
  whenToUse: 'orders',
  inputs: [{ name: 'order_id', type: 'string', required: true }],
  method: 'GET',
  url: `${origin}/orders/{order_id}`,
  headers: [{ name: 'Authorization', value: 'Bearer {secret.API_KEY}' }],
  secrets: [{ name: 'API_KEY', value: 'sk_live_0123456789' }],
  responseFields: ['order.status', 'items.name'],
});
const policy = { allowPrivate: false, allow: parseAllowList('127.0.0.1'), httpsOnly: false };
const bare = await measure(async () => {
  const res = await request(`${origin}/orders/1042`, { headers: { authorization: 'Bearer sk_live_0123456789' } });
  JSON.parse(await res.body.text());
});
const guarded = await measure(() => runAction(def, { API_KEY: 'sk_live_0123456789' }, { order_id: '1042' }, { policy }));
target.closeAllConnections();
target.close();

const FEWER = Math.max(1, Math.round(CALLS / 10));
const mcp = await startFakeMcpServer('127.0.0.1');
const endpoint = { url: mcp.url, headers: {}, timeoutMs: 10_000, maxBytes: 256 * 1024 };
const rpc = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'store_hours', arguments: {} } });
const bareMcp = await measure(async () => {
  const res = await request(mcp.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: rpc,
  });
  JSON.parse(await res.body.text());
}, FEWER);
const sdkMcp = await measure(() => callServerTool(endpoint, policy, 'store_hours', {}), FEWER);
await mcp.close();

const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const pending = redisPendingActions(redis, `bench-tool-loop-${process.pid}`);
let n = 0;
const card = await measure(async () => {
  const call = await pending.open({
    chatbotId: 'c',
    sessionId: `s${n++}`,
    actionName: 'cancel_order',
    arguments: { order_id: '1042' },
    question: 'Cancel order (order id: 1042)?',
  });
  await pending.decide(call.id, 'c', call.sessionId, 'confirm');
}, FEWER);
await unlinkMatching(redis, `bench-tool-loop-${process.pid}*`);
redis.disconnect();

console.log(`tool loop, ${CALLS} answers per variant after ${WARMUP} warm-up; load ${load()}`);
console.log(`chat side   one call, no tools      p50 ${ms(plain.p50)} ms, CPU ${ms(plain.cpuPerCall)} ms an answer`);
console.log(`chat side   one tool call (2 calls) p50 ${ms(loop.p50)} ms, CPU ${ms(loop.cpuPerCall)} ms an answer`);
console.log(`            the loop's own work      +${ms(loop.p50 - plain.p50)} ms p50, +${ms(loop.cpuPerCall - plain.cpuPerCall)} ms CPU`);
console.log(`chatbot side bare undici GET         p50 ${ms(bare.p50)} ms, CPU ${ms(bare.cpuPerCall)} ms a call`);
console.log(`chatbot side runAction (guarded)     p50 ${ms(guarded.p50)} ms, CPU ${ms(guarded.cpuPerCall)} ms a call`);
console.log(
  `            the action's own work    +${ms(guarded.p50 - bare.p50)} ms p50, +${ms(guarded.cpuPerCall - bare.cpuPerCall)} ms CPU`,
);
console.log(`MCP         one bare tools/call POST  p50 ${ms(bareMcp.p50)} ms, CPU ${ms(bareMcp.cpuPerCall)} ms a call (${FEWER} calls)`);
console.log(`MCP         callServerTool (SDK)      p50 ${ms(sdkMcp.p50)} ms, CPU ${ms(sdkMcp.cpuPerCall)} ms a call`);
console.log(
  `            the MCP call's own work   +${ms(sdkMcp.p50 - bareMcp.p50)} ms p50, +${ms(sdkMcp.cpuPerCall - bareMcp.cpuPerCall)} ms CPU`,
);
console.log(`card        open + decide (Redis)     p50 ${ms(card.p50)} ms, CPU ${ms(card.cpuPerCall)} ms a card (${FEWER} cards)`);
