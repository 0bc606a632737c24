import { Code, ConnectError } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import {
  charCount,
  HISTORY_ROLE_INVALID,
  historyTooLong,
  MAX_HISTORY_TURNS,
  parseClientHistory,
  parseMessage,
  parseMessageInput,
  parseModel,
  parseSessionId,
} from '../message-input.ts';
import { sessionIds } from '../session-id.ts';

const bounds = { maxMessageChars: 4000 };

const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConnectError) return { code: err.code, message: err.rawMessage };
    throw err;
  }
  throw new Error('expected a failure');
};

describe('parseMessage', () => {
  it('trims the message', () => {
    expect(parseMessage('  hello \n', bounds)).toBe('hello');
  });

  it('refuses an empty or whitespace message', () => {
    for (const raw of ['', '   ', '\n\t'])
      expect(failure(() => parseMessage(raw, bounds))).toEqual({ code: Code.InvalidArgument, message: 'Message is required' });
  });

  it('refuses a message over the limit, counted in characters, with the limit in the message', () => {
    expect(failure(() => parseMessage('a'.repeat(4001), bounds))).toEqual({
      code: Code.InvalidArgument,
      message: 'Message is too long (maximum 4,000 characters)',
    });
    expect(parseMessage('a'.repeat(4000), bounds)).toHaveLength(4000);
    expect(parseMessage('😀'.repeat(4000), bounds)).toHaveLength(8000);
    expect(failure(() => parseMessage('xx', { maxMessageChars: 1 })).message).toBe('Message is too long (maximum 1 characters)');
  });

  it('counts code points', () => {
    expect(charCount('a😀中')).toBe(3);
  });
});

describe('parseModel', () => {
  it('knows gpt-4o-mini, and takes it when none is given', () => {
    expect(parseModel('gpt-4o-mini')).toBe('gpt-4o-mini');
    expect(parseModel(' ')).toBe('gpt-4o-mini');
  });

  it('refuses any other model by name, shortened and printable', () => {
    expect(failure(() => parseModel('gpt-4'))).toEqual({ code: Code.InvalidArgument, message: 'Unknown model: gpt-4' });
    expect(failure(() => parseModel('m'.repeat(200))).message).toBe(`Unknown model: ${'m'.repeat(50)}…`);
    expect(failure(() => parseModel('bad\nmodel')).message).toBe('Unknown model: bad?model');
  });
});

describe('parseSessionId', () => {
  const ids = sessionIds('test-session-secret-1');

  it('issues unguessable ids in the session id alphabet, and keeps one it issued', () => {
    const issued = parseSessionId('', ids);
    expect(issued).toMatch(/^[A-Za-z0-9_-]{38}$/);
    expect(parseSessionId('', ids)).not.toBe(issued);
    expect(parseSessionId(issued, ids)).toBe(issued);
    expect(parseSessionId(` ${issued} `, ids)).toBe(issued);
  });

  it('replaces an id the visitor made up, changed, or got from another deployment', () => {
    const issued = ids.issue();
    const flipped = issued.slice(0, -1) + (issued.endsWith('A') ? 'B' : 'A');
    const otherRandom = (issued.startsWith('A') ? 'B' : 'A') + issued.slice(1);
    const elsewhere = sessionIds('another-deployment-secret').issue();
    for (const raw of [
      'abc_DEF-123',
      'lk2j3h4g5f6d7',
      'a'.repeat(38),
      'a'.repeat(64),
      'a b',
      'é',
      '../x',
      flipped,
      otherRandom,
      elsewhere,
      issued + 'x',
    ]) {
      const id = parseSessionId(raw, ids);
      expect(id).not.toBe(raw.trim());
      expect(ids.accept(id)).toBe(id);
    }
  });
});

describe('parseMessageInput', () => {
  it("bounds the gateway's IP and user agent, and takes empty ones as unknown", () => {
    const input = parseMessageInput(
      { uniqueId: ' bot ', sessionId: 's', message: 'hi', model: 'gpt-4o-mini', clientIp: '', userAgent: `Agent\u0000${'x'.repeat(1000)}` },
      bounds,
      sessionIds('test-session-secret-1'),
    );
    expect(input.uniqueId).toBe('bot');
    expect(input.clientIp).toBeNull();
    expect(input.userAgent).toHaveLength(512);
    expect(input.userAgent!.startsWith('Agentxxx')).toBe(true);
  });
});

describe("parseClientHistory (the developer API's OpenAI-compatible call)", () => {
  it('is null when none is given, so the stored conversation is the history', () => {
    expect(parseClientHistory(undefined, bounds)).toBeNull();
    expect(parseClientHistory([], bounds)).toBeNull();
  });

  it('keeps user and assistant turns in their order', () => {
    const turns = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
    ];
    expect(parseClientHistory(turns, bounds)).toEqual(turns);
  });

  it('refuses other roles, a turn over the message bound, and too many turns', () => {
    expect(failure(() => parseClientHistory([{ role: 'system', content: 'x' }], bounds))).toEqual({
      code: Code.InvalidArgument,
      message: HISTORY_ROLE_INVALID,
    });
    expect(failure(() => parseClientHistory([{ role: 'user', content: 'a'.repeat(4001) }], bounds)).code).toBe(Code.InvalidArgument);
    const many = Array.from({ length: MAX_HISTORY_TURNS + 1 }, () => ({ role: 'user', content: 'x' }));
    expect(failure(() => parseClientHistory(many, bounds)).message).toBe(historyTooLong);
  });
});
