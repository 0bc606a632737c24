import { describe, expect, it } from 'vitest';
import { formatCount, formatDecimal, formatDollars, roundDecimal } from '../format';

describe('roundDecimal', () => {
  it('rounds half away from zero on the decimal digits, not on a binary float', () => {
    expect(roundDecimal('0.000125', 5)).toBe('0.00013');
    expect(roundDecimal('0.000155', 5)).toBe('0.00016');
    expect(Number('0.000155').toFixed(5)).toBe('0.00015'); // why floats are not used
    expect(roundDecimal('1.005', 2)).toBe('1.01');
    expect(roundDecimal('0.000124999', 5)).toBe('0.00012');
    expect(roundDecimal('-0.000125', 5)).toBe('-0.00013');
  });

  it('carries into the whole part', () => {
    expect(roundDecimal('0.999995', 5)).toBe('1.00000');
    expect(roundDecimal('9.99995', 4)).toBe('10.0000');
  });

  it('pads short values and keeps large ones exact', () => {
    expect(roundDecimal('2', 4)).toBe('2.0000');
    expect(roundDecimal('0.01', 4)).toBe('0.0100');
    expect(roundDecimal('.5', 2)).toBe('0.50');
    expect(roundDecimal('5.', 1)).toBe('5.0');
    expect(roundDecimal('123456789012345678.123456', 5)).toBe('123456789012345678.12346');
  });

  it('drops the sign of a value that rounds to zero', () => {
    expect(roundDecimal('-0.000001', 5)).toBe('0.00000');
  });

  it('rounds to whole numbers', () => {
    expect(roundDecimal('2.5', 0)).toBe('3');
    expect(roundDecimal('2.49', 0)).toBe('2');
  });

  it('is null for text that is not a plain decimal', () => {
    expect(roundDecimal('1e-7', 5)).toBeNull();
    expect(roundDecimal('abc', 5)).toBeNull();
    expect(roundDecimal('', 5)).toBeNull();
    expect(roundDecimal('.', 5)).toBeNull();
  });
});

describe('formatDecimal and formatDollars', () => {
  it('formats decimal strings exactly and numbers with toFixed', () => {
    expect(formatDollars('0.000360', 5)).toBe('$0.00036');
    expect(formatDollars('1.5', 4)).toBe('$1.5000');
    expect(formatDollars(0.25, 2)).toBe('$0.25');
  });

  it('falls back to a float for exponent notation, and to zero for junk', () => {
    expect(formatDecimal('1e-7', 7)).toBe('0.0000001');
    expect(formatDollars('not money', 4)).toBe('$0.0000');
    expect(formatDollars(Number.NaN, 2)).toBe('$0.00');
  });
});

describe('formatCount', () => {
  it('groups thousands and shows whole numbers', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(0)).toBe('0');
    expect(formatCount(Number.NaN)).toBe('0');
  });
});
