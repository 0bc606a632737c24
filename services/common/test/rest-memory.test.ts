// The collection at rest, driven check by check with a fake CPU clock, wall clock and heap, so what
// it decides never depends on how busy the machine running the test is.
import { describe, expect, it } from 'vitest';
import { collectAtRest, restMemoryCheck, type ExposedGc } from '../src/rest-memory.ts';

const MB = 1024 * 1024;

/** A process whose CPU time, clock and heap the test moves; `gcCpuMs` is what each collection costs. */
function fakeProcess(opts: { heap: number; rss?: number; gcCpuMs?: number }) {
  const p = {
    cpu: 0,
    now: 0,
    heap: opts.heap,
    rss: opts.rss ?? 100 * MB,
    collections: [] as unknown[],
    afterGcHeap: 30 * MB,
    afterGcRss: 60 * MB,
  };
  const gc: ExposedGc = (options) => {
    p.collections.push(options);
    p.cpu += opts.gcCpuMs ?? 0;
    p.heap = p.afterGcHeap;
    p.rss = p.afterGcRss;
  };
  const check = restMemoryCheck({
    gc,
    checkEveryMs: 250,
    quietCpuShare: 0.02, // a check is quiet below 5 ms of CPU
    quietTicks: 2,
    growthBytes: 4 * MB,
    costShare: 0.05,
    heapBytes: () => p.heap,
    rssBytes: () => p.rss,
    cpuMs: () => p.cpu,
    nowMs: () => p.now,
  })!;
  /** One interval: `cpu` ms of CPU used in it, then the check. */
  const tick = (cpu = 0) => {
    p.cpu += cpu;
    p.now += 250;
    check();
  };
  return { p, tick };
}

describe('collecting at rest', () => {
  it('does nothing without an exposed gc', () => {
    expect(restMemoryCheck({})).toBeNull();
    const stop = collectAtRest({});
    expect(typeof stop).toBe('function');
    stop();
  });

  it('collects after two quiet checks once the heap grew, and not again until it grows again', () => {
    const { p, tick } = fakeProcess({ heap: 50 * MB });
    tick();
    expect(p.collections).toEqual([]);
    tick();
    expect(p.collections).toEqual([{ type: 'major', execution: 'sync', flavor: 'last-resort' }]);
    // Quiet, but the heap has not grown by 4 MB since: nothing to give back.
    for (let i = 0; i < 10; i++) tick();
    p.heap = 33 * MB;
    for (let i = 0; i < 10; i++) tick();
    expect(p.collections).toHaveLength(1);
    p.heap = 35 * MB;
    tick();
    tick();
    expect(p.collections).toHaveLength(2);
  });

  it('collects again once the resident set grew, even where the heap did not', () => {
    const { p, tick } = fakeProcess({ heap: 50 * MB });
    tick();
    tick();
    expect(p.collections).toHaveLength(1);
    // A burst that hardly grew the heap (3 MB) but left 5 MB more resident.
    p.heap = 33 * MB;
    p.rss = 63 * MB;
    for (let i = 0; i < 10; i++) tick();
    expect(p.collections).toHaveLength(1);
    p.rss = 65 * MB;
    tick();
    tick();
    expect(p.collections).toHaveLength(2);
    // Measured again from what the collection left: quiet and unchanged, nothing more.
    for (let i = 0; i < 20; i++) tick();
    expect(p.collections).toHaveLength(2);
  });

  it('waits while the process is busy: a busy check starts the count of quiet ones again', () => {
    const { p, tick } = fakeProcess({ heap: 50 * MB });
    for (let i = 0; i < 20; i++) tick(100);
    expect(p.collections).toHaveLength(0);
    tick();
    tick(6); // busy again
    tick();
    expect(p.collections).toHaveLength(0);
    tick();
    expect(p.collections).toHaveLength(1);
  });

  it('never spends more than its share of the time: after a collection of c ms it waits c ÷ 5 % before the next', () => {
    const { p, tick } = fakeProcess({ heap: 50 * MB, gcCpuMs: 100 });
    tick();
    tick();
    expect(p.collections).toHaveLength(1);
    const collectedAt = p.now;
    p.heap = 50 * MB;
    while (p.collections.length === 1 && p.now < collectedAt + 10_000) tick();
    // 100 ms of CPU at 5 %: not before 2 s after the first.
    expect(p.now - collectedAt).toBeGreaterThanOrEqual(2000);
    expect(p.now - collectedAt).toBeLessThanOrEqual(2000 + 250);
  });
});
