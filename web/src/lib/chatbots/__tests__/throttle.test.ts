import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottle } from '../throttle';

describe('createThrottle (2000 ms)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function countingTask(durationMs = 0) {
    const task = vi.fn(() => (durationMs > 0 ? new Promise<void>((resolve) => setTimeout(resolve, durationMs)) : Promise.resolve()));
    return task;
  }

  it('runs the first call at once', async () => {
    const throttle = createThrottle(2000);
    const task = countingTask();
    const done = throttle.run(task);
    expect(task).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(0);
    await done;
  });

  it('skips calls while a run is still going', async () => {
    const throttle = createThrottle(2000);
    const task = countingTask(500);
    void throttle.run(task);
    void throttle.run(task);
    await vi.advanceTimersByTimeAsync(100);
    void throttle.run(task);
    await vi.advanceTimersByTimeAsync(5000);
    expect(task).toHaveBeenCalledTimes(1);
  });

  it('delays a call made inside the window until 2000 ms after the last start, and merges such calls', async () => {
    const throttle = createThrottle(2000);
    const task = countingTask();
    await throttle.run(task);
    await vi.advanceTimersByTimeAsync(500);
    const second = throttle.run(task);
    const third = throttle.run(task);
    await vi.advanceTimersByTimeAsync(1499);
    expect(task).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(task).toHaveBeenCalledTimes(2);
    await Promise.all([second, third]);
    expect(task).toHaveBeenCalledTimes(2);
  });

  it('runs at once when the window has passed', async () => {
    const throttle = createThrottle(2000);
    const task = countingTask();
    await throttle.run(task);
    await vi.advanceTimersByTimeAsync(2000);
    void throttle.run(task);
    expect(task).toHaveBeenCalledTimes(2);
  });

  it('skips calls made after the window while a slow run is still going', async () => {
    const throttle = createThrottle(2000);
    const task = countingTask(3000);
    void throttle.run(task);
    await vi.advanceTimersByTimeAsync(2500);
    void throttle.run(task);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(task).toHaveBeenCalledTimes(1);
  });

  it('cancel drops a delayed call and resolves its callers', async () => {
    const throttle = createThrottle(2000);
    const task = countingTask();
    await throttle.run(task);
    const delayed = throttle.run(task);
    throttle.cancel();
    await delayed;
    await vi.advanceTimersByTimeAsync(5000);
    expect(task).toHaveBeenCalledTimes(1);
  });

  it('never rejects: a failing task still ends its run and opens the next window', async () => {
    const throttle = createThrottle(2000);
    const failing = vi.fn(() => Promise.reject(new Error('network')));
    await expect(throttle.run(failing)).resolves.toBeUndefined();
    await vi.advanceTimersByTimeAsync(2000);
    await throttle.run(failing);
    expect(failing).toHaveBeenCalledTimes(2);
  });
});
