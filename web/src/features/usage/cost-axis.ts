/** The cost chart's vertical axis: where its ticks stand and how they read. */
export interface CostAxis {
  /** From $0 up to the first tick at or above the highest day, evenly spaced. */
  ticks: number[];
  /** Decimals that tell every tick apart: at least 2, more for steps below a cent. */
  decimals: number;
}

const TARGET_INTERVALS = 4;

/**
 * Ticks a round step apart (1, 2 or 5 times a power of ten) with as many decimals as the step has,
 * so no two ticks share a label: recharts' own ticks at small amounts (0.000004 apart, say) rounded
 * to a fixed number of decimals read "$0.00002" twice.
 */
export function costAxis(max: number): CostAxis {
  if (!Number.isFinite(max) || max <= 0) return { ticks: [0, 0.01], decimals: 2 };
  let exponent = Math.floor(Math.log10(max / TARGET_INTERVALS));
  const fraction = max / TARGET_INTERVALS / 10 ** exponent;
  // A hair of slack, so that 5e-6 read back as 5.000000000000001 × 1e-6 still counts as 5.
  const within = (limit: number) => fraction <= limit * (1 + 1e-9);
  let multiple = within(1) ? 1 : within(2) ? 2 : within(5) ? 5 : 10;
  if (multiple === 10) {
    multiple = 1;
    exponent += 1;
  }
  // i × multiple × 10^exponent, read from its decimal text: 3 × 1e-5 is 0.00003, not 0.000030000000000000004.
  const tick = (i: number) => Number(`${i * multiple}e${exponent}`);
  const ticks = [0];
  while (ticks[ticks.length - 1] < max) ticks.push(tick(ticks.length));
  return { ticks, decimals: Math.max(2, -exponent) };
}

/** One tick's label, e.g. "$0.00002". */
export function costAxisLabel(value: number, decimals: number): string {
  return `$${value.toFixed(decimals)}`;
}
