// A turn's refusals of issue 14 through the real turn (send-message.ts), with real Redis for the
// daily limits and the proof of work, the real credit gate and recorder, and billing faked as the
// other tests here fake it (a hold table in memory, the prices ReserveCredit names). The chatbot is
// built here as the chatbot service sends it (PublicChatbot with embedding and limits).
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { solveChallenge } from 'altcha-lib/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import {
  EmbeddingSchema,
  PublicChatbotSchema,
  VisitorLimitsSchema,
  type PublicChatbot,
} from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { createLogger } from '@parley/common/logger.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { createRedis, unlinkMatching, type Redis } from '@parley/common/redis.ts';
import { testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { visitorHash } from '../../usage/publishers.ts';
import type { Usage } from '../../usage/publishers.ts';
import type { ChatbotContext, Passage, QaAnswer } from '../chatbot-context.ts';
import { creditGate } from '../credit-hold.ts';
import { DAILY_LIMIT_REACHED, redisDailyLimits, toPico, utcDay, PICO_PER_DOLLAR } from '../daily-limits.ts';
import type { LanguageModel } from '../language-model.ts';
import { altchaProofOfWork, PROOF_OF_WORK_FAILED, type ProofOfWork } from '../proof-of-work.ts';
import { recorder } from '../recorder.ts';
import { sendMessage, type PublicChatDeps } from '../send-message.ts';
import { sessionIds } from '../session-id.ts';
import { ANSWER_FAILED } from '../visitor-errors.ts';
import { SITE_NOT_ALLOWED } from '../visitor-site.ts';

const SECRET = 'a-test-secret-of-some-length';
const HMAC_KEY = 'a-test-altcha-key-of-some-length';
const logger = createLogger('visitor-limits-test', 'silent');
const knowledge: Passage[] = [{ text: 'We open at nine.', entryId: 'e-hours', title: 'Hours', url: '' }];
const qaPair: QaAnswer = { entryId: 'e-qa', question: 'Do you ship abroad?', answer: 'Yes.' };

/** What the fake model reports for every answer, and so what each answer costs at gpt-4o-mini's prices. */
const USAGE = { promptTokens: 200, completionTokens: 50 };
const ANSWER_COST = toPico('0.00006'); // 200 × 0.15 / 10^6 + 50 × 0.60 / 10^6
/** What the fake billing holds for every answer: more than its cost, as a real hold always is. */
const HOLD = '0.0001';

const dollars = (pico: bigint) => `${pico / PICO_PER_DOLLAR}.${(pico % PICO_PER_DOLLAR).toString().padStart(12, '0')}`;

let redis: Redis;
let prefix: string;
let keys: ReturnType<typeof redisKeys>;
let proofOfWork: ProofOfWork;
beforeAll(async () => {
  redis = createRedis((await testInfra()).redisUrl);
  prefix = uniqueName('test-visitor-limits');
  keys = redisKeys(prefix);
  proofOfWork = altchaProofOfWork(redis, { prefix, hmacKey: HMAC_KEY });
});
afterAll(async () => {
  await unlinkMatching(redis, `${prefix}:*`);
  await redis.quit();
});

let seq = 0;
function chatbotWith(opts: { limits?: MessageInitShape<typeof VisitorLimitsSchema>; allowedDomains?: string[]; standalonePage?: boolean }) {
  const id = `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`;
  return create(PublicChatbotSchema, {
    id,
    ownerId: `owner-${seq}`,
    name: 'Shop',
    language: 'english',
    embedding: create(EmbeddingSchema, { allowedDomains: opts.allowedDomains ?? [], standalonePage: opts.standalonePage ?? true }),
    limits: opts.limits ? create(VisitorLimitsSchema, opts.limits) : undefined,
  });
}

interface World {
  deps: PublicChatDeps;
  /** Open holds in the fake billing, by request id. */
  holds: Map<string, string>;
  reserveCalls: number;
  released: string[];
  modelCalls: number;
  usage: Usage[];
  /** The values each stored exchange was given (the recorder's one statement). */
  exchanges: unknown[][];
}

function world(chatbot: PublicChatbot, opts: { qaMatch?: QaAnswer | null; failModel?: boolean } = {}): World {
  const w: World = { deps: undefined as never, holds: new Map(), reserveCalls: 0, released: [], modelCalls: 0, usage: [], exchanges: [] };
  const billing = {
    reserveCredit: async (req: { requestId: string }) => {
      w.reserveCalls++;
      w.holds.set(req.requestId, HOLD);
      return { amount: HOLD, inputPricePerMillion: '0.15', outputPricePerMillion: '0.6' };
    },
    releaseCredit: async (req: { requestId: string }) => {
      w.released.push(req.requestId);
      return { released: w.holds.delete(req.requestId) };
    },
  } as unknown as Client<typeof BillingService>;
  const model: LanguageModel = {
    complete: async () => {
      w.modelCalls++;
      await new Promise((r) => setTimeout(r, 1 + Math.random() * 10));
      if (opts.failModel) throw new Error('provider down');
      return { text: 'Nine [1].', ...USAGE, usageReported: true };
    },
    stream: async () => {
      throw new Error('not streamed here');
    },
  };
  const dailyLimits = redisDailyLimits(redis, { prefix, visitorOf: (ip) => visitorHash(SECRET, ip) });
  const exchanges = {
    $queryRaw: async (_: TemplateStringsArray, ...values: unknown[]) => {
      w.exchanges.push(values);
      return [{ id: BigInt(w.exchanges.length), role: 'assistant' }];
    },
  } as unknown as PrismaClient;
  const history = { keptKey: () => 'kept', load: async () => [], remember: async () => {}, forget: async () => {} };
  w.deps = {
    logger,
    sessionIds: sessionIds(SECRET),
    admission: { admit: async () => [] },
    chatbotContext: {
      known: () => undefined,
      revisionKey: (id: string) => `rev:${id}`,
      load: async () => ({ chatbot, knowledge, qaMatch: opts.qaMatch ?? null }),
    } as unknown as ChatbotContext,
    proofOfWork,
    dailyLimits,
    history,
    credit: creditGate({ billing, logger, maxOutputTokens: 100 }),
    model,
    recorder: recorder({
      exchanges,
      history,
      dailySpend: dailyLimits,
      logger,
      publishUsage: async (u) => {
        w.usage.push(u);
      },
      publishInteraction: async () => {},
    }),
    limits: { maxMessageChars: 1000, maxOutputTokens: 100, promptKnowledgeChars: 5000, historyChars: 1000 },
  };
  return w;
}

const message = (uniqueId: string, extra: Partial<Parameters<typeof sendMessage>[1]> = {}) => ({
  uniqueId,
  sessionId: '',
  message: 'When do you open?',
  model: '',
  clientIp: '203.0.113.7',
  userAgent: 'test',
  ...extra,
});
const refusal = async (p: Promise<unknown>): Promise<ConnectError> => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ConnectError)) throw new Error(`expected a refusal, got ${String(err)}`);
  return err;
};
const today = () => utcDay(new Date());
const spent = async (chatbot: PublicChatbot) => BigInt((await redis.get(keys.chatLimitSpendDay(chatbot.id, today()))) ?? '0');

