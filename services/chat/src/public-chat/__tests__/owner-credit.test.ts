import { describe, expect, it } from 'vitest';
import { isPositiveAmount } from '../owner-credit.ts';

describe('isPositiveAmount', () => {
  it('is true only for an exact decimal above zero', () => {
    for (const amount of ['0.01', '2.0000000000', '0.0000000001', '10', '+1']) expect(isPositiveAmount(amount)).toBe(true);
    for (const amount of ['0', '0.0000000000', '-0.01', '-0', '', 'abc', '1e3', 'NaN']) expect(isPositiveAmount(amount)).toBe(false);
  });
});
