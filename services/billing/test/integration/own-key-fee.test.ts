// An answer on the workspace's own provider key (docs/adr/0043-own-provider-keys.md) costs the
// operator's OWN_KEY_PLATFORM_FEE, not its model's price: its hold is the fee, its usage record costs
// the fee (debited, settling the hold, in the chatbot's spend today) and says ownKey; at a fee of 0
// the hold holds nothing and is made whatever the balance. Real database, real Connect client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, type Client } from '@connectrpc/connect';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { SPEND_LIMIT_REACHED_HEADER } from '@parley/common/rpc-errors.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { rpcError } from '@parley/common/testing/rpc.ts';
import { openAccount } from '../../src/core/open-account.ts';
import { recordUsage } from '../../src/usage/record-usage.ts';
import { startBilling, type Billing } from './harness.ts';
import { expectHoldsInvariant, expectLedgerInvariant } from './ledger.ts';

// gpt-4o-mini: 1,000 prompt and 1,000 completion tokens would hold $0.00075.
const HOLD = { model: 'gpt-4o-mini', maxPromptTokens: 1000n, maxCompletionTokens: 1000n };

let charged: Billing;
let free: Billing;
let chargedClient: Client<typeof BillingService>;
let freeClient: Client<typeof BillingService>;
beforeAll(async () => {
  [charged, free] = await Promise.all([
    startBilling({ workers: false, env: { OWN_KEY_PLATFORM_FEE: '0.002' } }),
    startBilling({ workers: false }),
  ]);
  chargedClient = createServiceClient(BillingService, charged.url);
  freeClient = createServiceClient(BillingService, free.url);
});
afterAll(async () => {
  await Promise.all([charged?.stop(), free?.stop()]);
});

const depsOf = (b: Billing) => ({
  prisma: b.parts.prisma,
  initialCredit: b.config.INITIAL_CREDIT,
  ownKeyFee: b.config.OWN_KEY_PLATFORM_FEE,
});

async function setBalance(b: Billing, ownerId: string, balance: string) {
  await openAccount(depsOf(b), ownerId);
  const { creditBalance } = await b.parts.prisma.account.findUniqueOrThrow({ where: { ownerId } });
  await b.parts.prisma.$transaction([
    b.parts.prisma.creditLedgerEntry.create({
      data: { ownerId, amount: creditBalance.negated().plus(balance), reason: 'test_adjustment', reference: `test:${ownerId}` },
    }),
    b.parts.prisma.account.update({ where: { ownerId }, data: { creditBalance: balance } }),
  ]);
}

const usage = (requestId: string, ownerId: string, ownKey: boolean) => ({
  requestId,
  ownerId,
  chatbotId: 'bot',
  chatbotName: 'Bot',
  model: 'gpt-4o-mini',
  promptTokens: 1000,
  completionTokens: 1000,
  occurredAt: new Date(),
  provider: 'openai',
  ownKey,
});

describe('an own-key answer with a platform fee', () => {
  it('is held at the fee, refused without the credit for it, and billed the fee as its cost', async () => {
    await setBalance(charged, 'fee-owner', '0.01');
    expect(await chargedClient.reserveCredit({ requestId: 'own-1', ownerId: 'fee-owner', ...HOLD, ownKey: true })).toMatchObject({
      amount: '0.002',
    });
    const { usageRecord } = await recordUsage(depsOf(charged), usage('own-1', 'fee-owner', true));
    expect(usageRecord).toMatchObject({ ownKey: true });
    expect([usageRecord.promptCost.toFixed(), usageRecord.completionCost.toFixed(), usageRecord.totalCost.toFixed()]).toEqual([
      '0',
      '0.002',
      '0.002',
    ]);
    const account = await charged.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: 'fee-owner' } });
    expect([account.creditBalance.toFixed(), account.reservedCredit.toFixed()]).toEqual(['0.008', '0']);

    await setBalance(charged, 'poor-owner', '0.001');
    const err = await rpcError(chargedClient.reserveCredit({ requestId: 'own-2', ownerId: 'poor-owner', ...HOLD, ownKey: true }));
    expect(err.code).toBe(Code.ResourceExhausted);
    await expectLedgerInvariant(charged.parts.prisma);
    await expectHoldsInvariant(charged.parts.prisma);
  });

  it("counts the fee in the chatbot's spend today", async () => {
    await setBalance(charged, 'limited-owner', '1');
    const capped = (requestId: string) =>
      chargedClient.reserveCredit({
        requestId,
        ownerId: 'limited-owner',
        ...HOLD,
        ownKey: true,
        chatbotId: 'capped-bot',
        dailySpendLimit: '0.003',
      });
    await capped('cap-1');
    const err = await rpcError(capped('cap-2'));
    expect([err.code, err.metadata.get(SPEND_LIMIT_REACHED_HEADER)]).toEqual([Code.ResourceExhausted, 'true']);
  });

  it('is listed as own-key usage', async () => {
    const { records } = await chargedClient.listUsageRecords({ ownerId: 'fee-owner' });
    expect(records.map((r) => [r.requestId, r.ownKey, r.totalCost])).toEqual([['own-1', true, '0.002']]);
  });
});

describe('an own-key answer without a fee (the default)', () => {
  it('holds nothing, whatever the balance, and costs nothing; the operator key still needs credit', async () => {
    await setBalance(free, 'overdrawn', '-0.5');
    expect(await freeClient.reserveCredit({ requestId: 'free-1', ownerId: 'overdrawn', ...HOLD, ownKey: true })).toMatchObject({
      amount: '0',
    });
    expect((await rpcError(freeClient.reserveCredit({ requestId: 'paid-1', ownerId: 'overdrawn', ...HOLD }))).code).toBe(
      Code.ResourceExhausted,
    );
    const { usageRecord } = await recordUsage(depsOf(free), usage('free-1', 'overdrawn', true));
    expect([usageRecord.ownKey, usageRecord.totalCost.toFixed()]).toEqual([true, '0']);
    const account = await free.parts.prisma.account.findUniqueOrThrow({ where: { ownerId: 'overdrawn' } });
    expect([account.creditBalance.toFixed(), account.reservedCredit.toFixed()]).toEqual(['-0.5', '0']);
    expect(await free.parts.prisma.creditReservation.count({ where: { ownerId: 'overdrawn' } })).toBe(0);
    await expectLedgerInvariant(free.parts.prisma);
  });
});
