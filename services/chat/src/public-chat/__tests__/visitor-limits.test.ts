// A turn's refusals through the real turn (send-message.ts), with real Redis for the visitor's day
// limit and the proof of work, the real credit gate and recorder, and billing faked as the other
// tests here fake it (a hold table in memory; its daily spend limit refuses when told to). The
// chatbot is built here as the chatbot service sends it (PublicChatbot with embedding and limits).
// Billing's own tests hold the spend limit itself (services/billing/test/integration/credit-holds.test.ts).
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { SPEND_LIMIT_REACHED_HEADER } from '@parley/common/rpc-errors.ts';
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
import type { ExchangePool } from '../conversation-store.ts';
import { visitorHash } from '../../usage/publishers.ts';
import type { Usage } from '../../usage/publishers.ts';
import type { ChatbotContext, Passage, QaAnswer } from '../chatbot-context.ts';
import { creditGate } from '../credit-hold.ts';
import { DAILY_LIMIT_REACHED, redisDailyMessageCounter, utcDay } from '../daily-limits.ts';
import type { LanguageModel } from '../../models/language-model.ts';
import { oneModel } from '../../models/chat-models.ts';
import { loadCatalogue } from '@parley/common/models/catalogue.ts';
import { altchaProofOfWork, PROOF_OF_WORK_FAILED, type ProofOfWork } from '../proof-of-work.ts';
import { recorder } from '../recorder.ts';
import { sendMessage, type PublicChatDeps } from '../send-message.ts';
import { developerApi } from '../channels/developer-api.ts';
import { sessionIds } from '../../core/session-id.ts';
import { ANSWER_FAILED } from '../../core/visitor-errors.ts';
import { SITE_NOT_ALLOWED } from '../../core/visitor-site.ts';

const SECRET = 'a-test-secret-of-some-length';
const HMAC_KEY = 'a-test-altcha-key-of-some-length';
const logger = createLogger('visitor-limits-test', 'silent');
const BOUNDS = { maxMessageChars: 1000, maxOutputTokens: 100, promptKnowledgeChars: 5000, historyChars: 1000 };
const knowledge: Passage[] = [{ text: 'We open at nine.', entryId: 'e-hours', title: 'Hours', url: '' }];
const qaPair: QaAnswer = { entryId: 'e-qa', question: 'Do you ship abroad?', answer: 'Yes.' };

/** What the fake model reports for every answer. */
const USAGE = { promptTokens: 200, completionTokens: 50 };
/** What the fake billing holds for every answer. */
const HOLD = '0.0001';

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
  /** What each ReserveCredit call named: its chatbot and daily spend limit. */
  reserved: { chatbotId: string; dailySpendLimit: string }[];
  /** Open holds in the fake billing, by request id. */
  holds: Map<string, string>;
  reserveCalls: number;
  released: string[];
  modelCalls: number;
  usage: Usage[];
  /** The values each stored exchange was given (the recorder's one statement). */
  exchanges: unknown[][];
}

