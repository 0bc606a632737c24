import { describe, expect, it } from 'vitest';
import { costAxis, costAxisLabel } from '../cost-axis';

function labels(max: number): string[] {
  const { ticks, decimals } = costAxis(max);
  return ticks.map((tick) => costAxisLabel(tick, decimals));
}

describe('costAxis', () => {
  it('labels small amounts with enough decimals that no two ticks read the same', () => {
    expect(labels(0.0000155)).toEqual(['$0.000000', '$0.000005', '$0.000010', '$0.000015', '$0.000020']);
    expect(labels(0.00004)).toEqual(['$0.00000', '$0.00001', '$0.00002', '$0.00003', '$0.00004']);
    expect(labels(0.0004012)).toEqual(['$0.0000', '$0.0002', '$0.0004', '$0.0006']);
  });

  it('never repeats a label, from fractions of a cent to dollars', () => {
    for (const max of [0.0000004, 0.0000017, 0.0000155, 0.000021, 0.0000333, 0.00004, 0.000099, 0.00031, 0.0012, 0.047, 0.5, 3.7, 1234]) {
      const shown = labels(max);
      expect(new Set(shown).size, `${max}: ${shown.join(' ')}`).toBe(shown.length);
    }
  });

  it('starts at $0 and reaches the highest day, in even round steps', () => {
    for (const max of [0.0000155, 0.00031, 0.047, 3.7]) {
      const { ticks } = costAxis(max);
      expect(ticks[0]).toBe(0);
      expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(max);
      expect(ticks[ticks.length - 2]).toBeLessThan(max);
      expect(ticks.length).toBeGreaterThanOrEqual(3);
      expect(ticks.length).toBeLessThanOrEqual(9);
    }
    expect(labels(3.7)).toEqual(['$0.00', '$1.00', '$2.00', '$3.00', '$4.00']);
  });

  it('shows $0.00 to $0.01 when nothing was spent', () => {
    expect(labels(0)).toEqual(['$0.00', '$0.01']);
  });
});
