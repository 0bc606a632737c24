// Access changes as auth publishes them and every gateway reads them: a message from Redis is read
// defensively (anything but lists of ids is no change), and one published reaches a watcher.
import { afterAll, describe, expect, it } from 'vitest';
import { accessChange, accessChangePublisher, parseAccessChange, watchAccessChanges, type AccessChange } from '../src/access-changes.ts';
import { createLogger } from '../src/logger.ts';
import { createRedis } from '../src/redis.ts';
import { testInfra, uniqueName } from '../src/testing/infra.ts';

const logger = createLogger('access-changes-test', 'silent');
const redis = createRedis((await testInfra()).redisUrl);
afterAll(async () => {
  await redis.quit();
});

describe('parseAccessChange', () => {
  it('reads lists of ids, in lower case', () => {
    expect(parseAccessChange(JSON.stringify({ userIds: ['A-1'], workspaceIds: ['w'], apiKeyIds: ['k'] }))).toEqual({
      userIds: ['a-1'],
      workspaceIds: ['w'],
      apiKeyIds: ['k'],
    });
  });

  it.each(['', 'not json', 'null', '[]', '{"userIds":"u"}', '{"userIds":[1,{"a":1},"bad id with spaces"]}'])(
    'reads %j as no change',
    (raw) => {
      expect(parseAccessChange(raw)).toEqual(accessChange({}));
    },
  );

  it('reads at most a thousand ids of a list', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `u${i}`);
    expect(parseAccessChange(JSON.stringify({ userIds: ids })).userIds).toHaveLength(1000);
  });
});

describe('publish and watch', () => {
  it('delivers a published change to a watcher of the same prefix only', async () => {
    const prefix = uniqueName('access');
    const seen: AccessChange[] = [];
    const other: AccessChange[] = [];
    const watch = watchAccessChanges(redis, prefix, { onChange: (c) => seen.push(c), onGap: () => undefined }, logger);
    const elsewhere = watchAccessChanges(redis, `${prefix}x`, { onChange: (c) => other.push(c), onGap: () => undefined }, logger);
    await Promise.all([watch.ready, elsewhere.ready]);
    const announce = accessChangePublisher(redis, prefix, logger);
    await announce({});
    await announce({ userIds: ['U1'], apiKeyIds: ['k1'] });
    await expect.poll(() => seen).toEqual([{ userIds: ['u1'], workspaceIds: [], apiKeyIds: ['k1'] }]);
    expect(other).toEqual([]);
    await Promise.all([watch.close(), elsewhere.close()]);
  });
});
