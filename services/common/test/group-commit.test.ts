// groupCommit: calls arriving while a flush runs go together in the next one; each call gets its own
// outcome, also when a whole flush fails and its items are flushed one by one.
import { describe, expect, it } from 'vitest';
import { groupCommit } from '../src/batcher.ts';

describe('groupCommit', () => {
  it('flushes a call alone at once, then gathers the calls made while a flush runs into the next, up to max', async () => {
    const flushes: number[][] = [];
    let release: () => void = () => {};
    const gate = () => new Promise<void>((resolve) => (release = resolve));
    let held = gate();
    const batches = groupCommit(
      async (items: number[]) => {
        flushes.push(items);
        await held;
        return items.map((n) => n * 10);
      },
      { max: 3 },
    );
    const first = batches.add(1);
    await new Promise((r) => setImmediate(r));
    expect(flushes).toEqual([[1]]);
    const rest = [2, 3, 4, 5].map((n) => batches.add(n));
    const opened = held;
    held = Promise.resolve();
    release();
    await opened;
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40, 50]);
    expect(flushes).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('flushes the items of a failed flush one by one, each settling by its own outcome', async () => {
    const flushes: string[][] = [];
    const batches = groupCommit(
      async (items: string[]) => {
        flushes.push(items);
        if (items.includes('bad')) throw new Error(`cannot write ${items.join(',')}`);
        return items.map((s) => s.toUpperCase());
      },
      { max: 10 },
    );
    const outcomes = await Promise.allSettled(['a', 'bad', 'c'].map((s) => batches.add(s)));
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual(['A', 'cannot write bad', 'C']);
    expect(flushes).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });
});
