// The handoff's pure rules: what an agent may write, the wait's bounds, the stream's resume point,
// and what the summary is made of.
import { Code, ConnectError } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { parseClientMessageId, parseContent } from '../agent-actions.ts';
import { parseAgent } from '../handoff-deps.ts';
import { timeoutJobId, waitSeconds } from '../request-handoff.ts';
import { offlineSummary, SUMMARY_CHARS, transcript } from '../summarize-conversation.ts';
import { parseAfterMessageId } from '../watch-conversation.ts';

const refused = (call: () => unknown) => {
  try {
    call();
  } catch (err) {
    return err instanceof ConnectError ? err.code : 'not a ConnectError';
  }
  return 'accepted';
};

describe("an agent's reply or note", () => {
  it('is trimmed, keeps line breaks and tabs, and refuses empty, too long or control characters', () => {
    expect(parseContent('  Hello\r\nthere\tfriend  ', 20)).toBe('Hello\nthere\tfriend');
    expect(parseContent('日本語'.repeat(2), 6)).toBe('日本語日本語');
    for (const bad of ['', '   ', 'a\u0000b', 'bell\u0007', 'esc\u001b[31m', 'c1\u0085', 'x'.repeat(21)]) {
      expect(
        refused(() => parseContent(bad, 20)),
        JSON.stringify(bad),
      ).toBe(Code.InvalidArgument);
    }
  });

  it('is named by a UUID, and by a member with an id and a name', () => {
    expect(parseClientMessageId(' 0F8FAD5B-D9CB-469F-A165-70867728950E ')).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(refused(() => parseClientMessageId('reply-1'))).toBe(Code.InvalidArgument);
    expect(parseAgent({ id: 'u1', name: ' Ada\n' })).toEqual({ id: 'u1', name: 'Ada' });
    for (const bad of [undefined, { id: '', name: 'Ada' }, { id: 'u1', name: '  ' }, { id: 'u1', name: 'n'.repeat(201) }]) {
      expect(
        refused(() => parseAgent(bad)),
        JSON.stringify(bad),
      ).toBe(Code.InvalidArgument);
    }
  });
});

describe("the owner's wait", () => {
  it('is the chatbot’s setting within 30–3600 seconds, 300 when unset', () => {
    expect(waitSeconds({ handoff: undefined })).toBe(300);
    const of = (timeoutSeconds: number) => waitSeconds({ handoff: { enabled: true, timeoutSeconds } as never });
    expect([of(0), of(5), of(45), of(99_999)]).toEqual([300, 30, 45, 3600]);
    expect(timeoutJobId('c1', new Date(1_700_000_000_123))).toBe('c1:1700000000123');
  });
});

describe('a visitor stream resuming', () => {
  it('starts after a message id, or from the start; anything else is refused', () => {
    expect(parseAfterMessageId('')).toBe(0n);
    expect(parseAfterMessageId(' 42 ')).toBe(42n);
    for (const bad of ['abc', '-1', '0', '1.5', '99999999999999999999']) {
      expect(
        refused(() => parseAfterMessageId(bad)),
        bad,
      ).toBe(Code.InvalidArgument);
    }
  });
});

describe('the summary', () => {
  it('reads the newest messages within its budget, each with who wrote it', () => {
    const messages = [
      { role: 'user' as const, content: 'Where is my order?', authorName: null },
      { role: 'assistant' as const, content: 'I do not know.', authorName: null },
      { role: 'agent' as const, content: 'It ships Monday.', authorName: 'Ada' },
      { role: 'system' as const, content: 'Nobody is free.', authorName: null },
    ];
    expect(transcript(messages)).toBe(
      'Visitor: Where is my order?\nBot: I do not know.\nAgent (Ada): It ships Monday.\nSystem: Nobody is free.',
    );
    const long = [{ role: 'user' as const, content: 'old '.repeat(SUMMARY_CHARS), authorName: null }, ...messages];
    expect(transcript(long).startsWith('Visitor: Where is my order?')).toBe(true);
  });

  it("offline, is the visitor's first and latest questions", () => {
    expect(offlineSummary('A?', 'B?')).toBe('First question: A?\nLatest question: B?');
    expect(offlineSummary('A?', 'A?')).toBe('Question: A?');
    expect(offlineSummary(null, null)).toBe('The visitor has not written anything yet.');
  });
});
