// The invariant helpers themselves: they must fail on a balance the ledger does not explain and on
// reserved credit without holds, or the tests that rely on them would prove nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAccount } from '../../src/core/open-account.ts';
import { startBilling, type Billing } from './harness.ts';
import { expectHoldsInvariant, expectLedgerInvariant } from './ledger.ts';

let billing: Billing;

beforeAll(async () => {
  billing = await startBilling({ workers: false });
});

afterAll(async () => {
  await billing?.stop();
});

describe('the money invariants', () => {
  it('pass on accounts whose balance is their ledger and whose reserved credit is their holds, and count them', async () => {
    const deps = { prisma: billing.parts.prisma, initialCredit: '0.01' };
    await openAccount(deps, 'fine-1');
    await openAccount(deps, 'fine-2');
    expect(await expectLedgerInvariant(billing.parts.prisma)).toBe(2);
    expect(await expectHoldsInvariant(billing.parts.prisma)).toBe(2);
  });

  it('fail on a balance changed without a ledger entry, naming the account', async () => {
    await billing.parts.prisma.account.update({ where: { ownerId: 'fine-1' }, data: { creditBalance: '0.0100000001' } });
    await expect(expectLedgerInvariant(billing.parts.prisma)).rejects.toThrow(/fine-1/);
    await billing.parts.prisma.account.update({ where: { ownerId: 'fine-1' }, data: { creditBalance: '0.01' } });
    await expectLedgerInvariant(billing.parts.prisma);
  });

  it('fail on reserved credit that no hold explains, naming the account', async () => {
    await billing.parts.prisma.account.update({ where: { ownerId: 'fine-2' }, data: { reservedCredit: '0.001' } });
    await expect(expectHoldsInvariant(billing.parts.prisma)).rejects.toThrow(/fine-2/);
    await billing.parts.prisma.creditReservation.create({
      data: { requestId: 'explains-it', ownerId: 'fine-2', amount: '0.001', expiresAt: new Date() },
    });
    await expectHoldsInvariant(billing.parts.prisma);
  });
});
