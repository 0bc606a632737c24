// Credit holds over a real Connect client and the real database: ReserveCredit never lets concurrent
// answers hold more than the owner has, each hold is settled by its usage record (recordUsage) in
// the debit's own statement, released on failure, swept when expired, and held once per request id.
// The money invariants (ledger.ts) are checked after each test that changes balances concurrently.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Code, type Client } from '@connectrpc/connect';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { SPEND_LIMIT_REACHED_HEADER, USER_MESSAGE_HEADER } from '@parley/common/rpc-errors.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { rpcError } from '@parley/common/testing/rpc.ts';
import { Prisma } from '../../src/generated/prisma/client.ts';
import { openAccount } from '../../src/core/open-account.ts';
import { CREDIT_HOLD_TTL_MS } from '../../src/credit/reserve-credit.ts';
import { releaseCredit } from '../../src/credit/release-credit.ts';
import { sweepCreditHolds } from '../../src/credit/sweep-credit-holds.ts';
import { parseUsage, recordUsage, recordUsageBatch } from '../../src/usage/record-usage.ts';
import { startBilling, type Billing } from './harness.ts';
import { expectHoldsInvariant, expectLedgerInvariant } from './ledger.ts';

let billing: Billing;
let client: Client<typeof BillingService>;
const deps = () => ({ prisma: billing.parts.prisma, initialCredit: billing.config.INITIAL_CREDIT });
const db = () => billing.parts.prisma;

// gpt-4o-mini: 1,000 prompt tokens ($0.00015) and 1,000 completion tokens ($0.0006) = $0.00075.
const HOLD = { model: 'gpt-4o-mini', maxPromptTokens: 1000n, maxCompletionTokens: 1000n };
const HOLD_AMOUNT = '0.00075';

const reserve = (requestId: string, ownerId: string, hold: Partial<typeof HOLD> = {}) =>
  client.reserveCredit({ requestId, ownerId, ...HOLD, ...hold });

const account = (ownerId: string) => db().account.findUniqueOrThrow({ where: { ownerId } });

/** Brings an account's balance to `target` the way real credit moves: with a ledger entry. */
async function setBalance(ownerId: string, target: string) {
  await openAccount(deps(), ownerId);
  await db().$transaction(async (tx) => {
    const { creditBalance } = await tx.account.findUniqueOrThrow({ where: { ownerId } });
    const change = new Prisma.Decimal(target).minus(creditBalance);
    await tx.creditLedgerEntry.create({
      data: { ownerId, amount: change, reason: 'test_adjustment', reference: `test:${ownerId}:${target}` },
    });
    await tx.account.update({ where: { ownerId }, data: { creditBalance: target } });
  });
}

const answer = (requestId: string, ownerId: string, promptTokens: number, completionTokens: number) =>
  recordUsage(deps(), {
    requestId,
    ownerId,
    chatbotId: 'bot',
    chatbotName: 'Bot',
    model: 'gpt-4o-mini',
    promptTokens,
    completionTokens,
    occurredAt: new Date(),
  });

beforeAll(async () => {
  // The periodic sweep is off here (workers: false) so that the tests below control every sweep.
  billing = await startBilling({ workers: false });
  client = createServiceClient(BillingService, billing.url);
});

afterAll(async () => {
  await billing?.stop();
});

afterEach(async () => {
  if (billing) await expectHoldsInvariant(db());
});

