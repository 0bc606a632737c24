// The auth service's environment, validated at start (see @parley/common/config.ts).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commonVars, ConfigError, int, port, readConfig, text, url } from '@parley/common/config.ts';
import { encryptionKey } from '@parley/common/sealed-secret.ts';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

const matching =
  (pattern: RegExp, what: string) =>
  (raw: string, name: string): string => {
    if (!pattern.test(raw)) throw new ConfigError(`${name} must be ${what}, got "${raw}"`);
    return raw;
  };

/** A directory, made absolute; relative paths are taken from the repository root (the gateway reads the same one). */
const directory = (raw: string, name: string): string => {
  if (!raw.trim()) throw new ConfigError(`${name} must be a directory path`);
  return resolve(repoRoot, raw);
};

/**
 * An SMTP server's URL, or undefined when unset (then mails go to the local outbox), which production
 * refuses: there, a reset mail must really go out. The value is never repeated in a message (it may
 * hold a password).
 */
const smtpUrl = (raw: string, name: string, env: NodeJS.ProcessEnv): string | undefined => {
  if (!raw) {
    if (env.NODE_ENV === 'production') {
      throw new ConfigError(
        `${name} must be set in production (e.g. smtp://user:password@mail.example.com:587): without it no mail, not even a password reset link, could be sent`,
      );
    }
    return undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an smtp:// or smtps:// URL (e.g. smtp://user:password@mail.example.com:587)`);
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') {
    throw new ConfigError(`${name} must be an smtp:// or smtps:// URL (e.g. smtp://user:password@mail.example.com:587)`);
  }
  return raw;
};

const allowPrivate = (raw: string, name: string, env: NodeJS.ProcessEnv): boolean => {
  if (raw !== '0' && raw !== '1') throw new ConfigError(`${name} must be 0 or 1, got "${raw}"`);
  if (raw === '1' && env.NODE_ENV === 'production')
    throw new ConfigError(`${name}=1 is for tests and local use only; production refuses it`);
  return raw === '1';
};

/** The development default of TWO_FACTOR_ENCRYPTION_KEY; production refuses it. */
export const DEVELOPMENT_TWO_FACTOR_KEY = Buffer.from('parley development two-factor key').subarray(0, 32).toString('base64');

/** The development default of SSO_ENCRYPTION_KEY; production refuses it. */
export const DEVELOPMENT_SSO_KEY = Buffer.from('parley development sso client key').subarray(0, 32).toString('base64');

/** The key that encrypts TOTP secrets at rest and keys the recovery codes' hash. */
const twoFactorKey = encryptionKey(DEVELOPMENT_TWO_FACTOR_KEY);

export const authVars = {
  ...commonVars,
  PORT: { parse: port, default: '4001' },
  AUTH_DB_SCHEMA: { parse: matching(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case Postgres schema name'), default: 'auth' },
  /** Prefix of the BullMQ queues and of the service's own Redis keys. */
  QUEUE_PREFIX: { parse: matching(/^[\w.-]{1,64}$/, 'letters, digits, ".", "_" or "-"'), default: 'parley' },
  SESSION_TTL_SECONDS: { parse: int(1, 10 * 365 * 24 * 3600), default: String(30 * 24 * 3600) },
  /** Failed logins for one account from one IP: the limit a guesser meets first. */
  LOGIN_MAX_FAILURES_PER_IP_AND_ACCOUNT: { parse: int(1, 1_000_000), default: '5' },
  LOGIN_MAX_FAILURES_PER_IP: { parse: int(1, 1_000_000), default: '20' },
  /** Failed logins for one account from anywhere: high, so that one address cannot lock the owner out. */
  LOGIN_MAX_FAILURES_PER_ACCOUNT: { parse: int(1, 1_000_000), default: '50' },
  LOGIN_FAILURE_WINDOW_SECONDS: { parse: int(1, 7 * 24 * 3600), default: '900' },
  REGISTRATIONS_MAX_PER_IP: { parse: int(1, 1_000_000), default: '10' },
  REGISTRATIONS_WINDOW_SECONDS: { parse: int(1, 7 * 24 * 3600), default: '3600' },
  /** Outgoing mail. Unset outside production, mails are written to MAIL_OUTBOX_DIR instead; production requires it. */
  SMTP_URL: { parse: smtpUrl, default: '' },
  MAIL_FROM: { parse: text, default: 'Parley <no-reply@parley.local>' },
  /** Where mails go without SMTP_URL; the gateway shows them at {PUBLIC_URL}/dev/mail. */
  MAIL_OUTBOX_DIR: { parse: directory, default: '.data/mail-outbox' },
  /** The product's address, for the links in mails. */
  PUBLIC_URL: { parse: url(['http', 'https']), default: 'http://localhost:8080' },
  PASSWORD_RESET_TTL_SECONDS: { parse: int(60, 7 * 24 * 3600), default: '3600' },
  PASSWORD_RESET_MAX_PER_EMAIL: { parse: int(1, 1_000_000), default: '3' },
  PASSWORD_RESET_MAX_PER_IP: { parse: int(1, 1_000_000), default: '10' },
  PASSWORD_RESET_WINDOW_SECONDS: { parse: int(1, 7 * 24 * 3600), default: '3600' },
  TWO_FACTOR_ENCRYPTION_KEY: { parse: twoFactorKey, default: DEVELOPMENT_TWO_FACTOR_KEY },
  /** How long the step between a right password and the code stays open. */
  TWO_FACTOR_CHALLENGE_TTL_SECONDS: { parse: int(30, 3600), default: '300' },
  /** Wrong codes at the second step of sign-in, per account from anywhere and per client IP. */
  TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT: { parse: int(1, 1_000_000), default: '10' },
  TWO_FACTOR_MAX_FAILURES_PER_IP: { parse: int(1, 1_000_000), default: '20' },
  TWO_FACTOR_FAILURE_WINDOW_SECONDS: { parse: int(1, 7 * 24 * 3600), default: '900' },
  /** Seals the workspaces' OpenID Connect client secrets (docs/adr/0047-single-sign-on.md). */
  SSO_ENCRYPTION_KEY: { parse: encryptionKey(DEVELOPMENT_SSO_KEY), default: DEVELOPMENT_SSO_KEY },
  /** How long a sign-in sent to an identity provider may take to come back. */
  SSO_SIGN_IN_TTL_SECONDS: { parse: int(60, 3600), default: '600' },
  /** 1 lets identity providers on private addresses and plain http (tests and local use only); production refuses it. */
  SSO_ALLOW_PRIVATE_ADDRESSES: { parse: allowPrivate, default: '0' },
};

export type AuthConfig = ReturnType<typeof readAuthConfig>;

export function readAuthConfig(env: NodeJS.ProcessEnv = process.env) {
  return readConfig(authVars, env);
}