function world(chatbot: PublicChatbot, opts: { qaMatch?: QaAnswer | null; failModel?: boolean; spendLimitReached?: boolean } = {}): World {
  const w: World = {
    deps: undefined as never,
    reserved: [],
    holds: new Map(),
    reserveCalls: 0,
    released: [],
    modelCalls: 0,
    usage: [],
    exchanges: [],
  };
  const billing = {
    reserveCredit: async (req: { requestId: string; chatbotId: string; dailySpendLimit: string }) => {
      w.reserveCalls++;
      w.reserved.push({ chatbotId: req.chatbotId, dailySpendLimit: req.dailySpendLimit });
      if (opts.spendLimitReached)
        throw new ConnectError("The chatbot's daily spend limit is reached.", Code.ResourceExhausted, {
          [SPEND_LIMIT_REACHED_HEADER]: 'true',
        });
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
      return {
        text: 'Nine [1].',
        ...USAGE,
        cachedPromptTokens: 0,
        reasoningTokens: 0,
        usageReported: true,
        toolCalls: [],
        model: 'gpt-4o-mini',
        provider: 'openai' as const,
        fallback: false,
      };
    },
    stream: async () => {
      throw new Error('not streamed here');
    },
  };
  const dailyMessages = redisDailyMessageCounter(redis, { prefix, visitorOf: (ip) => visitorHash(SECRET, ip) });
  const exchanges = {
    query: async ({ values }: { values: unknown[] }) => {
      w.exchanges.push(values);
      return { rows: [{ id: String(w.exchanges.length), role: 'assistant' }] };
    },
  } as unknown as ExchangePool;
  const history = { readAlong: () => 'kept', load: async () => [], remember: async () => {}, forget: async () => {} };
  w.deps = {
    logger,
    sessionIds: sessionIds(SECRET),
    admission: { admit: async () => [] },
    chatbotContext: {
      known: () => undefined,
      readAlong: (known: { id: string }) => `rev:${known.id}`,
      load: async () => ({ chatbot, knowledge, qaMatch: opts.qaMatch ?? null }),
    } as unknown as ChatbotContext,
    proofOfWork,
    dailyMessages,
    history,
    credit: creditGate({ billing, logger, maxOutputTokens: 100 }),
    models: oneModel(model, loadCatalogue({}).defaultModel, BOUNDS, logger),
    recorder: recorder({
      exchanges,
      history,
      logger,
      publishUsage: async (u) => {
        w.usage.push(u);
      },
      publishInteraction: async () => {},
    }),
    bounds: BOUNDS,
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
describe("a chatbot's daily spend limit", () => {
  it("is billing's to decide: every hold names the chatbot and its limit; a refusal is the day's 429, counts nothing and calls no model", async () => {
    const chatbot = chatbotWith({ limits: { visitorMessagesPerDay: 2, dailySpendLimit: '5.00' } });
    const answered = world(chatbot);
    await sendMessage(answered.deps, message('u1'));
    expect(answered.reserved).toEqual([{ chatbotId: chatbot.id, dailySpendLimit: '5.00' }]);

    const refused = world(chatbot, { spendLimitReached: true });
    for (let i = 0; i < 3; i++)
      expect(await refusal(sendMessage(refused.deps, message('u1')))).toMatchObject({
        code: Code.ResourceExhausted,
        rawMessage: DAILY_LIMIT_REACHED,
      });
    expect(refused.modelCalls).toBe(0);
    expect(refused.usage).toEqual([]);
    expect(refused.exchanges).toEqual([]);
    expect(refused.released).toEqual([]); // billing held nothing
    // None of the refused messages counted against the visitor's 2 of today.
    const visitorKey = keys.chatLimitVisitorDay(chatbot.id, today(), visitorHash(SECRET, '203.0.113.7'));
    expect(await redis.get(visitorKey)).toBe('1');
  });

  it('answers from a Q&A pair without a hold, so the spend limit never refuses it', async () => {
    const chatbot = chatbotWith({ limits: { dailySpendLimit: '0.00' } });
    const qa = world(chatbot, { qaMatch: qaPair, spendLimitReached: true });
    await expect(sendMessage(qa.deps, message('u1', { message: 'Do you ship abroad?' }))).resolves.toMatchObject({ message: 'Yes.' });
    expect(qa.reserveCalls).toBe(0);
  });

  it("releases the hold and gives the visitor's message back when the model fails", async () => {
    const chatbot = chatbotWith({ limits: { visitorMessagesPerDay: 5, dailySpendLimit: '5.00' } });
    const w = world(chatbot, { failModel: true });
    expect(await refusal(sendMessage(w.deps, message('u1')))).toMatchObject({ code: Code.Unavailable, rawMessage: ANSWER_FAILED });
    expect(w.reserveCalls).toBe(1);
    expect(w.holds.size).toBe(0);
    expect(await redis.get(keys.chatLimitVisitorDay(chatbot.id, today(), visitorHash(SECRET, '203.0.113.7')))).toBe('0');
  });

  it('passes no limit for a chatbot without one', async () => {
    const w = world(chatbotWith({}));
    await sendMessage(w.deps, message('u1'));
    expect(w.reserved[0].dailySpendLimit).toBe('');
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

describe('a message through the developer API (a key the gateway checked)', () => {
  it("is not held to a browser's site or proof of work, but still to the visitor's day limit", async () => {
    const chatbot = chatbotWith({
      allowedDomains: ['shop.example.com'],
      standalonePage: false,
      limits: { proofOfWork: true, visitorMessagesPerDay: 1 },
    });
    const w = world(chatbot);
    const viaKey = (extra = {}) => message('u1', { apiKeyId: 'key-1', ...extra });
    await expect(sendMessage(w.deps, viaKey(), developerApi)).resolves.toMatchObject({ message: 'Nine [1].' });
    expect(await refusal(sendMessage(w.deps, viaKey(), developerApi))).toMatchObject({ code: Code.ResourceExhausted });
    // Without the key, the same request is a browser's: refused where it came from.
    expect(await refusal(sendMessage(w.deps, message('u2')))).toMatchObject({ code: Code.PermissionDenied });
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
