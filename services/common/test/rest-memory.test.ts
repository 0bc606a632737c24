import { afterEach, describe, expect, it } from 'vitest';
import { collectAtRest, type ExposedGc } from '../src/rest-memory.ts';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const MB = 1024 * 1024;

/** Burns about `ms` of CPU on this thread. */
const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

describe('collectAtRest', () => {
  const stops: (() => void)[] = [];
  afterEach(() => stops.splice(0).forEach((stop) => stop()));

  it('does nothing without an exposed gc', () => {
    const stop = collectAtRest({});
    expect(typeof stop).toBe('function');
    stop();
  });

  it('collects once the process is quiet after its heap grew, and not again until it grows again', async () => {
    let heap = 50 * MB;
    const calls: unknown[] = [];
    const gc: ExposedGc = (options) => {
      calls.push(options);
      heap = 30 * MB;
    };
    stops.push(collectAtRest({ gc, checkEveryMs: 20, quietTicks: 2, growthBytes: 4 * MB, costShare: 1, heapBytes: () => heap }));
    await sleep(150);
    expect(calls).toEqual([{ type: 'major', execution: 'sync', flavor: 'last-resort' }]);
    // Quiet, but the heap has not grown since: nothing to give back.
    await sleep(100);
    expect(calls).toHaveLength(1);
    heap = 36 * MB;
    await sleep(150);
    expect(calls).toHaveLength(2);
  });

  it('waits while the process is busy', async () => {
    let calls = 0;
    stops.push(
      collectAtRest({ gc: () => calls++, checkEveryMs: 20, quietTicks: 2, quietCpuShare: 0.5, costShare: 1, heapBytes: () => 50 * MB }),
    );
    // Busy in every interval: 15 ms of CPU per 20 ms check, above the 10 ms a quiet check allows.
    for (const end = performance.now() + 200; performance.now() < end;) {
      busy(15);
      await sleep(1);
    }
    expect(calls).toBe(0);
    await sleep(150);
    expect(calls).toBe(1);
  });
});
