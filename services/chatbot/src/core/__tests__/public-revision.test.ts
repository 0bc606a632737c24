import { describe, expect, it, vi } from 'vitest';
import type { Redis } from '@parley/common/redis.ts';
import type { Logger } from '@parley/common/logger.ts';
import { redisPublicRevision } from '../public-revision.ts';

const logger = () => ({ error: vi.fn() }) as unknown as Logger & { error: ReturnType<typeof vi.fn> };

describe('redisPublicRevision', () => {
  it('sets a new random revision under the chatbot id, lower-cased, with an expiry', async () => {
    const set = vi.fn(async () => 'OK');
    const announce = redisPublicRevision({ set } as unknown as Redis, { prefix: 'p', logger: logger() });
    await announce(' 0A1B2C3D-0000-4000-8000-000000000000 ');
    await announce('0a1b2c3d-0000-4000-8000-000000000000');
    expect(set).toHaveBeenCalledTimes(2);
    const [first, second] = set.mock.calls as unknown as [string, string, string, number][];
    expect(first[0]).toBe('p:chatbot-revision:0a1b2c3d-0000-4000-8000-000000000000');
    expect(first[1]).not.toBe(second[1]);
    expect(first.slice(2)).toEqual(['PX', 30 * 24 * 3600_000]);
  });

  it('logs instead of failing the owner when Redis errs or does not answer within a second', async () => {
    const log = logger();
    const failing = redisPublicRevision({ set: async () => Promise.reject(new Error('READONLY')) } as unknown as Redis, {
      prefix: 'p',
      logger: log,
    });
    await expect(failing('id')).resolves.toBeUndefined();
    vi.useFakeTimers();
    try {
      const hanging = redisPublicRevision({ set: () => new Promise(() => {}) } as unknown as Redis, { prefix: 'p', logger: log });
      const done = hanging('id');
      await vi.advanceTimersByTimeAsync(1000);
      await expect(done).resolves.toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
    expect(log.error).toHaveBeenCalledTimes(2);
    expect(log.error.mock.calls[1][0]).toMatchObject({ err: 'Redis did not answer within 1000 ms' });
  });
});