describe("a chatbot's daily spend cap", () => {
  it('answers at most the k answers the cap covers of N concurrent messages; the others get the 429 and nothing is billed for them', async () => {
    const k = 5n;
    const cap = ANSWER_COST * k + ANSWER_COST / 2n; // covers 5 answers, not 6
    const chatbot = chatbotWith({ limits: { visitorMessagesPerDay: 10_000, dailySpendLimit: dollars(cap) } });
    const w = world(chatbot);
    const N = 40;
    const results = await Promise.allSettled(
      Array.from({ length: N }, (_, i) => sendMessage(w.deps, message('u1', { clientIp: `198.51.100.${i}` }))),
    );
    // Then one visitor after another until the cap says no: the day never holds more than k answers.
    for (let i = 0; i < 10; i++)
      results.push(...(await Promise.allSettled([sendMessage(w.deps, message('u1', { clientIp: `192.0.2.${i}` }))])));
    const answered = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as ConnectError] : []));

    expect(answered).toBeGreaterThanOrEqual(1);
    expect(BigInt(answered)).toBeLessThanOrEqual(k);
    for (const err of refused) expect(err).toMatchObject({ code: Code.ResourceExhausted, rawMessage: DAILY_LIMIT_REACHED });
    // The day's spend is exactly the answers' cost, within the cap.
    expect(await spent(chatbot)).toBe(ANSWER_COST * BigInt(answered));
    expect(await spent(chatbot)).toBeLessThanOrEqual(cap);
    // Nothing billed for a refused message: only the answers' holds are open (their UsageRecorded settles them),
    // every hold taken for a refused message was released, and usage was published for the answers only.
    expect(w.modelCalls).toBe(answered);
    expect(w.usage).toHaveLength(answered);
    expect([...w.holds.keys()].sort()).toEqual(w.usage.map((u) => u.requestId).sort());
    expect(w.released).toHaveLength(w.reserveCalls - answered);
    expect(w.exchanges).toHaveLength(answered);
  });

  it('refuses a model answer once the day is spent without asking billing, but still answers from a Q&A pair, at no cost', async () => {
    const chatbot = chatbotWith({ limits: { dailySpendLimit: '0.01' } });
    await redis.set(keys.chatLimitSpendDay(chatbot.id, today()), toPico('0.01').toString());
    const modelTurn = world(chatbot);
    expect(await refusal(sendMessage(modelTurn.deps, message('u1')))).toMatchObject({
      code: Code.ResourceExhausted,
      rawMessage: DAILY_LIMIT_REACHED,
    });
    expect(modelTurn.reserveCalls).toBe(0);
    const qa = world(chatbot, { qaMatch: qaPair });
    await expect(sendMessage(qa.deps, message('u1', { message: 'Do you ship abroad?' }))).resolves.toMatchObject({ message: 'Yes.' });
    expect(qa.reserveCalls).toBe(0);
    expect(await spent(chatbot)).toBe(toPico('0.01'));
  });

  it('takes the reservation back when the model fails, with the credit hold', async () => {
    const chatbot = chatbotWith({ limits: { dailySpendLimit: '5.00' } });
    const w = world(chatbot, { failModel: true });
    expect(await refusal(sendMessage(w.deps, message('u1')))).toMatchObject({ code: Code.Unavailable, rawMessage: ANSWER_FAILED });
    expect(w.reserveCalls).toBe(1);
    expect(w.holds.size).toBe(0);
    expect(await spent(chatbot)).toBe(0n);
  });
});

