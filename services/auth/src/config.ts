// The auth service's environment, validated at start (see @parley/common/config.ts).
import { commonVars, ConfigError, int, port, readConfig } from '@parley/common/config.ts';

const matching = (pattern: RegExp, what: string) => (raw: string, name: string): string => {
  if (!pattern.test(raw)) throw new ConfigError(`${name} must be ${what}, got "${raw}"`);
  return raw;
};

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
};

export type AuthConfig = ReturnType<typeof readAuthConfig>;

export function readAuthConfig(env: NodeJS.ProcessEnv = process.env) {
  return readConfig(authVars, env);
}
