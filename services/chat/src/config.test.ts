import { describe, expect, it } from 'vitest';
import { ConfigError } from '@parley/common/config.ts';
import { DEV_ALTCHA_HMAC_KEY, DEV_PROVIDER_KEY_ENCRYPTION_KEY, DEV_SESSION_SECRET, readChatConfig } from './config.ts';

const OPERATOR_KEY = Buffer.alloc(32, 7).toString('base64');
const PREVIOUS_KEY = Buffer.alloc(32, 9).toString('base64');

describe('readChatConfig', () => {
  it('has defaults that run against local services, in offline mode', () => {
    expect(readChatConfig({})).toMatchObject({
      PORT: 4003,
      CHAT_DB_SCHEMA: 'chat',
      QUEUE_PREFIX: 'parley',
      CHATBOT_URL: 'http://127.0.0.1:4002',
      BILLING_URL: 'http://127.0.0.1:4004',
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: 'https://api.openai.com/v1',
      OPENAI_MODEL: undefined,
      OPENAI_TIMEOUT_MS: 30000,
      ANTHROPIC_API_KEY: undefined,
      ANTHROPIC_BASE_URL: 'https://api.anthropic.com',
      GEMINI_API_KEY: undefined,
      GEMINI_BASE_URL: 'https://generativelanguage.googleapis.com',
      MODEL_CATALOGUE_FILE: undefined,
      MAX_MESSAGE_CHARS: 4000,
      MAX_OUTPUT_TOKENS: 800,
      PROMPT_KNOWLEDGE_CHARS: 12000,
      HISTORY_CHARS: 4000,
      CHAT_RATE_PER_VISITOR: 20,
      CHAT_RATE_PER_BOT: 300,
      RPC_TIMEOUT_MS: 5000,
      EVENT_BATCH_WAIT_MS: 100,
      SESSION_SECRET: 'parley-dev-session-secret',
      WORKERS: 'on',
    });
    expect(readChatConfig({ WORKERS: 'off' }).WORKERS).toBe('off');
    expect(readChatConfig({ EVENT_BATCH_WAIT_MS: '0' }).EVENT_BATCH_WAIT_MS).toBe(0);
  });

  it('refuses in production the development SESSION_SECRET and ALTCHA_HMAC_KEY, naming the variable', () => {
    const production = { NODE_ENV: 'production', SERVICE_SECRET: 's'.repeat(32) };
    const secrets = {
      SESSION_SECRET: 'a-session-secret-of-this-deployment',
      ALTCHA_HMAC_KEY: 'an-altcha-key-of-this-deployment',
      PROVIDER_KEY_ENCRYPTION_KEY: OPERATOR_KEY,
    };
    expect(readChatConfig({ ...production, ...secrets })).toMatchObject({ SESSION_SECRET: secrets.SESSION_SECRET });
    for (const name of ['SESSION_SECRET', 'ALTCHA_HMAC_KEY'] as const) {
      const message = `${name} is required in production (16 or more characters, the same on every chat instance): the development default is refused`;
      // Unset (the default applies) or set to either development default.
      expect(() => readChatConfig({ ...production, ...secrets, [name]: '' })).toThrowError(new ConfigError(message));
      expect(() => readChatConfig({ ...production, ...secrets, [name]: DEV_SESSION_SECRET })).toThrowError(message);
      expect(() => readChatConfig({ ...production, ...secrets, [name]: DEV_ALTCHA_HMAC_KEY })).toThrowError(message);
    }
    // Outside production the defaults still run (with a warning at start).
    expect(readChatConfig({})).toMatchObject({ SESSION_SECRET: DEV_SESSION_SECRET, ALTCHA_HMAC_KEY: DEV_ALTCHA_HMAC_KEY });
  });

  it('reads PROVIDER_KEY_ENCRYPTION_KEY as 32 bytes of base64, refusing its development default in production', () => {
    const production = {
      NODE_ENV: 'production',
      SERVICE_SECRET: 's'.repeat(32),
      SESSION_SECRET: 'x'.repeat(20),
      ALTCHA_HMAC_KEY: 'y'.repeat(20),
    };
    const read = readChatConfig({
      ...production,
      PROVIDER_KEY_ENCRYPTION_KEY: OPERATOR_KEY,
      PROVIDER_KEY_PREVIOUS_ENCRYPTION_KEY: PREVIOUS_KEY,
    });
    expect(read.PROVIDER_KEY_ENCRYPTION_KEY.equals(Buffer.from(OPERATOR_KEY, 'base64'))).toBe(true);
    expect(read.PROVIDER_KEY_PREVIOUS_ENCRYPTION_KEY?.equals(Buffer.from(PREVIOUS_KEY, 'base64'))).toBe(true);
    const refused = 'PROVIDER_KEY_ENCRYPTION_KEY is required in production (32 random bytes in base64, e.g. openssl rand -base64 32)';
    expect(() => readChatConfig(production)).toThrowError(new ConfigError(refused));
    expect(() => readChatConfig({ ...production, PROVIDER_KEY_ENCRYPTION_KEY: DEV_PROVIDER_KEY_ENCRYPTION_KEY })).toThrowError(refused);
    expect(() => readChatConfig({ PROVIDER_KEY_ENCRYPTION_KEY: 'c2hvcnQ=' })).toThrowError(/must be 32 bytes in base64.*not shown/);
    // Outside production the default runs (with a warning at start).
    expect(readChatConfig({}).PROVIDER_KEY_ENCRYPTION_KEY.toString('base64')).toBe(DEV_PROVIDER_KEY_ENCRYPTION_KEY);
  });

  it('takes an OpenAI-compatible endpoint', () => {
    const config = readChatConfig({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1/', OPENAI_MODEL: 'llama3.1' });
    expect(config).toMatchObject({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_MODEL: 'llama3.1' });
  });

  it.each([
    ['OPENAI_BASE_URL', 'not a url'],
    ['OPENAI_API_KEY', 'sk with spaces'],
    ['OPENAI_TIMEOUT_MS', '0'],
    ['ANTHROPIC_BASE_URL', 'not a url'],
    ['ANTHROPIC_API_KEY', 'sk with spaces'],
    ['GEMINI_BASE_URL', 'ftp://x'],
    ['GEMINI_API_KEY', 'key with spaces'],
    ['MAX_MESSAGE_CHARS', 'lots'],
    ['CHAT_RATE_PER_VISITOR', '0'],
    ['CHAT_DB_SCHEMA', 'Chat-Schema'],
    ['CHATBOT_URL', 'ftp://x'],
    ['WORKERS', 'sometimes'],
    ['EVENT_BATCH_WAIT_MS', '1001'],
    ['EVENT_BATCH_WAIT_MS', '-1'],
    ['SESSION_SECRET', 'too-short'],
    ['SESSION_SECRET', 'long enough but with spaces'],
  ])('names %s when it is invalid', (name, value) => {
    expect(() => readChatConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => readChatConfig({ [name]: value })).toThrow(name);
  });
});

describe("email's settings (docs/adr/0063-email-channel.md)", () => {
  it('reads the inbound domain lower-cased and the SMTP URLs, unset by default', () => {
    const config = readChatConfig({ EMAIL_INBOUND_DOMAIN: 'Mail.Example.COM', SMTP_URL: 'smtp://u:p@mail.example.com:587' });
    expect([config.EMAIL_INBOUND_DOMAIN, config.SMTP_URL, config.EMAIL_SMTP_URL, config.EMAIL_SMTP_INBOUND_PORT]).toEqual([
      'mail.example.com',
      'smtp://u:p@mail.example.com:587',
      undefined,
      undefined,
    ]);
  });

  it.each([
    ['EMAIL_INBOUND_DOMAIN', 'localhost'],
    ['EMAIL_INBOUND_DOMAIN', 'bad domain.com'],
    ['SMTP_URL', 'https://mail.example.com'],
    ['EMAIL_SMTP_URL', 'not a url'],
  ])('refuses %s=%s without repeating it', (name, value) => {
    expect(() => readChatConfig({ [name]: value })).toThrow(name);
    try {
      readChatConfig({ [name]: value });
    } catch (err) {
      expect((err as Error).message).not.toContain(value);
    }
  });
});
