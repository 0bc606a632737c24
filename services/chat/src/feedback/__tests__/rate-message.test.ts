// The rating's validation: what is INVALID_ARGUMENT, what is the one NOT_FOUND, and what reaches the rate limit.
import { Code, ConnectError } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { sessionIds } from '../../core/session-id.ts';
import { MESSAGE_NOT_FOUND, parseRating, RATING_INVALID, type RawRating } from '../rate-message.ts';

const ids = sessionIds('test-secret');
const sessionId = ids.issue();
const raw = (over: Partial<RawRating> = {}): RawRating => ({
  uniqueId: 'abc123',
  sessionId,
  messageId: '42',
  rating: 'up',
  clientIp: ' 203.0.113.7\n',
  ...over,
});

function failure(fn: () => unknown): { code: Code; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConnectError) return { code: err.code, message: err.rawMessage };
    throw err;
  }
  throw new Error('expected a failure');
}

describe('parseRating', () => {
  it('accepts up and down in any case, with the id as a bigint and the address cleaned', () => {
    expect(parseRating(raw({ rating: ' Down ' }), ids)).toEqual({
      uniqueId: 'abc123',
      sessionId,
      messageId: 42n,
      rating: 'down',
      clientIp: '203.0.113.7',
    });
    expect(parseRating(raw({ clientIp: '' }), ids).clientIp).toBeNull();
  });

  it('refuses any other rating first', () => {
    for (const rating of ['', 'meh', 'thumbs-up'])
      expect(failure(() => parseRating(raw({ rating, messageId: 'x' }), ids))).toEqual({
        code: Code.InvalidArgument,
        message: RATING_INVALID,
      });
  });

  it('answers an id that cannot be a message, or a session this service did not issue, with Message not found', () => {
    const notFound = { code: Code.NotFound, message: MESSAGE_NOT_FOUND };
    for (const messageId of ['', 'abc', '0', '-1', '1.5', '007', '9223372036854775808', '99999999999999999999'])
      expect(failure(() => parseRating(raw({ messageId }), ids))).toEqual(notFound);
    expect(parseRating(raw({ messageId: '9223372036854775807' }), ids).messageId).toBe(2n ** 63n - 1n);
    for (const session of ['', 'made-up', sessionIds('other-secret').issue()])
      expect(failure(() => parseRating(raw({ sessionId: session }), ids))).toEqual(notFound);
  });

  it('refuses a malformed chatbot id as the chat does', () => {
    expect(failure(() => parseRating(raw({ uniqueId: 'not a unique id' }), ids)).code).toBe(Code.NotFound);
  });
});
