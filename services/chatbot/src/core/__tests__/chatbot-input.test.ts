import { Code, ConnectError } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { parseChatbotId, parseLanguage, parseName, parseOwnerId } from '../chatbot-input.ts';

/** The code and message of the error `parse` throws. */
function errorOf(parse: () => unknown): { code: Code; message: string } {
  try {
    parse();
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectError);
    return { code: (err as ConnectError).code, message: (err as ConnectError).rawMessage };
  }
  throw new Error('expected the input to be refused');
}

const UUID = '0b6f3a5e-8c1d-4e2f-9a7b-3c4d5e6f7a8b';

describe('parseOwnerId', () => {
  it('trims the id', () => {
    expect(parseOwnerId('  user-1 ')).toBe('user-1');
  });

  it('refuses a missing or overlong id', () => {
    expect(errorOf(() => parseOwnerId(' '))).toEqual({ code: Code.InvalidArgument, message: 'owner_id is required.' });
    expect(parseOwnerId('u'.repeat(100))).toHaveLength(100);
    expect(errorOf(() => parseOwnerId('u'.repeat(101)))).toEqual({
      code: Code.InvalidArgument,
      message: 'owner_id must be at most 100 characters.',
    });
  });
});

describe('parseChatbotId', () => {
  it('accepts a UUID in any case and with surrounding spaces, as lower case', () => {
    expect(parseChatbotId(` ${UUID.toUpperCase()} `)).toBe(UUID);
  });

  it('answers anything else as an unknown chatbot', () => {
    for (const raw of ['', 'abc', `${UUID}x`, UUID.replace(/-/g, ''), `'; DROP TABLE "Chatbot"; --`, `${UUID.slice(0, -1)}g`]) {
      expect(
        errorOf(() => parseChatbotId(raw)),
        raw,
      ).toEqual({ code: Code.NotFound, message: 'Chatbot not found' });
    }
  });
});

describe('parseName', () => {
  it('trims the name', () => {
    expect(parseName('  Support Bot \n')).toBe('Support Bot');
  });

  it('requires a name that is not blank', () => {
    for (const raw of ['', '   ', '\n\t'])
      expect(errorOf(() => parseName(raw))).toEqual({ code: Code.InvalidArgument, message: 'Name is required' });
  });

  it('allows 100 characters, counting an emoji as one', () => {
    expect(parseName('n'.repeat(100))).toHaveLength(100);
    expect(parseName('🤖'.repeat(100))).toBe('🤖'.repeat(100));
    expect(parseName(` ${'n'.repeat(100)} `)).toHaveLength(100);
    expect(errorOf(() => parseName('n'.repeat(101)))).toEqual({
      code: Code.InvalidArgument,
      message: 'Name must be at most 100 characters',
    });
    expect(errorOf(() => parseName('🤖'.repeat(101))).message).toBe('Name must be at most 100 characters');
  });
});

describe('parseLanguage', () => {
  it('accepts the three languages, in any case', () => {
    expect(parseLanguage('english')).toBe('english');
    expect(parseLanguage(' French ')).toBe('french');
    expect(parseLanguage('CHINESE')).toBe('chinese');
  });

  it('refuses anything else', () => {
    for (const raw of ['', 'spanish', 'en', 'zh', 'english,french']) {
      expect(
        errorOf(() => parseLanguage(raw)),
        raw,
      ).toEqual({ code: Code.InvalidArgument, message: 'Language must be english, french or chinese' });
    }
  });
});