describe("a visitor's messages per day", () => {
  it('answers up to the limit, Q&A answers included, then refuses that visitor only, holding nothing for the refused', async () => {
    const chatbot = chatbotWith({ limits: { visitorMessagesPerDay: 3 } });
    const w = world(chatbot);
    const qa = world(chatbot, { qaMatch: qaPair });
    await sendMessage(w.deps, message('u1'));
    await sendMessage(qa.deps, message('u1', { message: 'Do you ship abroad?' }));
    await sendMessage(w.deps, message('u1'));
    expect(await refusal(sendMessage(w.deps, message('u1')))).toMatchObject({
      code: Code.ResourceExhausted,
      rawMessage: DAILY_LIMIT_REACHED,
    });
    expect(await refusal(sendMessage(qa.deps, message('u1')))).toMatchObject({ code: Code.ResourceExhausted });
    expect(w.reserveCalls).toBe(2);
    await expect(sendMessage(w.deps, message('u1', { clientIp: '203.0.113.8' }))).resolves.toMatchObject({ message: 'Nine [1].' });
    // The visitor is the analytics visitor: the salted hash of the address.
    expect(await redis.get(keys.chatLimitVisitorDay(chatbot.id, today(), visitorHash(SECRET, '203.0.113.7')))).toBe('3');
  });

  it('costs a chatbot without limits no Redis key at all', async () => {
    const chatbot = chatbotWith({});
    const w = world(chatbot);
    await sendMessage(w.deps, message('u1'));
    expect(await redis.keys(`${prefix}:*${chatbot.id}*`)).toEqual([]);
  });
});

