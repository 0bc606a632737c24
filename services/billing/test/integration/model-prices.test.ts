// The model catalogue is billing's price list: every model's row is written at start, a usage is
// billed exactly at the price of the model that answered (whatever its provider), keeps what the
// chat service reported of it, and a model billing has no price of is billed at the default's.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerCostUnits, loadCatalogue, parseCatalogue } from '@parley/common/models/catalogue.ts';
import { syncModelPrices } from '../../src/core/model-prices.ts';
import { openAccount } from '../../src/core/open-account.ts';
import { creditHolds } from '../../src/credit/reserve-credit.ts';
import { recordUsage, recordUsageBatch, parseUsage, type RecordUsageInput } from '../../src/usage/record-usage.ts';
import { startBilling, type Billing } from './harness.ts';

const catalogue = loadCatalogue({});
let billing: Billing;
const deps = () => ({ prisma: billing.parts.prisma, initialCredit: billing.config.INITIAL_CREDIT });
const db = () => billing.parts.prisma;

const usage = (requestId: string, ownerId: string, model: string, extra: Partial<RecordUsageInput> = {}): RecordUsageInput => ({
  requestId,
  ownerId,
  chatbotId: 'bot-1',
  chatbotName: 'Support bot',
  model,
  promptTokens: 1234,
  completionTokens: 567,
  occurredAt: new Date('2026-12-01T10:00:00Z'),
  ...extra,
});

/** The exact cost the catalogue gives, as billing's NUMERIC prints it. */
const priceOf = (modelId: string, prompt: number, completion: number) => answerCostUnits(catalogue.find(modelId)!, prompt, completion);
const unitsOf = (d: { toFixed(n: number): string }) => BigInt(d.toFixed(10).replace('.', ''));

beforeAll(async () => {
  billing = await startBilling({ workers: false });
});
afterAll(async () => {
  await billing?.stop();
});

