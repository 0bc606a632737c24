import { isAbsolute, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@parley/common/config.ts';
import { readChatbotConfig } from './config.ts';

describe('readChatbotConfig', () => {
  it('has defaults that run against local services', () => {
    const config = readChatbotConfig({});
    expect(config).toMatchObject({
      PORT: 4002,
      CHATBOT_DB_SCHEMA: 'chatbot',
      QUEUE_PREFIX: 'parley',
      BILLING_URL: 'http://127.0.0.1:4004',
      MAX_PICTURE_BYTES: 2097152,
      MAX_ENTRY_CHARS: 100000,
      MAX_KNOWLEDGE_CHARS_PER_BOT: 5000000,
      RPC_TIMEOUT_MS: 5000,
    });
    expect(isAbsolute(config.MEDIA_DIR)).toBe(true);
    expect(config.MEDIA_DIR.endsWith(join('.data', 'media'))).toBe(true);
  });

  it('keeps an absolute MEDIA_DIR as given', () => {
    expect(readChatbotConfig({ MEDIA_DIR: '/srv/media' }).MEDIA_DIR).toBe('/srv/media');
  });

  it.each([
    ['MAX_PICTURE_BYTES', '0'],
    ['MAX_ENTRY_CHARS', 'lots'],
    ['MAX_KNOWLEDGE_CHARS_PER_BOT', '-1'],
    ['BILLING_URL', 'ftp://billing'],
    ['CHATBOT_DB_SCHEMA', 'Chatbot-1'],
    ['PORT', '70000'],
  ])('rejects a bad %s naming the variable', (name, value) => {
    expect(() => readChatbotConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => readChatbotConfig({ [name]: value })).toThrow(new RegExp(name));
  });
});