describe('where the chatbot may run', () => {
  it('refuses a message from a site not listed before anything is counted, held or answered', async () => {
    const chatbot = chatbotWith({ allowedDomains: ['shop.example.com'], limits: { visitorMessagesPerDay: 5, dailySpendLimit: '1.00' } });
    const w = world(chatbot);
    const err = await refusal(sendMessage(w.deps, message('u1', { siteHost: 'evil.example' })));
    expect(err).toMatchObject({ code: Code.PermissionDenied, rawMessage: SITE_NOT_ALLOWED });
    expect(await redis.keys(`${prefix}:*${chatbot.id}*`)).toEqual([]);
    expect(w.reserveCalls + w.modelCalls + w.exchanges.length).toBe(0);
    await expect(sendMessage(w.deps, message('u1', { siteHost: 'shop.example.com' }))).resolves.toMatchObject({ message: 'Nine [1].' });
  });

  it('refuses the standalone page when the owner switched it off, but not the embed page', async () => {
    const w = world(chatbotWith({ standalonePage: false }));
    expect(await refusal(sendMessage(w.deps, message('u1')))).toMatchObject({ code: Code.PermissionDenied });
    await expect(sendMessage(w.deps, message('u1', { embedded: true }))).resolves.toMatchObject({ message: 'Nine [1].' });
  });
});

describe('proof of work', () => {
  async function solved(): Promise<string> {
    const c = await proofOfWork.challenge();
    expect(c.maxNumber).toBe(50_000);
    const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxNumber).promise;
    const payload = { algorithm: c.algorithm, challenge: c.challenge, number: solution!.number, salt: c.salt, signature: c.signature };
    return Buffer.from(JSON.stringify(payload)).toString('base64');
  }

  it("asks a new conversation's first message for a solved challenge, once, and nothing of a conversation already begun", async () => {
    const chatbot = chatbotWith({ limits: { proofOfWork: true, visitorMessagesPerDay: 10 } });
    const w = world(chatbot);
    const refused = (p: Promise<unknown>) =>
      refusal(p).then((e) => expect(e).toMatchObject({ code: Code.PermissionDenied, rawMessage: PROOF_OF_WORK_FAILED }));
    await refused(sendMessage(w.deps, message('u1')));
    await refused(sendMessage(w.deps, message('u1', { proofOfWork: 'bm90IGEgcGF5bG9hZA==' })));
    const payload = await solved();
    const wrong = JSON.parse(Buffer.from(payload, 'base64').toString()) as { number: number };
    wrong.number += 1;
    await refused(sendMessage(w.deps, message('u1', { proofOfWork: Buffer.from(JSON.stringify(wrong)).toString('base64') })));
    // Refusals counted nothing.
    expect(await redis.get(keys.chatLimitVisitorDay(chatbot.id, today(), visitorHash(SECRET, '203.0.113.7')))).toBeNull();

    const { sessionId } = await sendMessage(w.deps, message('u1', { proofOfWork: payload }));
    await refused(sendMessage(w.deps, message('u1', { proofOfWork: payload })));
    await expect(sendMessage(w.deps, message('u1', { sessionId }))).resolves.toMatchObject({ sessionId });
  });

  it('refuses a challenge signed with another key, and an expired one', async () => {
    const w = world(chatbotWith({ limits: { proofOfWork: true } }));
    const other = altchaProofOfWork(redis, { prefix, hmacKey: 'another-key-of-some-length' });
    const c = await other.challenge();
    const n = (await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxNumber).promise)!.number;
    const forged = Buffer.from(JSON.stringify({ ...c, number: n })).toString('base64');
    expect(await refusal(sendMessage(w.deps, message('u1', { proofOfWork: forged })))).toMatchObject({ code: Code.PermissionDenied });
    const expired = { ...c, salt: c.salt.replace(/expires=\d+/, `expires=${Math.floor(Date.now() / 1000) - 1}`) };
    const e = Buffer.from(JSON.stringify({ ...expired, number: n })).toString('base64');
    expect(await refusal(sendMessage(w.deps, message('u1', { proofOfWork: e })))).toMatchObject({ code: Code.PermissionDenied });
  });
});

describe("the visitor's identity", () => {
  it('is stored with a new conversation', async () => {
    const w = world(chatbotWith({}));
    await sendMessage(w.deps, message('u1', { visitorId: ' cust-42 ', visitorName: 'Ada\u0000 Lovelace' }));
    expect(w.exchanges[0]).toEqual(expect.arrayContaining(['cust-42', 'Ada Lovelace']));
  });
});