describe('prices from the model catalogue', () => {
  it('writes every catalogue model at start, with its display name and prices, the default marked', async () => {
    const rows = await db().modelPrice.findMany({ orderBy: { modelId: 'asc' } });
    expect(
      rows.map((r) => [r.modelId, r.displayName, r.inputPricePerMillion.toFixed(2), r.outputPricePerMillion.toFixed(2), r.isDefault]),
    ).toEqual(
      [...catalogue.models]
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((m) => [
          m.id,
          m.displayName,
          Number(m.inputPricePerMillion).toFixed(2),
          Number(m.outputPricePerMillion).toFixed(2),
          m.id === 'gpt-4o-mini',
        ]),
    );
  });

  it.each(['gpt-4o-mini', 'claude-sonnet-4-5', 'gemini-2.5-pro'])(
    'bills a %s answer exactly at its price, keeping what chat reported',
    async (model) => {
      const owner = `owner-${model}`;
      await openAccount(deps(), owner);
      await db().account.update({ where: { ownerId: owner }, data: { creditBalance: '10' } });
      const provider = catalogue.find(model)!.provider;
      const { usageRecord } = await recordUsage(
        deps(),
        usage(`req-${model}`, owner, model, { provider, cachedPromptTokens: 200, reasoningTokens: 30, fallback: true }),
      );
      expect(unitsOf(usageRecord.totalCost)).toBe(priceOf(model, 1234, 567));
      expect(usageRecord).toMatchObject({ model, provider, cachedPromptTokens: 200, reasoningTokens: 30, ownKey: false, fallback: true });
      const account = await db().account.findUniqueOrThrow({ where: { ownerId: owner } });
      expect(10_0000000000n - unitsOf(account.creditBalance)).toBe(priceOf(model, 1234, 567));
    },
  );

  it("bills a model it has no price of at the default model's price, keeping the model's id", async () => {
    await openAccount(deps(), 'owner-unknown');
    const [outcome] = await recordUsageBatch(deps(), [parseUsage(usage('req-unknown', 'owner-unknown', 'gpt-9-ultra'))]);
    expect(outcome).toBe('defaulted');
    const record = await db().usageRecord.findUniqueOrThrow({ where: { requestId: 'req-unknown' } });
    expect(record.model).toBe('gpt-9-ultra');
    expect(unitsOf(record.totalCost)).toBe(priceOf('gpt-4o-mini', 1234, 567));
    // Recorded once: delivered again, nothing more.
    expect(await recordUsageBatch(deps(), [parseUsage(usage('req-unknown', 'owner-unknown', 'gpt-9-ultra'))])).toEqual(['duplicate']);
  });

  it('bills a model the catalogue no longer lists at its own row, kept from before', async () => {
    await db().modelPrice.create({
      data: { modelId: 'gpt-3.5-turbo', displayName: 'GPT-3.5 Turbo', inputPricePerMillion: '0.5', outputPricePerMillion: '1.5' },
    });
    await openAccount(deps(), 'owner-retired');
    const { usageRecord, defaulted } = await recordUsage(deps(), usage('req-retired', 'owner-retired', 'gpt-3.5-turbo'));
    expect(defaulted).toBe(false);
    expect(usageRecord.totalCost.toFixed()).toBe('0.0014675'); // 1234 × 0.5/1M + 567 × 1.5/1M
  });

  it('holds at the price of the model named, so an expensive model holds more', async () => {
    const holds = creditHolds({ ...deps(), pool: billing.parts.pool });
    await openAccount(deps(), 'owner-holds');
    await db().account.update({ where: { ownerId: 'owner-holds' }, data: { creditBalance: '10' } });
    const hold = (requestId: string, model: string) =>
      holds.reserve({ requestId, ownerId: 'owner-holds', model, maxPromptTokens: 1000, maxCompletionTokens: 100 });
    const cheap = await hold('hold-cheap', 'gpt-4o-mini');
    const dear = await hold('hold-dear', 'claude-sonnet-4-5');
    expect(unitsOf(cheap.amount)).toBe(priceOf('gpt-4o-mini', 1000, 100));
    expect(unitsOf(dear.amount)).toBe(priceOf('claude-sonnet-4-5', 1000, 100));
  });

  it('sends every hold of a connection through one statement it parsed once', async () => {
    // One connection, so what it prepared can be read back on it.
    const one = new pg.Pool({ ...billing.parts.pool.options, max: 1 });
    try {
      const holds = creditHolds({ ...deps(), pool: one });
      await openAccount(deps(), 'owner-named');
      await db().account.update({ where: { ownerId: 'owner-named' }, data: { creditBalance: '10' } });
      for (const n of [1, 2, 3])
        await holds.reserve({
          requestId: `hold-named-${n}`,
          ownerId: 'owner-named',
          model: 'gpt-4o-mini',
          maxPromptTokens: 1000,
          maxCompletionTokens: 100,
        });
      const { rows } = await one.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
      expect(rows.map((r) => r.name)).toEqual(['hold-credit']);
      expect(await db().creditReservation.count({ where: { ownerId: 'owner-named' } })).toBe(3);
    } finally {
      await one.end();
    }
  });

  it('follows a replaced catalogue at the next start: new prices, another default, retired rows kept', async () => {
    await syncModelPrices(
      db(),
      parseCatalogue(
        JSON.stringify({
          default: 'claude-haiku-4-5',
          models: [
            {
              id: 'claude-haiku-4-5',
              provider: 'anthropic',
              displayName: 'Haiku',
              contextWindow: 200000,
              maxOutputTokens: 64000,
              inputPricePerMillion: '0.8',
              outputPricePerMillion: '4',
              plans: ['free'],
            },
          ],
        }),
        'replaced',
      ),
    );
    const haiku = await db().modelPrice.findUniqueOrThrow({ where: { modelId: 'claude-haiku-4-5' } });
    expect([haiku.displayName, haiku.inputPricePerMillion.toFixed(), haiku.isDefault]).toEqual(['Haiku', '0.8', true]);
    expect((await db().modelPrice.findMany({ where: { isDefault: true } })).map((r) => r.modelId)).toEqual(['claude-haiku-4-5']);
    expect(await db().modelPrice.count({ where: { modelId: 'gpt-4o-mini' } })).toBe(1);
    // The shipped catalogue again, as the other tests of this file had it.
    await syncModelPrices(db(), catalogue);
    expect((await db().modelPrice.findMany({ where: { isDefault: true } })).map((r) => r.modelId)).toEqual(['gpt-4o-mini']);
  });
});