describe('ReserveCredit', () => {
  it('holds the answer’s largest cost at the model’s price, for CREDIT_HOLD_TTL_MS', async () => {
    await openAccount(deps(), 'holder');
    const before = Date.now();
    expect(await reserve('hold-1', 'holder')).toMatchObject({ amount: HOLD_AMOUNT });

    const hold = await db().creditReservation.findUniqueOrThrow({ where: { requestId: 'hold-1' } });
    expect(hold).toMatchObject({ ownerId: 'holder' });
    expect(hold.amount.toFixed()).toBe(HOLD_AMOUNT);
    expect(CREDIT_HOLD_TTL_MS).toBe(10 * 60_000);
    expect(hold.expiresAt.getTime()).toBeGreaterThanOrEqual(before + CREDIT_HOLD_TTL_MS - 1000);
    expect(hold.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + CREDIT_HOLD_TTL_MS + 1000);

    // The balance is untouched (it changes only with the ledger); what is held shows beside it.
    const { account: shown } = await client.getAccount({ ownerId: 'holder' });
    expect(shown).toMatchObject({ creditBalance: '0.01', reservedCredit: HOLD_AMOUNT });
  });

  it('is exact for the smallest and largest holds', async () => {
    await setBalance('exact-holder', '1000');
    expect((await reserve('tiny', 'exact-holder', { maxPromptTokens: 1n, maxCompletionTokens: 0n })).amount).toBe('0.00000015');
    expect((await reserve('zero', 'exact-holder', { maxPromptTokens: 0n, maxCompletionTokens: 0n })).amount).toBe('0');
    expect((await reserve('huge', 'exact-holder', { maxPromptTokens: 1_000_000_000n, maxCompletionTokens: 1_000_000_000n })).amount).toBe(
      '750',
    );
    expect((await account('exact-holder')).reservedCredit.toFixed()).toBe('750.00000015');
  });

  it('holds once for a repeated request id, and answers with the same hold', async () => {
    await openAccount(deps(), 'repeater');
    expect((await reserve('same', 'repeater')).amount).toBe(HOLD_AMOUNT);
    // A retry, even one asking for another amount, gets the hold already made.
    expect((await reserve('same', 'repeater', { maxCompletionTokens: 9n })).amount).toBe(HOLD_AMOUNT);
    expect(await db().creditReservation.count({ where: { ownerId: 'repeater' } })).toBe(1);
    expect((await account('repeater')).reservedCredit.toFixed()).toBe(HOLD_AMOUNT);
  });

  it('holds once when 20 calls with the same request id race', async () => {
    await openAccount(deps(), 'racer');
    const results = await Promise.all(Array.from({ length: 20 }, () => reserve('same-race', 'racer')));
    expect(results.map((r) => r.amount)).toEqual(Array(20).fill(HOLD_AMOUNT));
    expect(await db().creditReservation.count({ where: { ownerId: 'racer' } })).toBe(1);
    expect((await account('racer')).reservedCredit.toFixed()).toBe(HOLD_AMOUNT);
  });

  it('holds once when same-id calls queue on the account row and each started before the first committed', async () => {
    await setBalance('queued', '1');
    // A transaction holds the account's row: the calls below all start (and take their snapshot)
    // before any of them can hold, then run one after another once it ends.
    let calls: Promise<{ amount: string }>[] = [];
    await db().$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM "Account" WHERE "userId" = 'queued' FOR UPDATE`;
      calls = Array.from({ length: 5 }, () => reserve('queued-id', 'queued'));
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    expect((await Promise.all(calls)).map((r) => r.amount)).toEqual(Array(5).fill(HOLD_AMOUNT));
    expect(await db().creditReservation.count({ where: { ownerId: 'queued' } })).toBe(1);
    expect((await account('queued')).reservedCredit.toFixed()).toBe(HOLD_AMOUNT);
  });

  it('refuses with RESOURCE_EXHAUSTED "Not enough credit." when the available credit does not cover the hold, and holds nothing', async () => {
    await setBalance('short', '0.0007');
    const err = await rpcError(reserve('too-much', 'short'));
    expect(err.code).toBe(Code.ResourceExhausted);
    expect(err.rawMessage).toBe('Not enough credit.');
    expect(err.metadata.get(USER_MESSAGE_HEADER)).toBe('true');
    expect(await db().creditReservation.count({ where: { ownerId: 'short' } })).toBe(0);
    expect((await account('short')).reservedCredit.toFixed()).toBe('0');
  });

  it('counts what is already held: a balance covers a hold only once', async () => {
    await setBalance('once', HOLD_AMOUNT);
    await reserve('once-1', 'once');
    expect((await rpcError(reserve('once-2', 'once'))).code).toBe(Code.ResourceExhausted);
  });

  it('refuses an owner whose balance is below zero, even for a hold of nothing', async () => {
    await setBalance('in-debt', '-0.001');
    expect((await rpcError(reserve('debt', 'in-debt', { maxPromptTokens: 0n, maxCompletionTokens: 0n }))).code).toBe(
      Code.ResourceExhausted,
    );
  });

  it('opens the account of an owner without one, then holds against its initial credit', async () => {
    expect((await reserve('first-ever', 'brand-new')).amount).toBe(HOLD_AMOUNT);
    expect(await account('brand-new')).toMatchObject({
      creditBalance: new Prisma.Decimal('0.01'),
      reservedCredit: new Prisma.Decimal(HOLD_AMOUNT),
    });
    await expectLedgerInvariant(db());
  });

  it('refuses a model without a price with FAILED_PRECONDITION, holding nothing and opening no account', async () => {
    const err = await rpcError(reserve('unpriced', 'nobody-yet', { model: 'gpt-9-ultra' }));
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(err.rawMessage).toMatch(/unknown model "gpt-9-ultra"/);
    expect(await db().account.count({ where: { ownerId: 'nobody-yet' } })).toBe(0);
    expect(await db().creditReservation.count({ where: { requestId: 'unpriced' } })).toBe(0);
  });

  it('holds nothing for a request whose usage was already recorded', async () => {
    await openAccount(deps(), 'late');
    await answer('late-req', 'late', 10, 10);
    const err = await rpcError(reserve('late-req', 'late'));
    expect(err.code).toBe(Code.FailedPrecondition);
    expect((await account('late')).reservedCredit.toFixed()).toBe('0');
  });

  it.each([
    ['an empty request id', { requestId: ' ' }, /request_id is required/],
    ['an empty owner id', { ownerId: '' }, /owner_id is required/],
    ['an empty model', { model: '' }, /model is required/],
    ['negative prompt tokens', { maxPromptTokens: -1n }, /max_prompt_tokens must be a whole number/],
    ['too many completion tokens', { maxCompletionTokens: 1_000_000_001n }, /max_completion_tokens must be a whole number/],
  ])('refuses %s with INVALID_ARGUMENT', async (_label, overrides, message) => {
    const err = await rpcError(client.reserveCredit({ requestId: 'bad', ownerId: 'bad-owner', ...HOLD, ...overrides }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toMatch(message);
  });
});

describe('concurrent answers never overdraw', () => {
  it('of 100 concurrent holds on a balance covering exactly 7, exactly 7 succeed; settling them leaves the balance ≥ 0 and nothing reserved', async () => {
    const owner = 'crowd';
    await setBalance(owner, '0.00525'); // 7 × 0.00075
    const results = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => reserve(`crowd-${i}`, owner)));
    const held = results.flatMap((r, i) => (r.status === 'fulfilled' ? [`crowd-${i}`] : []));
    expect(held).toHaveLength(7);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: Code.ResourceExhausted });
    expect((await account(owner)).reservedCredit.toFixed()).toBe('0.00525');
    await expectHoldsInvariant(db());

    // The answers report their real use (at most the hold: 900 + 1,000 tokens = $0.000735), at once.
    await Promise.all(held.map((requestId) => answer(requestId, owner, 900, 1000)));
    const after = await account(owner);
    expect(after.creditBalance.toFixed()).toBe('0.000105'); // 0.00525 − 7 × 0.000735
    expect(after.creditBalance.isNegative()).toBe(false);
    expect(after.reservedCredit.toFixed()).toBe('0');
    expect(await db().creditReservation.count({ where: { ownerId: owner } })).toBe(0);
    await expectLedgerInvariant(db());

    // What is left covers no further answer.
    expect((await rpcError(reserve('crowd-after', owner))).code).toBe(Code.ResourceExhausted);
  });

  it('holds, settlements and releases of one owner interleaved at random keep every figure exact', async () => {
    const owner = 'mixed';
    await setBalance(owner, '0.0075'); // 10 holds
    const work = Array.from({ length: 60 }, async (_, i) => {
      const requestId = `mixed-${i}`;
      try {
        await reserve(requestId, owner);
      } catch {
        return 'refused';
      }
      if (i % 3 === 0) {
        await client.releaseCredit({ requestId });
        return 'released';
      }
      await answer(requestId, owner, 1000, 1000);
      return 'answered';
    });
    const outcomes = await Promise.all(work);
    const answered = outcomes.filter((o) => o === 'answered').length;
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThanOrEqual(10);
    const after = await account(owner);
    expect(after.creditBalance.toFixed()).toBe(
      new Prisma.Decimal('0.0075').minus(new Prisma.Decimal(HOLD_AMOUNT).times(answered)).toFixed(),
    );
    expect(after.creditBalance.isNegative()).toBe(false);
    expect(after.reservedCredit.toFixed()).toBe('0');
    await expectLedgerInvariant(db());
  });
});

describe("a chatbot's daily spend limit", () => {
  const capped = (requestId: string, ownerId: string, chatbotId: string, dailySpendLimit: string) =>
    client.reserveCredit({ requestId, ownerId, ...HOLD, chatbotId, dailySpendLimit });
  const usageOf = (requestId: string, ownerId: string, chatbotId: string, promptTokens: number, completionTokens: number) =>
    parseUsage({
      requestId,
      ownerId,
      chatbotId,
      chatbotName: 'Bot',
      model: 'gpt-4o-mini',
      promptTokens,
      completionTokens,
      occurredAt: new Date(),
    });
  /** The chatbot's spend today and its open holds of today, read in one snapshot. */
  const spentAndHeld = async (chatbotId: string) => {
    const [row] = await db().$queryRaw<{ spent: Prisma.Decimal; held: Prisma.Decimal }[]>`
      SELECT coalesce((SELECT sum("promptCost" + "completionCost") FROM "UsageDaily"
                        WHERE "chatbotId" = ${chatbotId} AND "day" = (now() AT TIME ZONE 'UTC')::date), 0) AS spent,
             coalesce((SELECT sum("amount") FROM "CreditReservation"
                        WHERE "chatbotId" = ${chatbotId} AND "day" = (now() AT TIME ZONE 'UTC')::date), 0) AS held`;
    return row;
  };

  it('of 100 concurrent holds on a limit covering exactly 7, exactly 7 succeed; the others are refused as the limit, never as credit', async () => {
    const owner = 'cap-crowd';
    await setBalance(owner, '100');
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) => capped(`cap-crowd-${i}`, owner, 'bot-crowd', '0.00525')),
    );
    const held = results.filter((r) => r.status === 'fulfilled');
    expect(held).toHaveLength(7);
    for (const r of results)
      if (r.status === 'rejected') {
        expect(r.reason).toMatchObject({ code: Code.ResourceExhausted });
        expect(r.reason.metadata.get(SPEND_LIMIT_REACHED_HEADER)).toBe('true');
      }
    expect((await spentAndHeld('bot-crowd')).held.toFixed()).toBe('0.00525');
    // Another chatbot of the same owner has a day of its own.
    await expect(capped('cap-crowd-other', owner, 'bot-crowd-other', '0.00525')).resolves.toBeTruthy();
  });

  it('counts settled answers at their exact cost, releases give their room back, and spent + held never passes the limit while holds, settlements in batches and releases race', async () => {
    const owner = 'cap-race';
    const bot = 'bot-race';
    await setBalance(owner, '100');
    const limit = new Prisma.Decimal('0.0075'); // 10 holds when nothing is spent
    let watching = true;
    const peaks: Prisma.Decimal[] = [];
    const watcher = (async () => {
      while (watching) {
        const { spent, held } = await spentAndHeld(bot);
        peaks.push(spent.plus(held));
      }
    })();
    // Eight visitors, ten messages each, one after another: settlements free room as they go.
    const outcomes = (
      await Promise.all(
        Array.from({ length: 8 }, async (_, v) => {
          const mine: string[] = [];
          for (let m = 0; m < 10; m++) {
            const i = v * 10 + m;
            const requestId = `cap-race-${i}`;
            try {
              await capped(requestId, owner, bot, limit.toFixed());
            } catch (err) {
              expect(err).toMatchObject({ code: Code.ResourceExhausted });
              mine.push('refused');
              continue;
            }
            if (i % 4 === 0) {
              await client.releaseCredit({ requestId });
              mine.push('released');
              continue;
            }
            // The answer's real use: half its hold, so settling leaves room for part of another.
            const [outcome] = await recordUsageBatch(deps(), [usageOf(requestId, owner, bot, 500, 500)]);
            expect(outcome).toBe('recorded');
            mine.push('answered');
          }
          return mine;
        }),
      )
    ).flat();
    watching = false;
    await watcher;
    const answered = outcomes.filter((o) => o === 'answered').length;
    // More holds than the limit covers at once: settled answers (at half their hold) and releases gave room back.
    expect(outcomes.filter((o) => o !== 'refused').length).toBeGreaterThan(10);
    for (const peak of peaks) expect(peak.lte(limit)).toBe(true);
    const { spent, held } = await spentAndHeld(bot);
    expect(held.toFixed()).toBe('0');
    expect(spent.toFixed()).toBe(new Prisma.Decimal('0.000375').times(answered).toFixed());
    expect(spent.lte(limit)).toBe(true);
    await expectLedgerInvariant(db());
  });

  it('refuses a limit that is not an amount, and one without its chatbot, with INVALID_ARGUMENT, holding nothing', async () => {
    await setBalance('cap-bad', '1');
    for (const [chatbotId, limit] of [
      ['bot', '-1'],
      ['bot', '1e3'],
      ['bot', 'five'],
      ['', '5.00'],
    ]) {
      const err = await rpcError(capped(`cap-bad-${limit}-${chatbotId}`, 'cap-bad', chatbotId, limit));
      expect(err.code).toBe(Code.InvalidArgument);
    }
    expect(await db().creditReservation.count({ where: { ownerId: 'cap-bad' } })).toBe(0);
  });

  it("counts yesterday's open holds on yesterday, not today", async () => {
    const owner = 'cap-days';
    await setBalance(owner, '1');
    await capped('cap-days-1', owner, 'bot-days', '0.00075');
    await db().$executeRaw`UPDATE "CreditReservation" SET "day" = "day" - 1 WHERE "requestId" = 'cap-days-1'`;
    await expect(capped('cap-days-2', owner, 'bot-days', '0.00075')).resolves.toBeTruthy();
    expect((await rpcError(capped('cap-days-3', owner, 'bot-days', '0.00075'))).code).toBe(Code.ResourceExhausted);
  });
});

describe('settlement in batches', () => {
  it('records a batch once per request id, duplicates inside it and repeats included, with one debit per answer', async () => {
    const owner = 'batch-owner';
    await setBalance(owner, '1');
    for (let i = 0; i < 5; i++) await reserve(`batch-${i}`, owner);
    const usages = Array.from({ length: 5 }, (_, i) =>
      parseUsage({
        requestId: `batch-${i}`,
        ownerId: owner,
        chatbotId: 'bot',
        chatbotName: 'Bot',
        model: 'gpt-4o-mini',
        promptTokens: 1000,
        completionTokens: 1000,
        occurredAt: new Date(),
      }),
    );
    expect(await recordUsageBatch(deps(), [...usages, usages[0], usages[3]])).toEqual([
      'recorded',
      'recorded',
      'recorded',
      'recorded',
      'recorded',
      'duplicate',
      'duplicate',
    ]);
    expect(await recordUsageBatch(deps(), usages)).toEqual(Array(5).fill('duplicate'));
    const after = await account(owner);
    expect(after.creditBalance.toFixed()).toBe('0.99625'); // 1 − 5 × 0.00075
    expect(after.reservedCredit.toFixed()).toBe('0');
    await expectLedgerInvariant(db());
  });

  it("opens a missing account on the way, and bills an answer of a model without a price at the default's", async () => {
    const usage = (requestId: string, ownerId: string, model = 'gpt-4o-mini') =>
      parseUsage({
        requestId,
        ownerId,
        chatbotId: 'bot',
        chatbotName: 'Bot',
        model,
        promptTokens: 10,
        completionTokens: 10,
        occurredAt: new Date(),
      });
    await setBalance('batch-known', '1');
    const outcomes = await recordUsageBatch(deps(), [
      usage('b-1', 'batch-known'),
      usage('b-2', 'batch-new'),
      usage('b-3', 'batch-known', 'no-such-model'),
    ]);
    expect(outcomes).toEqual(['recorded', 'recorded', 'defaulted']);
    expect(await db().usageRecord.count({ where: { ownerId: { in: ['batch-known', 'batch-new'] } } })).toBe(3);
    await expectLedgerInvariant(db());
  });

  it('settles concurrent batches of the same owners without deadlock or double debit', async () => {
    const owners = ['dl-a', 'dl-b', 'dl-c'];
    for (const o of owners) await setBalance(o, '1');
    const usage = (i: number, ownerId: string) =>
      parseUsage({
        requestId: `dl-${i}-${ownerId}`,
        ownerId,
        chatbotId: 'bot',
        chatbotName: 'Bot',
        model: 'gpt-4o-mini',
        promptTokens: 1000,
        completionTokens: 1000,
        occurredAt: new Date(),
      });
    // Each batch names the owners in another order, and each answer is in two batches.
    const batches = Array.from({ length: 12 }, (_, b) =>
      Array.from({ length: 10 }, (_, i) => usage((b * 5 + i) % 60, owners[(b + i) % 3])),
    );
    await Promise.all(batches.map((batch) => recordUsageBatch(deps(), batch)));
    const records = await db().usageRecord.count({ where: { ownerId: { in: owners } } });
    const total = owners.length;
    expect(total).toBe(3);
    const balances = await Promise.all(owners.map(async (o) => (await account(o)).creditBalance));
    const spent = balances.reduce((sum, b) => sum.plus(new Prisma.Decimal(1).minus(b)), new Prisma.Decimal(0));
    expect(spent.toFixed()).toBe(new Prisma.Decimal(HOLD_AMOUNT).times(records).toFixed());
    await expectLedgerInvariant(db());
  });
});

describe('settlement by the usage record', () => {
  it('deletes the hold and lowers reservedCredit in the debit’s statement, once however often the usage is reported', async () => {
    await openAccount(deps(), 'settler');
    await reserve('settle-1', 'settler');
    await reserve('settle-2', 'settler');
    await answer('settle-1', 'settler', 100, 100);
    await answer('settle-1', 'settler', 100, 100);
    const after = await account('settler');
    expect(after.reservedCredit.toFixed()).toBe(HOLD_AMOUNT); // settle-2 is still held
    expect(after.creditBalance.toFixed()).toBe('0.009925'); // 0.01 − 0.000075
    expect(await db().creditReservation.findUnique({ where: { requestId: 'settle-1' } })).toBeNull();
  });

  it('leaves another owner’s hold under the same request id alone (and opens the reporting owner’s account)', async () => {
    await openAccount(deps(), 'other-holder');
    await reserve('shared-id', 'other-holder');
    await answer('shared-id', 'late-opener', 10, 10);
    expect((await account('other-holder')).reservedCredit.toFixed()).toBe(HOLD_AMOUNT);
    expect((await account('late-opener')).reservedCredit.toFixed()).toBe('0');
    await client.releaseCredit({ requestId: 'shared-id' });
  });

  it('records usage whose hold was already swept without lowering reservedCredit again', async () => {
    await openAccount(deps(), 'slow-usage');
    await reserve('slow', 'slow-usage');
    await reserve('other-open', 'slow-usage');
    await db().creditReservation.update({ where: { requestId: 'slow' }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await sweepCreditHolds({ prisma: db() }, 0)).toBe(1);
    await answer('slow', 'slow-usage', 10, 10);
    expect((await account('slow-usage')).reservedCredit.toFixed()).toBe(HOLD_AMOUNT); // other-open's
    await expectLedgerInvariant(db());
  });

  it('settles or releases a hold once when the usage and a release race for it', async () => {
    await setBalance('race-settle', '1');
    for (let i = 0; i < 20; i++) await reserve(`rs-${i}`, 'race-settle');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        Promise.all([answer(`rs-${i}`, 'race-settle', 10, 10), client.releaseCredit({ requestId: `rs-${i}` })]),
      ),
    );
    expect((await account('race-settle')).reservedCredit.toFixed()).toBe('0');
    await expectLedgerInvariant(db());
  });
});

describe('ReleaseCredit', () => {
  it('releases an open hold once; an unknown or settled one is not released', async () => {
    await openAccount(deps(), 'releaser');
    await reserve('rel-1', 'releaser');
    expect(await client.releaseCredit({ requestId: 'rel-1' })).toMatchObject({ released: true });
    expect((await account('releaser')).reservedCredit.toFixed()).toBe('0');
    expect(await client.releaseCredit({ requestId: 'rel-1' })).toMatchObject({ released: false });
    expect(await client.releaseCredit({ requestId: 'never-held' })).toMatchObject({ released: false });

    await reserve('rel-2', 'releaser');
    await answer('rel-2', 'releaser', 1, 1);
    expect(await client.releaseCredit({ requestId: 'rel-2' })).toMatchObject({ released: false });
    expect((await account('releaser')).creditBalance.toFixed()).toBe('0.00999925');
  });

  it('releases once when 10 releases of one hold race', async () => {
    await openAccount(deps(), 'double-release');
    await reserve('rel-race', 'double-release');
    await reserve('rel-keep', 'double-release');
    const results = await Promise.all(Array.from({ length: 10 }, () => releaseCredit({ prisma: db() }, 'rel-race')));
    expect(results.filter((r) => r.released)).toHaveLength(1);
    expect((await account('double-release')).reservedCredit.toFixed()).toBe(HOLD_AMOUNT);
  });

  it('refuses an empty request id with INVALID_ARGUMENT', async () => {
    const err = await rpcError(client.releaseCredit({ requestId: '' }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe('request_id is required.');
  });
});

describe('expiry', () => {
  it('sweeps only expired holds, lowering each owner’s reservedCredit by the sum of theirs', async () => {
    await setBalance('expiring-1', '1');
    await setBalance('expiring-2', '1');
    for (const [id, owner] of [
      ['exp-a', 'expiring-1'],
      ['exp-b', 'expiring-1'],
      ['exp-c', 'expiring-1'],
      ['exp-d', 'expiring-2'],
    ])
      await reserve(id, owner);
    await db().creditReservation.updateMany({
      where: { requestId: { in: ['exp-a', 'exp-b', 'exp-d'] } },
      data: { expiresAt: new Date(Date.now() - 1) },
    });

    expect(await sweepCreditHolds({ prisma: db() }, 0)).toBe(3);
    expect((await account('expiring-1')).reservedCredit.toFixed()).toBe(HOLD_AMOUNT); // exp-c is still open
    expect((await account('expiring-2')).reservedCredit.toFixed()).toBe('0');
    expect(await sweepCreditHolds({ prisma: db() }, 0)).toBe(0);
    expect(await client.releaseCredit({ requestId: 'exp-a' })).toMatchObject({ released: false });
  });

  it('leaves an expired hold to the chat service for the grace period, listing it for reconciliation oldest first', async () => {
    await setBalance('reconciled', '1');
    for (const id of ['rec-old', 'rec-new', 'rec-open']) await reserve(id, 'reconciled');
    await db().creditReservation.update({ where: { requestId: 'rec-old' }, data: { expiresAt: new Date(Date.now() - 120_000) } });
    await db().creditReservation.update({ where: { requestId: 'rec-new' }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const { requestIds } = await client.listExpiredHolds({ limit: 10 });
    expect(requestIds.filter((id) => id.startsWith('rec-'))).toEqual(['rec-old', 'rec-new']);
    // Within the grace: nothing released; past it (60 s here): the older one only.
    expect(await sweepCreditHolds({ prisma: db() })).toBe(0);
    expect(await sweepCreditHolds({ prisma: db() }, 60_000)).toBe(1);
    expect((await client.listExpiredHolds({ limit: 10 })).requestIds.filter((id) => id.startsWith('rec-'))).toEqual(['rec-new']);
    expect((await account('reconciled')).reservedCredit.toFixed()).toBe(new Prisma.Decimal(HOLD_AMOUNT).mul(2).toFixed());
    for (const requestId of ['rec-new', 'rec-open']) await client.releaseCredit({ requestId });
  });

  it('two sweeps at once release each expired hold once', async () => {
    await setBalance('expiring-many', '1');
    for (let i = 0; i < 30; i++) await reserve(`exp-many-${i}`, 'expiring-many');
    await db().creditReservation.updateMany({ where: { ownerId: 'expiring-many' }, data: { expiresAt: new Date(Date.now() - 1) } });
    const [a, b] = await Promise.all([sweepCreditHolds({ prisma: db() }, 0), sweepCreditHolds({ prisma: db() }, 0)]);
    expect(a + b).toBe(30);
    expect((await account('expiring-many')).reservedCredit.toFixed()).toBe('0');
  });

  it('the running service sweeps holds past their expiry and the grace on its own', async () => {
    const swept = await startBilling({ creditHoldSweepMs: 100, env: { HOLD_RECONCILE_GRACE_MS: '0' } });
    try {
      const sweptDeps = { prisma: swept.parts.prisma, initialCredit: '0.01' };
      await openAccount(sweptDeps, 'forgotten');
      const sweptClient = createServiceClient(BillingService, swept.url);
      await sweptClient.reserveCredit({ requestId: 'forgotten-hold', ownerId: 'forgotten', ...HOLD });
      await swept.parts.prisma.creditReservation.update({
        where: { requestId: 'forgotten-hold' },
        data: { expiresAt: new Date(Date.now() - 1) },
      });
      await expect.poll(() => swept.parts.prisma.creditReservation.count(), { timeout: 5_000 }).toBe(0);
      expect((await swept.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: 'forgotten' } })).reservedCredit.toFixed()).toBe('0');
    } finally {
      await swept.stop();
    }
  });
});
