import { describe, expect, it } from 'vitest';
import { creditBarTone, creditPercentUsed } from '../credit-usage';

describe('creditPercentUsed', () => {
  it('is round(cost used / credit balance × 100)', () => {
    expect(creditPercentUsed('0.25', '1')).toBe(25);
    expect(creditPercentUsed('0.0012', '0.01')).toBe(12);
    expect(creditPercentUsed('0.00125', '0.01')).toBe(13);
    expect(creditPercentUsed('0.001249', '0.01')).toBe(12);
    expect(creditPercentUsed(0, '2')).toBe(0);
  });

  it('is capped at 100', () => {
    expect(creditPercentUsed('1', '1')).toBe(100);
    expect(creditPercentUsed('5', '1')).toBe(100);
  });

  it('falls back to a balance of 0.01 when the balance is absent', () => {
    expect(creditPercentUsed('0.005', null)).toBe(50);
    expect(creditPercentUsed('0.005', undefined)).toBe(50);
    expect(creditPercentUsed('0.005', '')).toBe(50);
  });

  it('is 0 when the balance is not positive', () => {
    expect(creditPercentUsed('0.5', '0')).toBe(0);
    expect(creditPercentUsed('0.5', '-1')).toBe(0);
    expect(creditPercentUsed('0.5', 'junk')).toBe(0);
  });
});

describe('creditBarTone (30 and 70 percent)', () => {
  it('is green up to 30, yellow up to 70, red above', () => {
    expect([0, 30, 31, 70, 71, 100].map(creditBarTone)).toEqual(['green', 'green', 'yellow', 'yellow', 'red', 'red']);
  });
});
