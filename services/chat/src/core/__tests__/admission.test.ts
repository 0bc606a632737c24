// Admission against real Redis: one round trip counts the rate limits and reads along the key each
// collaborator names for a chatbot this replica knows, and only those; a refusal passes through, any
// other failure is the visitor's "could not answer".
import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@parley/common/logger.ts';
import { createRedis, unlinkMatching, type Redis } from '@parley/common/redis.ts';
import { testInfra, uniqueName } from '@parley/common/testing/infra.ts';
import { tooMany } from '@parley/common/rpc-errors.ts';
import { admitMessage, redisAdmission, VISITOR_RATE_LIMITED, type Admission, type ReadAlong } from '../admission.ts';
import { ANSWER_FAILED } from '../visitor-errors.ts';

const logger = createLogger('admission-test', 'silent');
let redis: Redis;
let prefix: string;
let admission: Admission;

beforeAll(async () => {
  redis = createRedis((await testInfra()).redisUrl);
  prefix = uniqueName('test-admission');
  admission = redisAdmission(redis, { prefix, rateLimits: { perVisitor: 2, perChatbot: 100 } });
});
afterAll(async () => {
  await unlinkMatching(redis, `${prefix}:*`);
  await redis.quit();
});

const known = { id: 'b1', ownerId: 'o1', handoffOn: true };
const message = (uniqueId: string, rateLimited: string | null = '203.0.113.7') => ({
  uniqueId,
  sessionId: 's1',
  newConversation: false,
  rateLimited,
});
/** A collaborator reading `name` for a continued conversation only. */
const reader = (name: string): ReadAlong => ({
  readAlong: (chatbot, { sessionId, newConversation }) => (newConversation ? null : `${prefix}:${name}:${chatbot.id}:${sessionId}`),
});

describe('admitMessage', () => {
  it('reads what each collaborator names for a known chatbot in the one script, a missing key as null', async () => {
    await redis.set(`${prefix}:revision:b1:s1`, 'r7');
    const commands: string[][] = [];
    const counted: Admission = { admit: (visitor, alsoRead) => (commands.push([...alsoRead]), admission.admit(visitor, alsoRead)) };
    const seen = await admitMessage({ admission: counted, logger }, message('u-read'), known, [reader('revision'), reader('turns')]);
    expect(commands).toEqual([[`${prefix}:revision:b1:s1`, `${prefix}:turns:b1:s1`]]);
    expect(seen?.chatbot).toBe(known);
    expect(seen?.valueAt(`${prefix}:revision:b1:s1`)).toBe('r7');
    expect(seen?.valueAt(`${prefix}:turns:b1:s1`)).toBeNull();
    // A key nobody named was not read.
    expect(seen?.valueAt(`${prefix}:mirror:b1:s1`)).toBeUndefined();
  });

  it('reads nothing a collaborator does not need for this message, and nothing at all for a chatbot it does not know', async () => {
    const commands: string[][] = [];
    const counted: Admission = { admit: (visitor, alsoRead) => (commands.push([...alsoRead]), admission.admit(visitor, alsoRead)) };
    const fresh = { ...message('u-none'), newConversation: true };
    const seen = await admitMessage({ admission: counted, logger }, fresh, known, [reader('revision')]);
    expect(seen?.valueAt(`${prefix}:revision:b1:s1`)).toBeUndefined();
    expect(await admitMessage({ admission: counted, logger }, message('u-none'), undefined, [reader('revision')])).toBeNull();
    expect(commands).toEqual([[], []]);
  });

  it('counts the visitor it is given: past the limit the visitor is refused, another visitor is not', async () => {
    const deps = { admission, logger };
    await admitMessage(deps, message('u-count', 'key:k1'), undefined, []);
    await admitMessage(deps, message('u-count', 'key:k1'), undefined, []);
    await expect(admitMessage(deps, message('u-count', 'key:k1'), undefined, [])).rejects.toMatchObject({
      code: Code.ResourceExhausted,
      rawMessage: VISITOR_RATE_LIMITED,
    });
    await expect(admitMessage(deps, message('u-count', 'key:k2'), undefined, [])).resolves.toBeNull();
  });

  it("passes a refusal through, and answers any other failure with the visitor's could-not-answer", async () => {
    const refusing: Admission = { admit: async () => Promise.reject(tooMany('slow down')) };
    await expect(admitMessage({ admission: refusing, logger }, message('u-fail'), known, [])).rejects.toMatchObject({
      code: Code.ResourceExhausted,
    });
    const broken: Admission = { admit: async () => Promise.reject(new Error('connection lost')) };
    const err = await admitMessage({ admission: broken, logger }, message('u-fail'), known, []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect(err).toMatchObject({ rawMessage: ANSWER_FAILED });
  });
});
