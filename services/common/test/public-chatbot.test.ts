import { Code, ConnectError } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { newUniqueId, parseUniqueId, PUBLIC_CHATBOT_NOT_FOUND } from '../src/public-chatbot.ts';

describe('newUniqueId', () => {
  it('is 22 URL-safe characters holding 128 random bits', () => {
    const id = newUniqueId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(encodeURIComponent(id)).toBe(id);
    expect(Buffer.from(id, 'base64url')).toHaveLength(16);
  });

  it('is different every time', () => {
    const ids = Array.from({ length: 10_000 }, newUniqueId);
    expect(new Set(ids).size).toBe(ids.length);
    // Not a counter or a timestamp: ids share no common prefix.
    expect(new Set(ids.map((id) => id.slice(0, 2))).size).toBeGreaterThan(1000);
  });
});

describe('parseUniqueId', () => {
  it('takes a new id, trimmed', () => {
    const id = newUniqueId();
    expect(parseUniqueId(` ${id}\n`)).toBe(id);
    expect(parseUniqueId('a'.repeat(64))).toBe('a'.repeat(64));
  });

  it('answers NOT_FOUND "Chatbot not found or inactive" for what cannot be an id', () => {
    for (const raw of ['', '   ', 'a'.repeat(65), 'bot/../x', 'bot id', 'bøt', '%2e']) {
      let thrown: unknown;
      try {
        parseUniqueId(raw);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ConnectError);
      expect([(thrown as ConnectError).code, (thrown as ConnectError).rawMessage]).toEqual([Code.NotFound, PUBLIC_CHATBOT_NOT_FOUND]);
    }
    expect(PUBLIC_CHATBOT_NOT_FOUND).toBe('Chatbot not found or inactive');
  });
});
