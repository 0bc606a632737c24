import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@parley/common/config.ts';
import { describe, expect, it } from 'vitest';
import { readAuthConfig } from '../config.ts';

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));

const PRODUCTION_SECRETS = {
  NODE_ENV: 'production',
  SERVICE_SECRET: 's'.repeat(40),
  TWO_FACTOR_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  SSO_ENCRYPTION_KEY: Buffer.alloc(32, 2).toString('base64'),
};

describe('mail settings', () => {
  it('defaults to the local outbox (under the repository root), the Parley sender and localhost:8080', () => {
    const config = readAuthConfig({});
    expect(config.SMTP_URL).toBeUndefined();
    expect(config.MAIL_FROM).toBe('Parley <no-reply@parley.local>');
    expect(config.PUBLIC_URL).toBe('http://localhost:8080');
    expect(isAbsolute(config.MAIL_OUTBOX_DIR)).toBe(true);
    expect(config.MAIL_OUTBOX_DIR).toBe(join(repoRoot, '.data/mail-outbox'));
    expect(config.PASSWORD_RESET_TTL_SECONDS).toBe(3600);
    expect(config.PASSWORD_RESET_MAX_PER_EMAIL).toBe(3);
    expect(config.PASSWORD_RESET_MAX_PER_IP).toBe(10);
    expect(config.PASSWORD_RESET_WINDOW_SECONDS).toBe(3600);
  });

  it('refuses to start in production without SMTP_URL, with a message that says why', () => {
    expect(() => readAuthConfig({ NODE_ENV: 'production', SERVICE_SECRET: 's'.repeat(40) })).toThrow(ConfigError);
    expect(() => readAuthConfig({ NODE_ENV: 'production', SERVICE_SECRET: 's'.repeat(40) })).toThrow(/^SMTP_URL must be set in production/);
    expect(readAuthConfig({ ...PRODUCTION_SECRETS, SMTP_URL: 'smtp://u:p@mail.example.com:587' }).SMTP_URL).toBe(
      'smtp://u:p@mail.example.com:587',
    );
  });

  it('refuses the development TWO_FACTOR_ENCRYPTION_KEY in production, and anything but 32 bytes in base64', () => {
    const smtp = { SMTP_URL: 'smtp://u:p@mail.example.com:587' };
    expect(() => readAuthConfig({ ...PRODUCTION_SECRETS, ...smtp, TWO_FACTOR_ENCRYPTION_KEY: undefined })).toThrow(
      /^TWO_FACTOR_ENCRYPTION_KEY is required in production/,
    );
    expect(readAuthConfig({}).TWO_FACTOR_ENCRYPTION_KEY).toHaveLength(32);
    for (const bad of ['short', Buffer.alloc(31).toString('base64'), `${Buffer.alloc(32, 7).toString('base64')}x`]) {
      expect(() => readAuthConfig({ TWO_FACTOR_ENCRYPTION_KEY: bad })).toThrow(
        'TWO_FACTOR_ENCRYPTION_KEY must be 32 bytes in base64 (e.g. openssl rand -base64 32); the value is not shown',
      );
    }
    expect(readAuthConfig({ TWO_FACTOR_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }).TWO_FACTOR_ENCRYPTION_KEY).toEqual(
      Buffer.alloc(32, 7),
    );
  });

  it('accepts smtp:// and smtps:// URLs only, without repeating the value (it may hold a password)', () => {
    expect(readAuthConfig({ SMTP_URL: 'smtps://mail.example.com' }).SMTP_URL).toBe('smtps://mail.example.com');
    for (const bad of ['http://u:hunter2@mail.example.com', 'mail.example.com:hunter2']) {
      let message = '';
      try {
        readAuthConfig({ SMTP_URL: bad });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        message = (err as Error).message;
      }
      expect(message).toMatch(/^SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/);
      expect(message).not.toContain('hunter2');
    }
  });

  it('requires PUBLIC_URL to be an http(s) URL, and drops a trailing slash', () => {
    expect(() => readAuthConfig({ PUBLIC_URL: 'ftp://parley.example' })).toThrow(/^PUBLIC_URL must be a http or https URL/);
    expect(() => readAuthConfig({ PUBLIC_URL: 'parley.example' })).toThrow(/^PUBLIC_URL must be a URL/);
    expect(readAuthConfig({ PUBLIC_URL: 'https://parley.example/' }).PUBLIC_URL).toBe('https://parley.example');
  });

  it('bounds the reset settings', () => {
    expect(() => readAuthConfig({ PASSWORD_RESET_TTL_SECONDS: '10' })).toThrow(/^PASSWORD_RESET_TTL_SECONDS must be an integer/);
    expect(() => readAuthConfig({ PASSWORD_RESET_MAX_PER_EMAIL: '0' })).toThrow(/^PASSWORD_RESET_MAX_PER_EMAIL must be an integer/);
  });
});

describe('single sign-on settings', () => {
  it('refuses the development SSO_ENCRYPTION_KEY and private identity providers in production', () => {
    const smtp = { SMTP_URL: 'smtp://mail.example.com:587' };
    expect(() => readAuthConfig({ ...PRODUCTION_SECRETS, ...smtp, SSO_ENCRYPTION_KEY: undefined })).toThrow(
      /^SSO_ENCRYPTION_KEY is required in production/,
    );
    expect(() => readAuthConfig({ ...PRODUCTION_SECRETS, ...smtp, SSO_ALLOW_PRIVATE_ADDRESSES: '1' })).toThrow(
      /SSO_ALLOW_PRIVATE_ADDRESSES=1 is for tests/,
    );
    expect(readAuthConfig({ SSO_ALLOW_PRIVATE_ADDRESSES: '1' }).SSO_ALLOW_PRIVATE_ADDRESSES).toBe(true);
    expect(readAuthConfig({}).SSO_ALLOW_PRIVATE_ADDRESSES).toBe(false);
  });
});
